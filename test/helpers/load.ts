import { expect } from 'vitest';
import type { SandboxInfo } from './cli.js';
import { getToken, http, postEvent, postWebhook } from './http.js';
import { startReceiver, type Receiver } from './receiver.js';

// The sandbox under load, whether it runs as a process (a file limit of its own, kill -9) or in the test's process:
// receivers that answer slowly or never, events in bursts, and the log read back through the interface.

/** A sandbox as the load tests use it: a process (startSandboxProcess) or in-process (startSandboxInProcess). */
export interface LoadedSandbox {
  info: SandboxInfo;
  stderr(): string;
}

/** A receiver on one host:port: /slow answers 200 after `slowMs`, /hang never answers, anything else at once. */
export function startLoadReceiver(slowMs: number): Promise<Receiver> {
  return startReceiver((request) => (request.path === '/hang' ? 'hold' : request.path === '/slow' ? { status: 200, delayMs: slowMs } : 200));
}

/** A webhook of the sandbox's to `url` for `events`: its id. */
export const webhook = async (sandbox: LoadedSandbox, token: string, url: string, events: string[]) =>
  (await postWebhook(sandbox.info.base_url, token, url, events)).id;

/** `count` events of `type`, in bursts of 50 at a time: the events are acknowledged once recorded, the sends go on behind. */
export async function triggerMany(sandbox: LoadedSandbox, type: string, count: number): Promise<void> {
  for (let sent = 0; sent < count; sent += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - sent) }, () => postEvent(sandbox.info.base_url, type)));
  }
}

/** Every attempt of a webhook's log, through the interface (all pages). */
export async function attempts(sandbox: LoadedSandbox, token: string, id: string): Promise<Array<{ delivery_id: string; status: string }>> {
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
export async function statuses(sandbox: LoadedSandbox, token: string, id: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const attempt of await attempts(sandbox, token, id)) counts[attempt.status] = (counts[attempt.status] ?? 0) + 1;
  return counts;
}

/**
 * Many webhooks (`webhooks`) on three receivers answering in 200 ms, on the sandbox `start` gives (with `--quiet
 * --max-attempts 1` and `extraArgs`), and `events` events to all of them at once. Resolves with the sandbox's stderr once
 * every delivery is recorded, all of them delivered. The receivers are closed by `cleanups`; `start` sees to the sandbox's stop.
 */
export async function manyWebhooksDelivered(
  start: (args: string[]) => Promise<LoadedSandbox>,
  cleanups: Array<() => unknown>,
  extraArgs: string[],
  { webhooks, events }: { webhooks: number; events: number },
): Promise<string> {
  const receivers = await Promise.all(Array.from({ length: 3 }, () => startLoadReceiver(200)));
  cleanups.push(() => Promise.all(receivers.map((r) => r.close())));
  const sandbox = await start(['--quiet', '--max-attempts', '1', ...extraArgs]);
  const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
  const ids: string[] = [];
  for (let i = 0; i < webhooks; i += 30) {
    ids.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(30, webhooks - i) }, (_, n) => webhook(sandbox, token, `${receivers[(i + n) % 3]!.url}/slow`, ['invoice.paid'])),
      )),
    );
  }
  await triggerMany(sandbox, 'invoice.paid', events);
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
