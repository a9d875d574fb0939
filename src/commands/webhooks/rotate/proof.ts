import { getAttempt, retryDelivery, sendTestEvent } from '../../../api/endpoints.js';
import { ApiError } from '../../../api/errors.js';
import { answeredStatus, deliveryKey } from '../../../api/log.js';
import type { Attempt } from '../../../api/shapes.js';
import type { CommandDeps } from '../../../cli/context.js';
import { noAnswer } from '../../../render/words.js';
import type { RotationJournal } from './journal.js';
import type { WaitClock } from './tries.js';

// Step 2 of rotate-secret: evidence that the receiver takes the new secret before anything switches. The service's
// test send reaches a paused webhook (the sandbox's does): a test delivery to the twin, signed with its secret, must
// come back delivered. Tried again (--wait, or the same command run later), the same delivery is retried, so that a
// long wait leaves one sample delivery in the twin's log, not one per try, and no automatic retry of a refused one
// fires once the twin is resumed.

/** How long an answer `pending` (a service that sends in the background) is looked at again, about the 10 s a send may take. */
const PENDING_LOOK_MS = 15_000;
const PENDING_PAUSE_MS = 1_000;

/** The attempt once it is no longer under way, looked at again every second for a while. */
async function settled(api: CommandDeps['api'], attempt: Attempt, clock: WaitClock): Promise<Attempt> {
  const until = clock.now() + PENDING_LOOK_MS;
  let now = attempt;
  while (now.status === 'pending' && clock.now() < until) {
    await clock.sleep(PENDING_PAUSE_MS);
    now = await getAttempt(api, now.id);
  }
  return now;
}

/**
 * The earlier run's proof delivery sent again: 'delivered' when the service answers 409 (delivered already: the earlier
 * run was stopped after its proof came through), undefined when it is gone (a fresh one is sent).
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

/** One try of the proof: the journal's delivery retried, or a test delivery of `event` sent to the twin (and journaled). */
export async function tryProof(deps: Pick<CommandDeps, 'api'>, journal: RotationJournal, twinId: string, event: string, clock: WaitClock): Promise<Attempt> {
  const earlier = journal.rotation?.proof;
  const again = earlier === undefined ? undefined : await retried(deps.api, earlier);
  if (again === 'delivered') return { id: earlier!, delivery_id: earlier, event, status: 'delivered', response_code: null, created_at: '' };
  if (again) return settled(deps.api, again, clock);
  const attempt = await sendTestEvent(deps.api, twinId, event);
  journal.write({ proof: deliveryKey(attempt) });
  return settled(deps.api, attempt, clock);
}

/** What the receiver made of a try, in words: `answered 401`, `no answer: connection refused`, `still under way`. */
export function proofAnswer(attempt: Attempt): string {
  if (attempt.status === 'pending') return 'still under way';
  const code = answeredStatus(attempt.response_code);
  if (code === undefined && attempt.status === 'delivered') return 'delivered by an earlier try';
  return code === undefined ? noAnswer(attempt.failure_reason) : `answered ${code}`;
}
