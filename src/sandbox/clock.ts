/** Time as the sandbox sees it; tests pass a manual clock to drive backoff without sleeping. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    timer.unref?.();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Real elapsed time (performance.now()), whatever the sandbox's clock says:
 * what connections take is measured in it (a manual clock stands still while
 * a receiver takes its time).
 */
export const elapsedClock: Clock = {
  now: () => performance.now(),
  setTimeout: systemClock.setTimeout,
  clearTimeout: systemClock.clearTimeout,
};

/**
 * The sandbox's time with `--clock manual`: it stands still until it is moved
 * (forward only). What falls due now still happens at once; anything set for
 * later waits for an advance, which plays it out (Deliverer.advance).
 */
export class ManualSandboxClock implements Clock {
  readonly manual = true;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  /**
   * Puts the clock where a stopped sandbox's clock stood (with --data-dir), even behind where this one started:
   * before anything has happened on it, so nothing goes back.
   */
  resumeAt(time: number): void {
    this.current = time;
  }

  /** Moves time forward to `time`; never back. */
  moveTo(time: number): void {
    if (time > this.current) this.current = time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    return ms > 0 ? null : setImmediate(callback);
  }

  clearTimeout(handle: unknown): void {
    if (handle) clearImmediate(handle as NodeJS.Immediate);
  }
}

export function isManual(clock: Clock): clock is ManualSandboxClock {
  return clock instanceof ManualSandboxClock;
}
