import { deliveryHeaders } from './headers.js';

/** What the service's log keeps of an attempt: enough to rebuild the delivery as it was sent. */
export interface LoggedAttempt {
  id: string;
  event: string;
  /** The attempt's number. */
  attempts?: number | undefined;
  created_at?: string | undefined;
  payload?: unknown;
  signature?: string | undefined;
}

/** A delivery as the service sent it: the body its signature covers, and its headers. */
export interface RebuiltDelivery {
  body: string;
  headers: Record<string, string>;
  /** The signature the service stored, and sent. */
  signature: string;
}

/**
 * A delivery rebuilt from an attempt of the log, as the service sent it: the
 * compact JSON of its stored payload (the bytes the sandbox signs) and the
 * delivery headers under `platformName` (the sandbox's `--platform-name`),
 * dated at the attempt's time. Without a stored payload or signature there
 * is nothing to rebuild: the reason, in words.
 */
export function rebuiltDelivery(
  attempt: LoggedAttempt,
  /** The delivery's id: the service's `delivery_id`, or the attempt's own when it sends none. */
  deliveryId: string,
  sender: { platformName: string; userAgent: string },
): RebuiltDelivery | { cannot: string } {
  if (attempt.payload === undefined) return { cannot: 'the service returned no payload for it' };
  if (typeof attempt.signature !== 'string') return { cannot: 'the service returned no signature for it' };
  const headers = deliveryHeaders(sender.platformName, sender.userAgent, {
    signature: attempt.signature,
    event: attempt.event,
    deliveryId,
    attempt: attempt.attempts ?? 1,
    attemptId: attempt.id,
    sentAt: attempt.created_at,
  });
  return { body: JSON.stringify(attempt.payload), headers, signature: attempt.signature };
}
