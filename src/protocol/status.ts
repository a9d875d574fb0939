// A delivery's status and what makes one delivered, in one place for the sandbox, the CLI and the inspector's page
// (which bundles this file for the browser: it imports nothing).

/** The words of a delivery's status, and of each of its attempts': the interface's three, in the order --status lists them. */
export const DELIVERY_STATUSES = ['delivered', 'failed', 'pending'] as const;

/**
 * A delivery's status, or an attempt's: `delivered` (a 2xx was answered), `failed`, or `pending` while an attempt is
 * under way. A delivery is delivered once any of its attempts got through, else its newest attempt's status is its
 * own (the sandbox's store, deliveryStatus).
 */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Whether a word is one of a delivery's statuses. */
export const isDeliveryStatus = (word: string): word is DeliveryStatus => (DELIVERY_STATUSES as readonly string[]).includes(word);

/**
 * Whether a receiver's answer delivers a delivery: any 2xx. The service stops
 * retrying on one; whsvc's own sends (send, replay, check-receiver, the
 * forwards of deliveries tail) count it as taken; no answer never does.
 */
export const isDelivered = (answered: number | null | undefined): boolean => typeof answered === 'number' && answered >= 200 && answered < 300;
