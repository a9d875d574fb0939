import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandboxProcess, type SandboxProcess } from '../helpers/cli.js';
import { getToken, http, postEvent, postWebhook } from '../helpers/http.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** A receiver on one host:port: /slow answers 200 after `slowMs`, /hang never answers, anything else at once. */
function startLoadReceiver(slowMs: number): Promise<Receiver> {
  return startReceiver((request) => (request.path === '/hang' ? 'hold' : request.path === '/slow' ? { status: 200, delayMs: slowMs } : 200));
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const webhook = async (sandbox: SandboxProcess, token: string, url: string, events: string[]) =>
  (await postWebhook(sandbox.info.base_url, token, url, events)).id;

async function trigger(sandbox: SandboxProcess, type: string, count: number): Promise<void> {
  // In bursts of 50 at a time: the events are acknowledged once recorded, the sends go on behind.
  for (let sent = 0; sent < count; sent += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - sent) }, () => postEvent(sandbox.info.base_url, type)));
  }
}

/** Every attempt of a webhook's log, through the interface (all pages). */
async function attempts(sandbox: SandboxProcess, token: string, id: string): Promise<Array<{ delivery_id: string; status: string }>> {
  const all: Array<{ delivery_id: string; status: string }> = [];
  let cursor: string | null = null;
  do {
    const page = await http(sandbox.info.base_url, 'GET', `/v1/webhooks/${id}/deliveries?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      token,
    });
    all.push(...page.json.data);
    cursor = page.json.next_cursor;
  } while (cursor);
  return all;
}

/** Every attempt of a webhook's log, by status, through the interface (all pages). */
async function statuses(sandbox: SandboxProcess, token: string, id: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const attempt of await attempts(sandbox, token, id)) counts[attempt.status] = (counts[attempt.status] ?? 0) + 1;
  return counts;
}

/**
 * Many webhooks (300 by default) on three receivers answering in 200 ms, under a file limit (1,024 by default; undefined:
 * the machine's), and events to all of them at once (8: 2,400 deliveries). Resolves with the sandbox's stderr once every
 * one is recorded, all of them delivered.
 */
async function thousandsUnderAFileLimit(extraArgs: string[], { webhooks = 300, events = 8, fileLimit = 1024 as number | undefined } = {}): Promise<string> {
  const receivers = await Promise.all(Array.from({ length: 3 }, () => startLoadReceiver(200)));
  cleanups.push(() => Promise.all(receivers.map((r) => r.close())));
  const sandbox = await startSandboxProcess(['--quiet', '--max-attempts', '1', ...extraArgs], 30_000, {}, fileLimit);
  cleanups.push(() => sandbox.stop('SIGKILL'));
  const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
  const ids: string[] = [];
  for (let i = 0; i < webhooks; i += 30) {
    ids.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(30, webhooks - i) }, (_, n) => webhook(sandbox, token, `${receivers[(i + n) % 3]!.url}/slow`, ['invoice.paid'])),
      )),
    );
  }
  await trigger(sandbox, 'invoice.paid', events);
  const expected = events * ids.length;
  const answered = () => receivers.reduce((sum, r) => sum + (r.answered.get('/slow') ?? 0), 0);
  await expect.poll(answered, { message: `the receivers answering ${expected} deliveries`, timeout: 120_000, interval: 200 }).toBe(expected);
  const byStatus: Record<string, number> = {};
  await expect
    .poll(
      async () => {
        for (const key of Object.keys(byStatus)) delete byStatus[key];
        for (const id of ids)
          for (const [status, count] of Object.entries(await statuses(sandbox, token, id))) byStatus[status] = (byStatus[status] ?? 0) + count;
        return byStatus.pending ?? 0;
      },
      { message: 'every attempt recorded', timeout: 60_000, interval: 500 },
    )
    .toBe(0);
  expect(byStatus).toEqual({ delivered: expected });
  return sandbox.stderr();
}

describe('the log tells the truth under load', () => {
  it('a burst to a slow but working receiver: every delivery delivered, none recorded failed', async () => {
    const receiver = await startLoadReceiver(500);
    cleanups.push(() => receiver.close());
    // 1,200 sends answered in 500 ms each, 64 at a time, wait up to 9 s for a connection, longer than the 3 s timeout: it
    // must not count the wait. (3 s, not less: this test's own receiver, starved of CPU on a loaded machine, has been
    // seen answering a second late, a failure that is true.)
    const sandbox = await startSandboxProcess(['--quiet', '--max-attempts', '1', '--delivery-timeout-ms', '3000']);
    cleanups.push(() => sandbox.stop('SIGKILL'));
    const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
    const id = await webhook(sandbox, token, `${receiver.url}/slow`, ['invoice.paid']);
    const events = 1200;
    await trigger(sandbox, 'invoice.paid', events);
    await expect
      .poll(async () => (receiver.answered.get('/slow') ?? 0) >= events, {
        message: `the receiver answering ${events} deliveries`,
        timeout: 120_000,
        interval: 200,
      })
      .toBe(true);
    await expect
      .poll(async () => ((await statuses(sandbox, token, id)).pending ?? 0) === 0, { message: 'every attempt recorded', timeout: 120_000, interval: 200 })
      .toBe(true);
    expect(await statuses(sandbox, token, id)).toEqual({ delivered: events });
  });

  it('300 webhooks under a file limit of 1,024, receivers answering in 200 ms: every delivery arrives, none recorded failed', async () => {
    const stderr = await thousandsUnderAFileLimit([]);
    // Within the budget (a quarter of the file limit, shared: connections.ts): 64 to each webhook on its own would have
    // been 19,200 connections; the test below shows what a budget past the limit does.
    expect(stderr).not.toMatch(/EMFILE|could not start/);
  }, 180_000);

  it("1,000 webhooks at the machine's own file limit: every delivery arrives, none recorded failed", async () => {
    const stderr = await thousandsUnderAFileLimit([], { webhooks: 1_000, events: 3, fileLimit: undefined });
    expect(stderr).not.toMatch(/EMFILE|could not start/);
  }, 180_000);

  it('the same with no budget to speak of (--max-connections 60000): the sandbox runs out of descriptors, says so once, and still records no send failed', async () => {
    const stderr = await thousandsUnderAFileLimit(['--max-connections', '60000']);
    expect(stderr.match(/whsvc sandbox: a send could not start: too many open files \(EMFILE\)/g)).toHaveLength(1);
  }, 180_000);

  it("a retry goes at its time while another webhook's send hangs", async () => {
    const receiver = await startReceiver((request) =>
      request.path === '/hang' ? 'hold' : request.path === '/flaky' && receiver.received.filter((r) => r.path === '/flaky').length === 1 ? 500 : 200,
    );
    cleanups.push(() => receiver.close());
    const sandbox = await startSandboxProcess(['--quiet', '--retry-base-ms', '300', '--max-attempts', '3', '--delivery-timeout-ms', '60000']);
    cleanups.push(() => sandbox.stop('SIGKILL'));
    const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
    await webhook(sandbox, token, `${receiver.url}/hang`, ['invoice.paid']);
    const flaky = await webhook(sandbox, token, `${receiver.url}/flaky`, ['invoice.paid']);
    await trigger(sandbox, 'invoice.paid', 1);
    // The hanging send holds its connection for the whole minute of its timeout; the retry is due 300 ms after the failure.
    await expect.poll(() => receiver.answered.get('/flaky') ?? 0, { message: 'the retry of the flaky webhook', timeout: 20_000, interval: 100 }).toBe(2);
    // The receiver has written its answer; the sandbox records it once it has read it.
    await expect
      .poll(async () => ((await statuses(sandbox, token, flaky)).pending ?? 0) === 0, { message: 'the retry recorded', timeout: 20_000, interval: 100 })
      .toBe(true);
    expect(await statuses(sandbox, token, flaky)).toEqual({ failed: 1, delivered: 1 });
    expect(receiver.held()).toBe(1);
  });

  it('an endpoint that hangs cannot starve another on the same host', async () => {
    const receiver = await startLoadReceiver(0);
    cleanups.push(() => receiver.close());
    // The hanging sends hold whatever connections they get for the whole minute of the timeout.
    const sandbox = await startSandboxProcess(['--quiet', '--max-attempts', '1', '--delivery-timeout-ms', '60000']);
    cleanups.push(() => sandbox.stop('SIGKILL'));
    const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
    const hanging = await webhook(sandbox, token, `${receiver.url}/hang`, ['product.updated']);
    const good = await webhook(sandbox, token, `${receiver.url}/good`, ['invoice.paid']);
    // More hanging sends than a shared pool of 256 connections holds, then the good ones behind them:
    // they are delivered long before any hanging send could end, or never within the bound.
    await trigger(sandbox, 'product.updated', 400);
    await trigger(sandbox, 'invoice.paid', 50);
    await expect
      .poll(async () => (await statuses(sandbox, token, good)).delivered === 50, {
        message: 'the good webhook getting its 50 deliveries while the other hangs',
        timeout: 30_000,
        interval: 200,
      })
      .toBe(true);
    expect(await statuses(sandbox, token, good)).toEqual({ delivered: 50 });
    expect(await statuses(sandbox, token, hanging)).toEqual({ pending: 400 });
  });

  it('a sandbox kept in memory keeps its newest deliveries, drops the oldest, and says so once', async () => {
    const receiver = await startLoadReceiver(0);
    cleanups.push(() => receiver.close());
    const sandbox = await startSandboxProcess(['--quiet', '--max-attempts', '1', '--max-deliveries', '25']);
    cleanups.push(() => sandbox.stop('SIGKILL'));
    const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
    const id = await webhook(sandbox, token, `${receiver.url}/good`, ['invoice.paid']);
    await trigger(sandbox, 'invoice.paid', 100);
    await expect
      .poll(async () => (receiver.answered.get('/good') ?? 0) >= 100, { message: 'the receiver answering 100 deliveries', timeout: 120_000, interval: 200 })
      .toBe(true);
    await expect
      .poll(async () => ((await statuses(sandbox, token, id)).pending ?? 0) === 0, { message: 'every attempt recorded', timeout: 120_000, interval: 200 })
      .toBe(true);
    expect(await statuses(sandbox, token, id)).toEqual({ delivered: 25 });
    expect(sandbox.stderr().match(/the oldest are dropped/g)).toHaveLength(1);
  });

  it('--data-dir, killed (-9) in the middle of a steady stream: every acknowledged event is there after a restart, and the store is whole', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'whsvc-kill-stream-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const receiver = await startLoadReceiver(0);
    cleanups.push(() => receiver.close());
    const args = ['--quiet', '--max-attempts', '1', '--data-dir', dataDir];
    const first = await startSandboxProcess(args);
    cleanups.push(() => first.stop('SIGKILL'));
    const token = await getToken(first.info.base_url, first.info.client_id, first.info.client_secret);
    const id = await webhook(first, token, `${receiver.url}/good`, ['invoice.paid']);

    // 20 triggers in flight until the kill; an event whose 202 came is acknowledged, one cut off by the kill is not.
    const acknowledged: string[] = [];
    let streaming = true;
    const streams = Array.from({ length: 20 }, async () => {
      while (streaming) {
        const answer = await http(first.info.base_url, 'POST', '/_sandbox/events', { body: { type: 'invoice.paid' } }).catch(() => undefined);
        if (answer?.status === 202) acknowledged.push(...(answer.json.deliveries as string[]));
      }
    });
    // About 10,000 pages of log (7 or so a delivery): long enough for SQLite to have checkpointed it many times meanwhile.
    await expect.poll(() => acknowledged.length, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(1_500);
    expect(await first.stop('SIGKILL')).toBe(null);
    streaming = false;
    await Promise.all(streams);

    const second = await startSandboxProcess(args);
    cleanups.push(() => second.stop('SIGKILL'));
    const again = await getToken(second.info.base_url, second.info.client_id, second.info.client_secret);
    const kept = new Set((await attempts(second, again, id)).map((attempt) => attempt.delivery_id));
    const lost = acknowledged.filter((deliveryId) => !kept.has(deliveryId));
    expect(lost, `${lost.length} of ${acknowledged.length} acknowledged events lost`).toEqual([]);
    expect(await second.stop('SIGTERM')).toBe(0);

    const db = new DatabaseSync(join(dataDir, 'sandbox.db'));
    try {
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      db.close();
    }
  }, 120_000);
});
