import type { ApiClient } from '../../../api/client.js';
import { ApiError, NetworkError } from '../../../api/errors.js';
import { attemptsOf, deliveryKey, MAX_PAGE } from '../../../api/log.js';
import type { Attempt } from '../../../api/shapes.js';
import { numberValue } from '../../../exact-json.js';
import { deliveryFate, type Fate, type FateAttempt } from '../../../protocol/fate.js';
import { counted, sanitize } from '../../../render/text.js';
import { fateWords, statusWords } from '../../../render/words.js';

// A delivery's fate as the commands read it from the service (show, list, tail, recover, test and retry), told by
// protocol/fate.ts: only from what the service gives. Which delivery an attempt belongs to is the sandbox's extension
// (`delivery_id`), and so is whether a retry is due (`next_attempt_at`); a service without them gets no fate claimed.

/** An attempt as the fate is told from it; a `next_attempt_at` of another type than a time or null is not read. */
export const fateAttempt = (attempt: Attempt): FateAttempt => ({
  status: attempt.status,
  attempt: numberValue(attempt.attempts),
  created_at: attempt.created_at,
  next_attempt_at: typeof attempt.next_attempt_at === 'string' || attempt.next_attempt_at === null ? attempt.next_attempt_at : undefined,
});

/** The fate of an attempt just made (a test send, a retry): it is its delivery's newest. */
export const fateOfNewest = (attempt: Attempt): Fate | undefined => deliveryFate([fateAttempt(attempt)], true);

/**
 * The words of an attempt's status in a row or a line: the delivery's fate when the attempt is its newest
 * (`failed · no more retries`, `failed · retry due 14:02:05`), else the attempt's own status (statusWords).
 */
export function attemptWords(attempt: Attempt, newest: boolean, now?: number): string {
  const fate = newest ? fateOfNewest(attempt) : undefined;
  return fate ? fateWords(fate, now) : statusWords(attempt.status, attempt.next_attempt_at, now);
}

/** How many deliveries a listing remembers to know their newest attempts: a few MB at most. */
export const DELIVERIES_KEPT = 100_000;

/**
 * Which attempts of a log read newest first (deliveries list, recover) are their delivery's newest: the first of
 * each delivery met, when the reading began at the top of the log (no --cursor) and no attempt was left out by its
 * status (--status). It remembers DELIVERIES_KEPT deliveries; past that it says no more (one forgotten could not be
 * told from one not met yet). An attempt whose delivery the service does not name is never known to be the newest.
 */
export class NewestFirst {
  private readonly met = new Set<string>();
  private full = false;

  constructor(private readonly fromTheTop: boolean) {}

  /** Whether `attempt`, the next in the log's order, is its delivery's newest. */
  isNewest(attempt: Pick<Attempt, 'id' | 'delivery_id'>): boolean {
    if (!this.fromTheTop || this.full || attempt.delivery_id === undefined) return false;
    const key = deliveryKey(attempt);
    if (this.met.has(key)) return false;
    if (this.met.size >= DELIVERIES_KEPT) {
      this.full = true;
      return false;
    }
    this.met.add(key);
    return true;
  }
}

/**
 * The highest attempt number seen of each delivery, for a stream that meets attempts out of the log's order (tail:
 * a poll's new attempts and changes of status). Noted for a whole poll before its lines are printed, so that an
 * attempt whose retry came in the same poll is not taken for the newest. Keeps the DELIVERIES_KEPT latest.
 */
export class HighestAttempts {
  private readonly highest = new Map<string, number>();

  note(attempt: Attempt): void {
    const number = numberValue(attempt.attempts);
    if (attempt.delivery_id === undefined || number === undefined) return;
    const key = deliveryKey(attempt);
    const known = this.highest.get(key);
    if (known !== undefined && known >= number) return;
    this.highest.delete(key);
    this.highest.set(key, number);
    if (this.highest.size > DELIVERIES_KEPT) this.highest.delete(this.highest.keys().next().value!);
  }

  /** Whether no later attempt of its delivery has been noted. */
  isNewest(attempt: Attempt): boolean {
    const number = numberValue(attempt.attempts);
    return attempt.delivery_id !== undefined && number !== undefined && this.highest.get(deliveryKey(attempt)) === number;
  }
}

/** What `deliveries show` knows of the fate of the attempt it shows: the fate, whether the attempt is the newest, or why not known. */
export interface ShownFate {
  fate?: Fate | undefined;
  /** The attempt shown is its delivery's newest: its status line says the fate. */
  newest: boolean;
  /** Why the fate is not known. */
  unknown?: string;
}

/** Pages of a webhook's log `deliveries show` reads above an attempt for its delivery's later attempts, at most. */
export const SHOW_PAGES = 10;

/**
 * The fate of the delivery `attempt` belongs to. A delivered attempt, or one the service says has a retry due (the
 * sandbox's `next_attempt_at`, only ever on a delivery's newest attempt), tells it alone. Otherwise the webhook's log
 * is read from its top down to the attempt (at most SHOW_PAGES pages), for the attempts made since of the same
 * delivery. A failure to read it leaves the fate unknown, and says why: the attempt itself was shown.
 */
export async function fateOfAttempt(api: ApiClient, attempt: Attempt): Promise<ShownFate> {
  const own = fateAttempt(attempt);
  if (attempt.status === 'delivered' || typeof own.next_attempt_at === 'string') return { fate: deliveryFate([own], true), newest: true };
  if (attempt.delivery_id === undefined || typeof attempt.webhook_id !== 'string') {
    return { newest: false, unknown: 'the service does not say which delivery the attempt belongs to' };
  }
  const key = deliveryKey(attempt);
  const since = Date.parse(attempt.created_at);
  const later: FateAttempt[] = [];
  let newestId: string | undefined;
  let read = 0;
  try {
    for await (const item of attemptsOf(api, attempt.webhook_id, { since: Number.isNaN(since) ? undefined : since })) {
      if (++read > SHOW_PAGES * MAX_PAGE) {
        return { newest: false, unknown: `its webhook has more than ${counted(SHOW_PAGES * MAX_PAGE, 'attempt')} since this one, not read` };
      }
      if (deliveryKey(item) !== key) continue;
      newestId ??= item.id;
      later.push(fateAttempt(item));
      if (item.id === attempt.id) break;
    }
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof NetworkError)) throw error;
    return { newest: false, unknown: `its webhook's log could not be read (${sanitize(error.message)})` };
  }
  if (newestId === undefined) return { newest: false, unknown: "the attempt is not in its webhook's log" };
  return { fate: deliveryFate(later, true), newest: newestId === attempt.id };
}
