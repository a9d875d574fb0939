import { randomBytes } from 'node:crypto';
import { deliveryHeaderNames, deliveryHeaders } from './headers.js';
import { sign } from './signature.js';
import { numberText, type ServiceNumber } from '../exact-json.js';

/**
 * How long the service waits for a receiver's answer: an attempt not answered
 * within it has failed, and is tried again. The interface does not say; this
 * is the sandbox's (`--delivery-timeout-ms`), and what whsvc holds a delivery
 * it sends on or makes itself to (forwards, replay, send, check-receiver)
 * unless `--request-timeout` says otherwise.
 */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * What is read of a receiver's answer: its first 1024 bytes, what the sandbox's log keeps of one
 * (`response_body`). Its status is what counts; past the head the answer is not read, its
 * connection closed, so that an answer of any size holds no memory: the sandbox's sends, and
 * whsvc's own (send, check-receiver, replay, the forwards of listen and deliveries tail).
 */
export const ANSWER_HEAD_BYTES = 1024;

/**
 * The largest payload the service sends. The interface does not say; the
 * sandbox takes request bodies of at most 64 KiB (sandbox/http.ts), so no event
 * it is made to deliver carries more. `check-receiver` sends one this large.
 */
export const LARGEST_PAYLOAD_BYTES = 64 * 1024;

/**
 * The bytes of a delivery, which its signature covers: the compact JSON of its
 * payload. The sandbox signs and sends them (signedDelivery), and a delivery
 * rebuilt from the payload the log returns (rebuiltDelivery) is them again.
 */
export const deliveryBody = (payload: unknown): string => JSON.stringify(payload);

/** A payload as the service sends it to a webhook: its bytes (deliveryBody), and their signature under the webhook's secret. */
export function signedDelivery(secret: string, payload: unknown): { body: string; signature: string } {
  const body = deliveryBody(payload);
  return { body, signature: sign(secret, body) };
}

/** What the service's log keeps of an attempt: enough to rebuild the delivery as it was sent. */
export interface LoggedAttempt {
  id: string;
  event: string;
  /** The attempt's number. */
  attempts?: ServiceNumber | undefined;
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
    attempt: numberText(attempt.attempts ?? 1),
    attemptId: attempt.id,
    sentAt: attempt.created_at,
  });
  return { body: JSON.stringify(attempt.payload), headers, signature: attempt.signature };
}

/** A fresh delivery id, in the service's form (`dlv_` and 24 hex digits): for a delivery whsvc makes itself. */
export const freshDeliveryId = (): string => `dlv_${randomBytes(12).toString('hex')}`;

/** A delivery made here as the service makes one: its body, and the headers it goes with. */
export interface MadeDelivery {
  body: Buffer;
  headers: Record<string, string>;
  deliveryId: string;
  attempt: number;
  event: string;
  /** The signature header's value; undefined when sent unsigned (or with `signature` given as it is, that value). */
  signature: string | undefined;
}

/**
 * A delivery as the service sends one (`send`, `check-receiver`): the body's
 * exact bytes signed with `secret` (`sha256=<hex>`, none without a secret, or
 * the `signature` given as it stands, to send a wrong one on purpose), the
 * service's headers under `platformName`, a fresh delivery id unless one is
 * given, attempt 1 unless another (the first attempt's id is the delivery's,
 * a later one's its own), dated `sentAt`. Its `User-Agent` says who made it
 * (`whsvc/<version> (send)`), as the deliveries `deliveries tail` forwards do.
 */
export function madeDelivery(
  body: Buffer | string,
  facts: {
    event: string;
    platformName: string;
    userAgent: string;
    sentAt: Date;
    secret?: string | undefined;
    signature?: string | undefined;
    deliveryId?: string | undefined;
    attempt?: number | undefined;
  },
): MadeDelivery {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const deliveryId = facts.deliveryId ?? freshDeliveryId();
  const attempt = facts.attempt ?? 1;
  const signature = facts.signature ?? (facts.secret === undefined ? undefined : sign(facts.secret, bytes));
  const headers = deliveryHeaders(facts.platformName, facts.userAgent, {
    signature: signature ?? '',
    event: facts.event,
    deliveryId,
    attempt,
    attemptId: attempt === 1 ? deliveryId : freshDeliveryId(),
    sentAt: facts.sentAt.toISOString(),
  });
  if (signature === undefined) delete headers[deliveryHeaderNames(facts.platformName).signature];
  return { body: bytes, headers, deliveryId, attempt, event: facts.event, signature };
}
