// How rotate-secret waits: --wait D tries a step again (the proof, the old webhook's last deliveries) until it is done
// or D has passed, on a clock a test can give its own.

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
