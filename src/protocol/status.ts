// What makes a delivery delivered, in one place for the sandbox, the CLI and the inspector's page (which bundles
// this file for the browser: it imports nothing).

/**
 * Whether a receiver's answer delivers a delivery: any 2xx. The service stops
 * retrying on one; whsvc's own sends (send, replay, check-receiver, the
 * forwards of deliveries tail) count it as taken; no answer never does.
 */
export const isDelivered = (answered: number | null | undefined): boolean => typeof answered === 'number' && answered >= 200 && answered < 300;
