import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandboxProcess } from '../helpers/cli.js';
import { getToken, http } from '../helpers/http.js';
import { attempts, manyWebhooksDelivered, startLoadReceiver, webhook } from '../helpers/load.js';

// The sandbox under load as only a process shows it: under a file limit of its own (ulimit -n), and killed -9 in the
// middle of a stream. The rest of the load tests run it in-process (test/load/sandbox-load.test.ts).

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `startSandboxProcess` under a file limit of 1,024, killed (-9) after the test. */
async function underAFileLimit(args: string[]) {
  const sandbox = await startSandboxProcess(args, 30_000, {}, 1024);
  cleanups.push(() => sandbox.stop('SIGKILL'));
  return sandbox;
}

describe('the log tells the truth under load', () => {
  it('300 webhooks under a file limit of 1,024, receivers answering in 200 ms: every delivery arrives, none recorded failed; with no budget to speak of (--max-connections 60000) the sandbox runs out of descriptors, says so once, and still records no send failed', async () => {
    // Within the budget (a quarter of the file limit, shared: connections.ts): 64 to each webhook on its own would have
    // been 19,200 connections.
    const within = await manyWebhooksDelivered(underAFileLimit, cleanups, [], { webhooks: 300, events: 8 });
    expect(within).not.toMatch(/EMFILE|could not start/);
    const past = await manyWebhooksDelivered(underAFileLimit, cleanups, ['--max-connections', '60000'], { webhooks: 300, events: 8 });
    expect(past.match(/whsvc sandbox: a send could not start: too many open files \(EMFILE\)/g)).toHaveLength(1);
  }, 360_000);

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
