import type { Attempt } from '../../../api/shapes.js';
import { getAttempt } from '../../../api/endpoints.js';
import type { ApiClient } from '../../../api/client.js';
import { ApiError } from '../../../api/errors.js';
import { deliveryKey } from '../../../api/log.js';
import type { Transport } from '../../../api/transport.js';
import { sendAsReceived } from '../../../receiver/send-on.js';
import type { ForwardRoute } from '../../../receiver/routes.js';
import type { SecretSource } from '../../../receiver/secrets.js';
import { rebuiltDelivery } from '../../../protocol/delivery.js';
import { checkSignature, type SignatureCheck } from '../../../protocol/signature.js';

export interface ForwardTarget {
  /** Where each delivery goes, by its event type (the first pattern that matches, else the bare URL). */
  routes: ForwardRoute[];
  /** The name in the headers: X-<platform>-Signature, … */
  platform: string;
  secret?: SecretSource | undefined;
  send: Transport;
  /** Each forward's limit; DELIVERY_TIMEOUT_MS (the service's own) when not given. */
  timeoutMs?: number | undefined;
}

export type ForwardOutcome =
  /** The app answered (whatever its status): forwarded. */
  | { kind: 'answered'; status: number; signatureCheck: SignatureCheck; record: Attempt }
  /** No answer (the app is down, or too slow): not forwarded; tried again later. */
  | { kind: 'no_answer'; error: string; signatureCheck: SignatureCheck; record: Attempt }
  /** Nothing that can be sent: the attempt is gone, or its record holds no payload or signature. */
  | { kind: 'cannot'; why: string };

/** A delivery read back from the service, ready to be sent or recorded: the body and headers the service sent it with. */
export interface Retrieved {
  record: Attempt;
  body: string;
  headers: Record<string, string>;
  /** Whether the body rebuilt from the stored payload carries the stored signature. */
  signatureCheck: SignatureCheck;
}

/** The user agent of the headers tail rebuilds (the log keeps none of the service's), and forwards. */
export const TAIL_USER_AGENT = `whsvc/${WHSVC_VERSION} (deliveries tail)`;

/**
 * Reads one delivery back from the service as it sent it: the attempt's
 * stored payload as compact JSON (what the sandbox signs), its stored
 * signature, and the delivery headers the sandbox documents. With a secret,
 * checks that the rebuilt body carries the stored signature (it is forwarded
 * either way; the check says whose problem a failing signature is).
 */
export async function retrieveDelivery(
  api: ApiClient,
  target: Pick<ForwardTarget, 'platform' | 'secret'>,
  attempt: Attempt,
): Promise<Retrieved | { kind: 'cannot'; why: string }> {
  let record: Attempt;
  try {
    record = await getAttempt(api, attempt.id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { kind: 'cannot', why: 'the attempt is gone from the log' };
    throw error;
  }
  const delivery = rebuiltDelivery(
    { ...attempt, ...record, id: attempt.id },
    deliveryKey({ id: attempt.id, delivery_id: record.delivery_id ?? attempt.delivery_id }),
    { platformName: target.platform, userAgent: TAIL_USER_AGENT },
  );
  if ('cannot' in delivery) return { kind: 'cannot', why: delivery.cannot };
  const signatureCheck = checkSignature(target.secret?.current(), delivery.body, delivery.signature);
  return { record, body: delivery.body, headers: delivery.headers, signatureCheck };
}

/**
 * Sends a delivery read back from the service to the local app, as the
 * service sent it, the one way every delivery is sent on (sendAsReceived):
 * to the route's URL, or, when it has no path, to the webhook's own path.
 */
export async function sendRetrieved(
  target: Pick<ForwardTarget, 'send' | 'timeoutMs'>,
  routeUrl: URL,
  webhookPath: string,
  retrieved: Retrieved,
): Promise<Exclude<ForwardOutcome, { kind: 'cannot' }>> {
  const { record, signatureCheck } = retrieved;
  const answer = await sendAsReceived(target.send, routeUrl, retrieved.headers, Buffer.from(retrieved.body), webhookPath, target.timeoutMs);
  return answer.status === null
    ? { kind: 'no_answer', error: answer.error ?? 'no answer', signatureCheck, record }
    : { kind: 'answered', status: answer.status, signatureCheck, record };
}
