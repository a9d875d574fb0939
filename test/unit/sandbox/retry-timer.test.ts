import { describe, expect, it } from 'vitest';
import { RetryTimer } from '../../../src/sandbox/retry-timer.js';
import { ManualClock } from '../../helpers/manual-clock.js';

// The retry timer alone: the retries due are a list of times; sending takes them off it, unless their delivery is busy.
function retriesAt(...dueTimes: number[]) {
  const clock = new ManualClock(0);
  const due = [...dueTimes];
  const busy = new Set<number>();
  const sentAt: number[] = [];
  const timer = new RetryTimer(
    clock,
    () => (due.length === 0 ? undefined : Math.min(...due)),
    () => {
      const now = due.filter((at) => at <= clock.now());
      for (const at of now) {
        if (busy.has(at)) continue;
        due.splice(due.indexOf(at), 1);
        sentAt.push(clock.now());
      }
      return now.length;
    },
  );
  return { clock, due, busy, sentAt, timer };
}

describe('RetryTimer', () => {
  it('fires at the earliest due retry, and is not moved later by a retry due after it', async () => {
    const { clock, sentAt, timer, due } = retriesAt(1_000);
    timer.arm();
    due.push(5_000);
    timer.arm(5_000);
    await clock.advance(999);
    expect(sentAt).toEqual([]);
    await clock.advance(1);
    expect(sentAt).toEqual([1_000]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a retry due sooner than the one it is set for sets it again', async () => {
    const { clock, sentAt, timer, due } = retriesAt(5_000);
    timer.arm();
    due.push(2_000);
    timer.arm(2_000);
    await clock.advance(2_000);
    expect(sentAt).toEqual([2_000]);
  });

  it('after sending what was due, it is set for the next once a send ends (their due times are cleared by then)', async () => {
    const { clock, sentAt, timer } = retriesAt(1_000, 3_000);
    timer.arm();
    await clock.advance(1_000);
    expect(sentAt).toEqual([1_000]);
    expect(clock.pendingTimers).toBe(0);
    timer.sendEnded();
    await clock.advance(2_000);
    expect(sentAt).toEqual([1_000, 3_000]);
  });

  it('a retry passed over because its delivery was busy is looked for again when a send ends', async () => {
    const { clock, sentAt, timer, busy } = retriesAt(1_000);
    busy.add(1_000);
    timer.arm();
    await clock.advance(1_000);
    expect(sentAt).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
    busy.delete(1_000);
    await clock.advance(500);
    timer.sendEnded();
    await clock.runDue();
    expect(sentAt).toEqual([1_500]);
  });

  it('nothing due when it fires (its webhook paused or deleted meanwhile): it is set for the next at once', async () => {
    const { clock, sentAt, timer, due } = retriesAt(1_000, 3_000);
    timer.arm();
    due.splice(due.indexOf(1_000), 1);
    await clock.advance(3_000);
    expect(sentAt).toEqual([3_000]);
  });

  it('a pause holds the retries due back until it ends', async () => {
    const { clock, sentAt, timer } = retriesAt(100);
    timer.pause(1_000);
    timer.arm();
    await clock.advance(999);
    expect(sentAt).toEqual([]);
    await clock.advance(1);
    expect(sentAt).toEqual([1_000]);
  });

  it('once stopped it is never set again', async () => {
    const { clock, sentAt, timer } = retriesAt(1_000);
    timer.arm();
    timer.stop();
    timer.arm();
    await clock.advance(10_000);
    expect(sentAt).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });
});
