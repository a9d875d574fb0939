import { afterEach, describe, expect, it, vi } from 'vitest';
import { keptBack } from '../../src/sandbox/lanes.js';
import { createSandbox } from '../../src/sandbox/server.js';
import { getToken, postEvent, postWebhook } from '../helpers/http.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(answer: 'hold' | 200): Promise<Receiver> {
  const started = await startReceiver(() => answer);
  cleanups.push(() => started.close());
  return started;
}

describe('a stalled webhook holds at most its share of the send budget', () => {
  it("five endpoints that accept and never answer: a healthy webhook's delivery still goes at once, while all five hang", async () => {
    const MAX_CONNECTIONS = 256;
    const PER_WEBHOOK = 64;
    // The sandbox's elapsed time stands still unless the test moves it: a stall, and any wait, is counted in it alone.
    const elapsed = new ManualClock(0);
    // No send can time out during the test: a hanging one ends only when its receiver closes.
    const sandbox = createSandbox({
      elapsed,
      policy: { maxAttempts: 1, timeoutMs: 600_000, maxConnections: MAX_CONNECTIONS, concurrencyPerWebhook: PER_WEBHOOK },
    });
    const base = await sandbox.listen(0, '127.0.0.1');
    cleanups.push(() => sandbox.close());
    const hanging = await Promise.all(Array.from({ length: 5 }, () => receiver('hold')));
    const healthy = await receiver(200);
    const token = await getToken(base, sandbox.clients[0]!.client_id, sandbox.clients[0]!.client_secret);
    const stalledIds: string[] = [];
    for (const endpoint of hanging) stalledIds.push((await postWebhook(base, token, `${endpoint.url}/hook`, ['invoice.paid'])).id);
    await postWebhook(base, token, `${healthy.url}/hook`, ['product.updated']);

    // Each event is one delivery to each of the five: enough for them to want more than the whole budget (5 × 64 > 256).
    const events = Promise.all(Array.from({ length: PER_WEBHOOK }, () => postEvent(base, 'invoice.paid')));
    const { reserve } = keptBack(MAX_CONNECTIONS);
    const heldByHanging = () => hanging.reduce((sum, endpoint) => sum + endpoint.held(), 0);
    await vi.waitFor(() => expect(heldByHanging()).toBeGreaterThanOrEqual(MAX_CONNECTIONS - reserve), { timeout: 30_000 });
    // A second of the sandbox's time with no send ended: the five are stalled, and every event is acknowledged.
    await elapsed.advance(1_000);
    await events;
    const stalledAt = elapsed.now();

    const healthyEvent = postEvent(base, 'product.updated');
    await healthy.waitFor(1, 30_000);
    expect(await healthyEvent).toHaveLength(1);
    // It came while the five still hang: none of their sends ended (none answered, none timed out, none recorded).
    expect(hanging.map((endpoint) => endpoint.answered.size)).toEqual([0, 0, 0, 0, 0]);
    expect(heldByHanging()).toBe(hanging.reduce((sum, endpoint) => sum + endpoint.received.length, 0));
    const pending = stalledIds.map((id) => sandbox.log.listAttempts(id, { limit: 1_000, status: 'pending' }).length);
    expect(pending).toEqual([PER_WEBHOOK, PER_WEBHOOK, PER_WEBHOOK, PER_WEBHOOK, PER_WEBHOOK]);
    // Together they hold the budget but its reserve, and the healthy delivery took no time of the sandbox's.
    expect(heldByHanging()).toBeLessThanOrEqual(MAX_CONNECTIONS - reserve);
    expect(elapsed.now() - stalledAt).toBe(0);

    // The hanging ends: their sends fail, and the sandbox can stop.
    for (const endpoint of hanging) await endpoint.close();
  });
});
