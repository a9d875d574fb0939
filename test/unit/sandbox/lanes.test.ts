import { describe, expect, it } from 'vitest';
import { keptBack, type Lane, Lanes } from '../../../src/sandbox/lanes.js';
import { ManualClock, flushPromises } from '../../helpers/manual-clock.js';

// Whose turn it is to send, alone: each webhook's share, the sandbox's budget, the round, and the stall.
const lanesOf = (perWebhook: number, total: number, stalledAfterMs = 1_000) => {
  const elapsed = new ManualClock(0);
  return { elapsed, lanes: new Lanes({ perWebhook, total, stalledAfterMs }, elapsed) };
};

describe('Lanes', () => {
  it('starts a send at once while its webhook and the budget have room; the next waits, and is told so', async () => {
    const { lanes } = lanesOf(2, 3);
    const told: string[] = [];
    const hooks = (name: string) => ({ waits: () => told.push(`${name} waits`), starts: () => told.push(`${name} starts`) });
    const first = await lanes.turn('wh_a', hooks('a1'));
    await lanes.turn('wh_a', hooks('a2'));
    let third: Lane | undefined;
    void lanes.turn('wh_a', hooks('a3')).then((lane) => (third = lane));
    await flushPromises();
    expect(told).toEqual(['a3 waits']);
    expect(third).toBeUndefined();
    lanes.end(first);
    await flushPromises();
    expect(told).toEqual(['a3 waits', 'a3 starts']);
    expect(third?.webhookId).toBe('wh_a');
  });

  it('when the budget is full, the webhooks waiting take turns, one send each a round', async () => {
    const { lanes } = lanesOf(10, 1);
    const started: Lane[] = [];
    let running = await lanes.turn('wh_first');
    for (const id of ['wh_a', 'wh_a', 'wh_a', 'wh_b', 'wh_c']) void lanes.turn(id).then((lane) => started.push(lane));
    // One send at a time: each end starts the next in the round.
    for (let i = 0; i < 5; i++) {
      lanes.end(running);
      await flushPromises();
      expect(started).toHaveLength(i + 1);
      running = started[i]!;
    }
    // First come, first served would have sent wh_a's three before wh_b's one.
    expect(started.map((lane) => lane.webhookId)).toEqual(['wh_a', 'wh_b', 'wh_c', 'wh_a', 'wh_a']);
  });

  it.each([
    // The whole budget (1) is held by another webhook's send.
    ['by the budget', 1, 1, 'wh_other'],
    // A budget of 8 keeps 2 for first sends (one a webhook): the same webhook's seventh send waits.
    ['by the reserve for first sends', 8, 6, 'wh_hangs'],
  ])('acknowledges an event held back %s once no send at all has ended for the stall time, not before', async (_by, total, held, waiting) => {
    const { lanes, elapsed } = lanesOf(10, total, 1_000);
    for (let n = 0; n < held; n++) await lanes.turn('wh_hangs');
    let acknowledged = false;
    void lanes.turn(waiting, { acknowledge: () => (acknowledged = true) });
    await elapsed.advance(999);
    expect(acknowledged).toBe(false);
    await elapsed.advance(1);
    expect(acknowledged).toBe(true);
  });

  it('keeps the last quarter of the budget for first sends: webhooks that hang with their whole share never hold every connection', async () => {
    const { lanes } = lanesOf(64, 256);
    // Five webhooks whose sends never end, each asking for its whole share (5 × 64 > 256).
    let started = 0;
    for (let n = 0; n < 64; n++) for (const id of ['wh_1', 'wh_2', 'wh_3', 'wh_4', 'wh_5']) void lanes.turn(id).then(() => (started += 1));
    await flushPromises();
    expect(started).toBe(256 - 64);
    // Another webhook's send starts at once, and so do its first eight; its ninth waits like theirs.
    const healthy: Lane[] = [];
    for (let n = 0; n < 9; n++) void lanes.turn('wh_healthy').then((lane) => healthy.push(lane));
    await flushPromises();
    expect(healthy).toHaveLength(8);
    // One of its sends ends: its ninth is now among its first eight and starts; theirs still wait, only the reserve is free.
    lanes.end(healthy[0]!);
    await flushPromises();
    expect(healthy).toHaveLength(9);
    expect(started).toBe(256 - 64);
    expect(keptBack(256)).toEqual({ reserve: 64, firstSends: 8 });
  });
});
