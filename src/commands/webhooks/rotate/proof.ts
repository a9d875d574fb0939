import { getAttempt, retryDelivery, sendTestEvent } from '../../../api/endpoints.js';
import { ApiError } from '../../../api/errors.js';
import { answeredStatus, deliveryKey } from '../../../api/log.js';
import type { Attempt } from '../../../api/shapes.js';
import type { CommandDeps } from '../../../cli/context.js';
import { sanitize } from '../../../render/text.js';
import { noAnswer } from '../../../render/words.js';
import type { RotationJournal } from './journal.js';
import { STILL_PENDING, settledAttempt, type WaitClock } from './tries.js';

// Step 2 of rotate-secret: evidence, before anything switches, that the receiver takes the new secret. The service's
// test send to the paused twin, signed with the new secret, answered 2xx is that evidence (as far as a 2xx goes: a
// receiver that takes everything answers so too). One answered otherwise is compared with a test send to the old
// webhook, signed with the old secret: the same refusal (404 "unknown invoice") is of the sample event, not of the
// secret, and the receiver answers the new secret as it answers the old. The interface does not promise that a test
// send reaches a paused webhook (the sandbox's does): the twin's held pending, recorded failed without an answer or a
// reason, or refused by the service, while the old one's was answered, says that this service does not send it.
// Tried again (--wait, or the same command run later), the journal's deliveries are retried, so that a long wait
// leaves one sample delivery in each log, not one per try, and no automatic retry of a refused one fires once the
// twin is resumed.

/** What came of one test delivery. */
export interface Seen {
  webhookId: string;
  /** The delivery's id; undefined when the service refused to make one. */
  deliveryId: string | undefined;
  /** As the service said it (`delivered`, `failed`, `pending` still after a while), or `not_made` when it refused the send. */
  status: string;
  /** The receiver's HTTP status, when one is known. */
  code: number | undefined;
  /** What was seen, in words: `answered 401`, `no answer: connection refused`, `still pending after 15 s`. */
  answer: string;
  /** The service did not send it to the receiver, by what it said: held pending, failed without an answer or a reason, or refused. */
  unsent: boolean;
}

/**
 * What the tries show. `taken`: the twin's answered 2xx. `same_as_old`: the twin's and the old one's answered the same
 * 4xx, a judgement of the sample. `not_taken`: the old one's answered 2xx and the twin's another code. `not_sent`: the
 * service did not send the twin's, and the old one's, to the same URL, was answered. `unclear`: anything else (no
 * answer, a 5xx, two different refusals).
 */
export type Verdict = 'taken' | 'same_as_old' | 'not_taken' | 'not_sent' | 'unclear';

export interface Proof {
  twin: Seen;
  /** The old webhook's test delivery, sent when the twin's was not answered 2xx. */
  old: Seen | undefined;
  verdict: Verdict;
}

/** Whether the proof lets the switch go ahead. */
export const proven = (proof: Proof): boolean => proof.verdict === 'taken' || proof.verdict === 'same_as_old';

/** Whether trying again can change what the tries show: not once proven, nor against a service that does not send. */
export const settledProof = (proof: Proof): boolean => proven(proof) || proof.verdict === 'not_sent';

/**
 * An earlier test delivery sent again: 'delivered' when the service answers 409 (delivered already: a run stopped after
 * it came through), undefined when it is gone (a fresh one is sent).
 */
async function retried(api: CommandDeps['api'], deliveryId: string): Promise<Attempt | 'delivered' | undefined> {
  try {
    return await retryDelivery(api, deliveryId);
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return 'delivered';
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** A refusal of the test send itself that says the webhook cannot be sent to (a 400, 409 or 422: "webhook inactive"), not a refusal of whsvc. */
const refusedSend = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && ![401, 403, 404, 408, 429].includes(error.status);

/** An attempt settled, as seen: a failed one without an answer code is read whole for its reason (on the retrieve only). */
async function seenOf(api: CommandDeps['api'], webhookId: string, attempt: Attempt): Promise<Seen> {
  const code = answeredStatus(attempt.response_code);
  const seen = { webhookId, deliveryId: deliveryKey(attempt), status: attempt.status, code, unsent: false };
  if (attempt.status === 'pending') return { ...seen, answer: STILL_PENDING, unsent: true };
  if (code !== undefined) return { ...seen, answer: `answered ${code}` };
  if (attempt.status === 'delivered') return { ...seen, answer: 'answered 2xx' };
  const reason = attempt.failure_reason ?? (await getAttempt(api, attempt.id)).failure_reason;
  return reason ? { ...seen, answer: noAnswer(reason) } : { ...seen, answer: 'recorded failed, with no answer and no reason', unsent: true };
}

/** One test delivery to `webhookId`: the journal's (`which`) retried, or a fresh one sent (and journaled). */
async function tryTest(
  api: CommandDeps['api'],
  journal: RotationJournal,
  which: 'proof' | 'compare',
  webhookId: string,
  event: string,
  clock: WaitClock,
): Promise<Seen> {
  const earlier = journal.rotation?.[which];
  const again = earlier === undefined ? undefined : await retried(api, earlier);
  // Delivered already: by its first attempt, whose answer is read, or by a later one, whose is not.
  if (again === 'delivered') {
    const first = await getAttempt(api, earlier!);
    return seenOf(api, webhookId, first.status === 'delivered' ? first : { ...first, status: 'delivered', response_code: null });
  }
  let attempt = again;
  if (!attempt) {
    try {
      attempt = await sendTestEvent(api, webhookId, event);
    } catch (error) {
      if (!refusedSend(error)) throw error;
      const answer = `the service refused to send it (HTTP ${error.status}: ${sanitize(error.message)})`;
      return { webhookId, deliveryId: undefined, status: 'not_made', code: undefined, answer, unsent: true };
    }
    const id = deliveryKey(attempt);
    journal.write(which === 'proof' ? { proof: id } : { compare: id });
  }
  return seenOf(api, webhookId, await settledAttempt(api, attempt, clock));
}

/** A refusal that judges what was sent (a 4xx but a time-out or a rate limit), rather than a receiver that could not. */
const judged = (code: number): boolean => code >= 400 && code < 500 && code !== 408 && code !== 429;

/** What a try of the twin's test delivery and, when taken, of the old one's shows. */
export function verdictOf(twin: Seen, old: Seen | undefined): Verdict {
  if (twin.status === 'delivered') return 'taken';
  if (!old) return 'unclear';
  const oldAnswered = old.code !== undefined || old.status === 'delivered';
  if (twin.unsent && oldAnswered) return 'not_sent';
  if (twin.code === undefined) return 'unclear';
  if (old.status === 'delivered') return 'not_taken';
  return twin.code === old.code && judged(twin.code) ? 'same_as_old' : 'unclear';
}

/**
 * One try of the proof: a test delivery to the twin (`ids.twin`), signed with the new secret; when it is not answered
 * 2xx, one to the old webhook (`ids.old`), signed with the old, to compare.
 */
export async function tryProof(
  deps: Pick<CommandDeps, 'api'>,
  journal: RotationJournal,
  ids: { twin: string; old: string },
  event: string,
  clock: WaitClock,
): Promise<Proof> {
  const twin = await tryTest(deps.api, journal, 'proof', ids.twin, event, clock);
  if (twin.status === 'delivered') return { twin, old: undefined, verdict: 'taken' };
  const old = await tryTest(deps.api, journal, 'compare', ids.old, event, clock);
  return { twin, old, verdict: verdictOf(twin, old) };
}
