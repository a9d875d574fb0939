import { describe, expect, it } from 'vitest';
import { ManualClock, flushPromises } from '../../helpers/manual-clock.js';

describe('ManualClock (test helper)', () => {
  it('only moves when advanced', async () => {
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    await flushPromises();
    expect(clock.now()).toBe(1_000);
    await clock.advance(250);
    expect(clock.now()).toBe(1_250);
    await clock.advanceTo(2_000);
    expect(clock.now()).toBe(2_000);
    await expect(clock.advanceTo(1_999)).rejects.toThrow();
    await expect(clock.advance(-1)).rejects.toThrow();
  });

  it('runs timers due by the target, in due order, each at its own due time', async () => {
    const clock = new ManualClock(0);
    const ran: [string, number][] = [];
    clock.setTimeout(() => ran.push(['c', clock.now()]), 300);
    clock.setTimeout(() => ran.push(['a', clock.now()]), 100);
    clock.setTimeout(() => ran.push(['b1', clock.now()]), 200);
    clock.setTimeout(() => ran.push(['b2', clock.now()]), 200);
    await clock.advance(99);
    expect(ran).toEqual([]);
    await clock.advance(201);
    expect(ran).toEqual([
      ['a', 100],
      ['b1', 200],
      ['b2', 200],
      ['c', 300],
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('runs timers set by timers (and by the promises they start) within the same advance', async () => {
    const clock = new ManualClock(0);
    const ran: number[] = [];
    clock.setTimeout(() => {
      ran.push(clock.now());
      void Promise.resolve().then(() => {
        clock.setTimeout(() => ran.push(clock.now()), 0);
        clock.setTimeout(() => ran.push(clock.now()), 50);
        clock.setTimeout(() => ran.push(clock.now()), 500);
      });
    }, 10);
    await clock.advance(100);
    expect(ran).toEqual([10, 10, 60]);
    expect(clock.nextTimerAt()).toBe(510);
    await clock.advance(410);
    expect(ran).toEqual([10, 10, 60, 510]);
  });

  it('clearTimeout cancels; runDue runs zero-delay timers without moving time', async () => {
    const clock = new ManualClock(0);
    const ran: string[] = [];
    const handle = clock.setTimeout(() => ran.push('cancelled'), 5);
    clock.setTimeout(() => ran.push('now'), 0);
    clock.clearTimeout(handle);
    await clock.runDue();
    expect(ran).toEqual(['now']);
    expect(clock.now()).toBe(0);
    await clock.advance(10);
    expect(ran).toEqual(['now']);
  });

  it('reports a timer that re-arms itself forever instead of hanging', async () => {
    const clock = new ManualClock(0);
    clock.maxTimersPerAdvance = 100;
    const loop = () => {
      clock.setTimeout(loop, 0);
    };
    clock.setTimeout(loop, 0);
    await expect(clock.runDue()).rejects.toThrow(/timer loop/);
  });
});
