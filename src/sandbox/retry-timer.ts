import type { Clock } from './clock.js';

/** The longest delay a timer takes (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The one timer of the automatic retries: set for the earliest retry due (or
 * for the end of a pause, if later), it then has the retries due sent. One
 * that was due while its delivery was busy is looked for again when a send
 * ends.
 */
export class RetryTimer {
  private timer: unknown = null;
  private timerDueAt = Infinity;
  /** A due retry was found while its delivery was busy: look again when a send ends. */
  private dueWhileBusy = false;
  /** After a failure of the sandbox itself, due retries wait this long rather than spin. */
  private pausedUntil = 0;
  private stopped = false;

  constructor(
    /** The sandbox's clock: retries fall due in its time. */
    private readonly clock: Clock,
    /** When the earliest retry falls due, if one is scheduled. */
    private readonly earliestDue: () => number | undefined,
    /** Has the retries due now sent, passing over those whose delivery is busy; returns how many were due. */
    private readonly sendDue: () => number,
  ) {}

  /** Sets the timer for the earliest due retry, unless it is already set for `dueAt` or earlier. */
  arm(dueAt?: number): void {
    if (this.stopped) return;
    if (dueAt !== undefined && this.timer !== null && this.timerDueAt <= dueAt) return;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerDueAt = Infinity;
    const due = this.earliestDue();
    if (due === undefined) return;
    const now = this.clock.now();
    const delay = Math.min(Math.max(0, due - now, this.pausedUntil - now), MAX_TIMER_MS);
    this.timerDueAt = due;
    this.timer = this.clock.setTimeout(() => this.fire(), delay);
  }

  /** A send ended: a retry passed over while its delivery was busy is looked for again. */
  sendEnded(): void {
    if (!this.dueWhileBusy) return;
    this.dueWhileBusy = false;
    this.arm();
  }

  /** Holds the due retries back for `ms` from now. */
  pause(ms: number): void {
    this.pausedUntil = this.clock.now() + ms;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private fire(): void {
    this.timer = null;
    this.timerDueAt = Infinity;
    if (this.stopped) return;
    // The next retry not yet due is armed when one of these sends ends (their due times are cleared by then).
    if (this.sendDue() === 0) this.arm();
    else this.dueWhileBusy = true;
  }
}
