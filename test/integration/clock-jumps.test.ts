import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualSandboxClock } from '../../src/sandbox/clock.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { http, getToken, postEvent, postWebhook } from '../helpers/http.js';
import { startInProcess } from '../helpers/in-process.js';
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

async function manualSandbox(options: { rateLimit?: number; rateLimitNow?: () => number } = {}): Promise<{ sandbox: Sandbox; base: string; token: string }> {
  const sandbox = createSandbox({ clock: new ManualSandboxClock(T0), policy: { retryBaseMs: 1000, maxAttempts: 3, timeoutMs: 60_000 }, ...options });
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

describe('a jump over receivers whose names take long to resolve', () => {
  /**
   * The sandbox's resolver, injected: it fails at once (as .invalid does) until `slow`, then holds each lookup until the
   * test fails it, as a resolver that times out would. `held(n)` resolves once n lookups wait at once.
   */
  function slowResolver() {
    const waiting: Array<() => void> = [];
    const watchers: Array<{ count: number; resolve: () => void }> = [];
    const resolver = {
      slow: false,
      lookup(hostname: string, _options: unknown, callback: (error: Error) => void) {
        const fail = () => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }));
        if (!resolver.slow) return fail();
        waiting.push(fail);
        for (const watcher of watchers) if (waiting.length >= watcher.count) watcher.resolve();
      },
      held: (count: number) => new Promise<void>((resolve) => (waiting.length >= count ? resolve() : watchers.splice(0, watchers.length, { count, resolve }))),
      failHeld: () => {
        for (const fail of waiting.splice(0)) fail();
      },
    };
    return resolver;
  }

  it('sends the attempts due at one time together, and a terminal sees how far the jump has gone', async () => {
    const resolver = slowResolver();
    const sandbox = createSandbox({
      clock: new ManualSandboxClock(T0),
      dispatcher: new Agent({ connect: { lookup: resolver.lookup as never } }),
      policy: { retryBaseMs: 1000, maxAttempts: 3, timeoutMs: 60_000 },
    });
    const base = await sandbox.listen(0, '127.0.0.1');
    cleanups.push(() => sandbox.close());
    // A test that fails with lookups held lets them go before the sandbox stops (it waits for its sends).
    cleanups.push(async () => {
      resolver.slow = false;
      resolver.failHeld();
    });
    const client = sandbox.clients[0]!;
    const token = await getToken(base, client.client_id, client.client_secret);
    for (const host of ['a', 'b']) await postWebhook(base, token, `https://${host}.nonexistent.invalid/hook`);
    await postEvent(base);
    // Both first attempts failed at once (the name did not resolve): their retries are due in a second.
    await vi.waitFor(() => expect(sandbox.deliveries.countDue(T0 + 1000)).toBe(2));
    resolver.slow = true;

    const configDir = mkdtempSync(join(tmpdir(), 'whsvc-jump-'));
    cleanups.push(async () => rmSync(configDir, { recursive: true, force: true }));
    const env = { WHSVC_BASE_URL: base, WHSVC_CLIENT_ID: client.client_id, WHSVC_CLIENT_SECRET: client.client_secret, WHSVC_CONFIG_DIR: configDir };
    const advance = startInProcess(['sandbox', 'clock', 'advance', '1h'], { env, terminal: { columns: 120 } });
    // Both retries due at T0 + 1 s wait on the resolver at once: not one time-out after the other.
    await resolver.held(2);
    await advance.until(() => advance.stderr().includes('1 s of 1 h · 0 sent · 2 under way · 0 due'), 'the first step under way');
    resolver.failHeld();
    await resolver.held(2);
    await advance.until(() => advance.stderr().includes('3 s of 1 h · 2 sent · 2 under way · 0 due'), 'the second step under way');
    resolver.failHeld();
    expect(await advance.exit, advance.stderr()).toBe(0);
    expect(advance.stdout()).toMatch(/4 attempts sent, 0 delivered, 4\s+failed/);
    // The progress line is wiped at the end: the terminal keeps only the result.
    expect(advance.stderr().endsWith('\r\u001b[2K')).toBe(true);
  });
});

describe('a jump against a sandbox with --rate-limit 1', () => {
  it("counts the API (/v1) only: the sandbox's own clock is asked as often as wanted", async () => {
    // Every request in one second of the rate limit's clock.
    const { base, token } = await manualSandbox({ rateLimit: 1, rateLimitNow: () => T0 });
    for (let i = 0; i < 3; i++) expect((await http(base, 'GET', '/_sandbox/clock', { token })).status).toBe(200);
    expect((await http(base, 'GET', '/v1/webhooks', { token })).status).toBe(200);
    expect((await http(base, 'GET', '/v1/webhooks', { token })).status).toBe(429);
  });

  it.each([60, 80])('on a terminal %i columns wide: its progress line whole, without a note of a 429 or a spinner, and its result', async (columns) => {
    const { sandbox, base } = await manualSandbox({ rateLimit: 1 });
    const client = sandbox.clients[0]!;
    const token = await getToken(base, client.client_id, client.client_secret);
    const receiver = await gatedReceiver();
    await postWebhook(base, token, `${receiver.url}/hook`);
    await postEvent(base);
    // The first attempt failed at once: its retry is due in a second of sandbox time, and the jump holds there.
    await vi.waitFor(() => expect(sandbox.deliveries.earliestDue()).toBe(T0 + 1000));
    const configDir = mkdtempSync(join(tmpdir(), 'whsvc-jump-'));
    cleanups.push(async () => rmSync(configDir, { recursive: true, force: true }));
    const env = { WHSVC_BASE_URL: base, WHSVC_CLIENT_ID: client.client_id, WHSVC_CLIENT_SECRET: client.client_secret, WHSVC_CONFIG_DIR: configDir };
    const advance = startInProcess(['sandbox', 'clock', 'advance', '1h'], { env, terminal: { columns } });
    // Drawn whole, at the start of its line: nothing of it cut.
    await advance.until(() => advance.stderr().includes('\r\u001b[2K1 s of 1 h · 0 sent · 1 under way · 0 due'), 'the progress line');
    // A second question is answered too (the line redrawn), before the jump may end.
    const drawn = advance.stderr().length;
    await advance.until(() => advance.stderr().length > drawn, 'the progress line redrawn');
    const released = setInterval(() => receiver.release(500), 20);
    try {
      expect(await advance.exit, advance.stderr()).toBe(0);
    } finally {
      clearInterval(released);
    }
    expect(advance.stdout()).toMatch(/^Moved the sandbox's clock from .*:\s+2\s+attempts\s+sent,\s+0\s+delivered,\s+2\s+failed\n/s);
    expect(advance.stderr()).not.toMatch(/429|Retry-After|waiting for|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(advance.stderr().endsWith('\r\u001b[2K')).toBe(true);
  });
});
