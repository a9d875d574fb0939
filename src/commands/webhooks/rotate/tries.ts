import { getAttempt } from '../../../api/endpoints.js';
import type { Attempt } from '../../../api/shapes.js';
import type { CommandDeps } from '../../../cli/context.js';
import { elapsed } from '../../../render/words.js';

// How rotate-secret waits: --wait D tries a step again (the proof, the old webhook's last deliveries) until it is done
// or D has passed, and an attempt under way is looked at until it is settled, on a clock a test can give its own.

/** The clock a wait goes by: this machine's, or a test's. */
export interface WaitClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const machineClock = (now: () => number): WaitClock => ({ now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });

/** The first pause between two tries, doubled after each up to the longest: a receiver being redeployed is seen soon. */
const FIRST_PAUSE_MS = 2_000;
const LONGEST_PAUSE_MS = 15_000;

/**
 * Tries `attempt` until `done` takes what it gives, or `waitMs` has passed on `clock` (0: one try); the last try is
 * made when the wait ends. `waiting` is told before each pause, with the time left. Returns what the last try gave.
 */
export async function keepTrying<T>(
  clock: WaitClock,
  waitMs: number,
  attempt: () => Promise<T>,
  done: (result: T) => boolean,
  waiting: (result: T, leftMs: number) => void,
): Promise<T> {
  const deadline = clock.now() + waitMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const result = await attempt();
    const left = deadline - clock.now();
    if (done(result) || left <= 0) return result;
    waiting(result, left);
    await clock.sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  }
}

/** How long an attempt `pending` (a service that sends in the background) is looked at again, about the 10 s a send may take. */
const PENDING_LOOK_MS = 15_000;
const PENDING_PAUSE_MS = 1_000;

/** An attempt still under way once it was looked at for that long, in words. */
export const STILL_PENDING = `still pending after ${elapsed(PENDING_LOOK_MS)}`;

/**
 * The attempt once it is no longer under way, looked at again every second for a while: an attempt under way is waited
 * for, never sent again (a service may then send a second in parallel).
 */
export async function settledAttempt(api: CommandDeps['api'], attempt: Attempt, clock: WaitClock): Promise<Attempt> {
  const until = clock.now() + PENDING_LOOK_MS;
  let now = attempt;
  while (now.status === 'pending' && clock.now() < until) {
    await clock.sleep(PENDING_PAUSE_MS);
    now = await getAttempt(api, now.id);
  }
  return now;
}
