import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualSandboxClock } from '../../src/sandbox/clock.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { http, getToken, postEvent, postWebhook } from '../helpers/http.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A receiver that answers 500 at once to the first request, and holds every later one until released (with a 500). */
async function gatedReceiver(): Promise<Receiver> {
  const receiver = await startReceiver(() => (receiver.received.length === 1 ? 500 : 'hold'));
  cleanups.push(async () => {
    receiver.release(500);
    await receiver.close();
  });
  return receiver;
}

async function manualSandbox(): Promise<{ sandbox: Sandbox; base: string; token: string }> {
  const sandbox = createSandbox({ clock: new ManualSandboxClock(T0), policy: { retryBaseMs: 1000, maxAttempts: 3, timeoutMs: 60_000 } });
  const base = await sandbox.listen(0, '127.0.0.1');
  cleanups.push(() => sandbox.close());
  const token = await getToken(base, sandbox.clients[0]!.client_id, sandbox.clients[0]!.client_secret);
  return { sandbox, base, token };
}

describe('two clock jumps at once', () => {
  it.each([
    ['advance_ms', { advance_ms: HOUR }, T0 + 2 * DAY + HOUR],
    ['to, checked against where the first ended', { to: new Date(T0 + 2 * DAY + HOUR).toISOString() }, T0 + 2 * DAY + HOUR],
  ])('the second (%s) waits for the first and goes on from where it ended: no time is lost', async (_name, second, end) => {
    const { sandbox, base, token } = await manualSandbox();
    const receiver = await gatedReceiver();
    const call = (method: string, path: string, body?: Record<string, unknown>) => http(base, method, path, { token, ...(body ? { body } : {}) });
    await postWebhook(base, token, `${receiver.url}/hook`);
    await postEvent(base);
    // The first attempt failed at once: its retry is due in a second of sandbox time.
    await vi.waitFor(() => expect(sandbox.deliveries.earliestDue()).toBe(T0 + 1000));

    const advance = vi.spyOn(sandbox.deliverer, 'advance');
    const first = call('POST', '/_sandbox/clock', { advance_ms: 2 * DAY });
    // The first jump is under way: its retry is at the receiver, held there.
    await vi.waitFor(() => expect(receiver.held()).toBe(1), { timeout: 20_000 });
    const secondMove = call('POST', '/_sandbox/clock', second);
    // The second has been asked for (its handler has called the deliverer) while the first still runs.
    await vi.waitFor(() => expect(advance).toHaveBeenCalledTimes(2), { timeout: 20_000 });
    receiver.release(500);
    const released = setInterval(() => receiver.release(500), 20);
    try {
      const [one, two] = await Promise.all([first, secondMove]);
      expect(one.status, one.text).toBe(200);
      expect(two.status, two.text).toBe(200);
      expect(one.json.now).toBe(new Date(T0 + 2 * DAY).toISOString());
      expect(two.json.from).toBe(new Date(T0 + 2 * DAY).toISOString());
      expect(two.json.now).toBe(new Date(end).toISOString());
      // The jump outlived the token: a new one reads the clock.
      const fresh = await getToken(base, sandbox.clients[0]!.client_id, sandbox.clients[0]!.client_secret);
      const shown = await http(base, 'GET', '/_sandbox/clock', { token: fresh });
      expect(shown.json?.now, shown.text).toBe(new Date(end).toISOString());
    } finally {
      clearInterval(released);
    }
  });
});

describe('a manual clock with --data-dir', () => {
  it('starts again where it stood, even when the wall clock has gone past it meanwhile', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'whsvc-clock-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const first = createSandbox({ clock: new ManualSandboxClock(T0), dataDir });
    const firstBase = await first.listen(0, '127.0.0.1');
    const token = await getToken(firstBase, first.clients[0]!.client_id, first.clients[0]!.client_secret);
    const moved = await http(firstBase, 'POST', '/_sandbox/clock', { token, body: { advance_ms: 5_000 } });
    expect(moved.json?.now, moved.text).toBe(new Date(T0 + 5_000).toISOString());
    await first.close();

    // The next start comes an hour later by the wall clock: its clock stands where the first one's stopped.
    const second = createSandbox({ clock: new ManualSandboxClock(T0 + HOUR), dataDir });
    cleanups.push(() => second.close());
    expect(second.deliverer.now()).toBe(T0 + 5_000);
  });
});
