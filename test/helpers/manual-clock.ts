import type { Clock } from '../../src/sandbox/clock.js';

interface ManualTimer {
  id: number;
  at: number;
  callback: () => void;
}

/**
 * Lets everything already queued run: promise jobs, process.nextTick callbacks
 * and I/O-free macrotasks (undici's MockAgent replies and response streams),
 * by yielding to the event loop `rounds` times. Never advances a ManualClock.
 */
export async function flushPromises(rounds = 25): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * A Clock whose time only moves when the test calls `advance(ms)`. Timers due
 * by then run in order (due time, then creation order), each one at its own
 * due time, with pending promises flushed after each, so that work a timer
 * starts (and timers that work sets) is done before the next one is looked at.
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private readonly timers = new Map<number, ManualTimer>();
  /** Guards against code that re-arms a zero-delay timer forever. */
  maxTimersPerAdvance = 10_000;

  constructor(start = Date.UTC(2025, 0, 15, 12, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId;
    this.nextId += 1;
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.timers.set(id, { id, at: this.current + delay, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.timers.delete(handle);
  }

  /** How many timers are set and not yet run or cleared. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** When the earliest timer is due, if any is set. */
  nextTimerAt(): number | undefined {
    return this.earliest()?.at;
  }

  /** Moves time forward by `ms`, running every timer due by then, in order. */
  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`advance(${ms}): ms must be a finite number >= 0`);
    const target = this.current + ms;
    await flushPromises();
    let ran = 0;
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.at > target) break;
      ran += 1;
      if (ran > this.maxTimersPerAdvance) {
        throw new Error(`more than ${this.maxTimersPerAdvance} timers ran in one advance(${ms}): a timer loop?`);
      }
      this.timers.delete(next.id);
      this.current = Math.max(this.current, next.at);
      next.callback();
      await flushPromises();
    }
    this.current = target;
    await flushPromises();
  }

  /** Moves time to the absolute instant `at` (not earlier than now). */
  async advanceTo(at: number): Promise<void> {
    if (at < this.current) throw new Error(`advanceTo(${at}): the clock is already at ${this.current}`);
    await this.advance(at - this.current);
  }

  /** Runs the timers already due (zero-delay ones included) without moving time. */
  async runDue(): Promise<void> {
    await this.advance(0);
  }

  private earliest(): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const timer of this.timers.values()) {
      if (best === undefined || timer.at < best.at || (timer.at === best.at && timer.id < best.id)) best = timer;
    }
    return best;
  }
}

/**
 * A clock for a command's own waits (rotate-secret's --wait) whose pauses take no time: each moves it on by its
 * length, is kept in `sleeps`, and is told to `onSleep` with how many there were so far.
 */
export function instantWaitClock(onSleep: (count: number) => void = () => {}): {
  clock: { now(): number; sleep(ms: number): Promise<void> };
  sleeps: number[];
} {
  let now = 0;
  const sleeps: number[] = [];
  const clock = {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
      onSleep(sleeps.length);
    },
  };
  return { clock, sleeps };
}
