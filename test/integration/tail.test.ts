import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortId } from '../../src/render/width.js';
import { createWebhook, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, startTailInProcess, type RunningInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { signatureOf } from '../helpers/delivery.js';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.js';

let sandbox: SandboxInProcess;
let workDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet', '--retry-base-ms', '100', '--max-attempts', '3']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const apiEnv = () => sandboxEnv(sandbox.info, join(workDir, 'config'));
const cli = inProcessCliWith(apiEnv);

interface LogItem {
  id: string;
  delivery_id: string;
  status: string;
  attempts: number;
}

async function logOf(webhookId: string): Promise<LogItem[]> {
  const result = await cli(['deliveries', 'list', webhookId, '--all', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { data: LogItem[] }).data;
}

/** Resolves once the tail has printed `count` deliveries delivered on their second attempt. */
const deliveredOnRetry = (tail: RunningInProcess, count: number) =>
  tail.until(
    () => new Set(tail.lines().flatMap((l) => (l.attempt === 2 && l.status === 'delivered' ? [l.delivery_id] : []))).size >= count,
    `${count} deliveries delivered on their second attempt`,
  );

/**
 * Answers the attempts `endpoint` holds, the (from+1)th to the (to)th to come, each once the tail has printed it pending
 * (so that every attempt is seen under way): a first attempt 500, a retry 200.
 */
async function answerOnceSeenPending(endpoint: Receiver, tail: RunningInProcess, from: number, to: number): Promise<void> {
  for (let n = from; n < to; n += 1) {
    const request = (await endpoint.waitFor(n + 1, 40_000))[n]!;
    const id = request.headers['x-service-attempt-id'];
    await tail.until(() => tail.lines().some((l) => l.attempt_id === id && l.status === 'pending'), `attempt ${id} printed pending`);
    endpoint.release(request.headers['x-service-attempt'] === '1' ? 500 : 200, (held) => held === request);
  }
}

describe('whsvc deliveries tail', () => {
  it('--json: each attempt once, then each change of its status once, in order (a first attempt failed, its retry delivered)', async () => {
    // Each attempt is held until the tail has seen it pending; the first attempt of each delivery fails.
    const endpoint = await startReceiver(() => 'hold');
    const webhook = await createWebhook(cli, `${endpoint.url}/hook`);
    const tail = await startTailInProcess(['--webhook', webhook.id, '--json', '--interval', '200ms'], { env: apiEnv() });
    await trigger(cli, 'invoice.paid', { times: 2 });
    await answerOnceSeenPending(endpoint, tail, 0, 4);
    await deliveredOnRetry(tail, 2);
    // The marker: a third delivery, after the first two settled, followed to its end. The tail polls on meanwhile; what it
    // printed before the marker's last line is all there is, and nothing of the first two may have come twice.
    await trigger(cli);
    await answerOnceSeenPending(endpoint, tail, 4, 6);
    await deliveredOnRetry(tail, 3);
    expect(await tail.stop('SIGINT')).toBe(0);
    // The other tests' events reach this webhook too: closed, its endpoint holds none of them.
    await endpoint.close();

    const lines = tail.lines();
    const log = await logOf(webhook.id);
    expect(log).toHaveLength(6);
    // Each attempt of the log came exactly once as new, and nothing else did.
    const news = lines.filter((l) => l.change === 'new');
    expect(news.map((l) => l.attempt_id).sort()).toEqual(log.map((a) => a.id).sort());
    for (const line of lines) {
      expect(Object.keys(line)).toEqual([
        'change',
        'time',
        'webhook_id',
        'event',
        'status',
        'previous_status',
        'response_code',
        'attempt',
        'attempt_id',
        'delivery_id',
        'created_at',
      ]);
      expect(line).toMatchObject({ webhook_id: webhook.id, event: 'invoice.paid' });
    }
    for (const attempt of log) {
      const own = lines.filter((l) => l.attempt_id === attempt.id);
      // Its statuses as printed: each a change of the one before, ending where the log ends.
      const statuses = own.map((l) => l.status);
      own.slice(1).forEach((l, i) => {
        expect(l.change).toBe('status');
        expect(l.previous_status).toBe(statuses[i]);
        expect(l.status).not.toBe(statuses[i]);
      });
      expect(statuses.at(-1)).toBe(attempt.status);
      expect(own[0]!.delivery_id).toBe(attempt.delivery_id);
    }
    // Per delivery: attempt 1, to its failure, before anything of attempt 2.
    for (const delivery of new Set(log.map((a) => a.delivery_id))) {
      const own = lines.filter((l) => l.delivery_id === delivery).map((l) => [l.attempt, l.status]);
      const firstOfSecond = own.findIndex(([attempt]) => attempt === 2);
      expect(own.slice(0, firstOfSecond).at(-1)).toEqual([1, 'failed']);
      expect(own.slice(firstOfSecond).every(([attempt]) => attempt === 2)).toBe(true);
      expect(own.at(-1)).toEqual([2, 'delivered']);
    }
    // Attempts held until the tail printed them pending: each one's answer is a change of status from pending.
    expect(lines.filter((l) => l.change === 'status' && l.previous_status === 'pending')).toHaveLength(6);
  });

  it('--forward-to with --checkpoint, stopped and started again while events keep coming: each delivery reaches the app once, signed so that it verifies', async () => {
    // The webhook's own endpoint fails each first attempt: every delivery is retried, and a retry is not forwarded again.
    const endpoint = await startReceiver((request) => (request.headers['x-service-attempt'] === '1' ? 500 : 200));
    const webhook = await createWebhook(cli, `${endpoint.url}/public`);
    const verified = (request: Received) => request.headers['x-service-signature'] === signatureOf(webhook.signing_secret, request.body);
    // The local app: takes what verifies, refuses the rest.
    const app = await startReceiver((request) => (verified(request) ? 200 : 400));
    const secretFile = join(workDir, 'whsec.txt');
    writeFileSync(secretFile, webhook.signing_secret);
    const checkpoint = join(workDir, 'tail-checkpoint.json');
    const args = [
      '--webhook',
      webhook.id,
      '--forward-to',
      `${app.url}/local`,
      '--secret-file',
      secretFile,
      '--checkpoint',
      checkpoint,
      '--interval',
      '200ms',
      '--json',
    ];
    /** Resolves once `count` deliveries have reached the endpoint a second time (each first attempt fails). */
    const retried = (count: number) => endpoint.waitFor(count, 40_000, (request) => request.headers['x-service-attempt'] === '2');

    const first = await startTailInProcess(args, { env: apiEnv() });
    expect(first.stderr()).toContain(`no checkpoint at ${checkpoint} yet`);
    await trigger(cli, 'invoice.paid', { times: 3 });
    await app.waitFor(3, 40_000);
    await retried(3);
    expect(await first.stop('SIGINT')).toBe(0);
    expect(existsSync(checkpoint)).toBe(true);

    // While it is stopped.
    await trigger(cli, 'invoice.paid', { times: 3 });
    await retried(6);
    expect(app.received).toHaveLength(3);

    const second = await startTailInProcess(args, { env: apiEnv() });
    expect(second.stderr()).toContain(`catching up from the checkpoint ${checkpoint}`);
    await app.waitFor(6, 40_000);
    await trigger(cli, 'invoice.paid', { times: 2 });
    await app.waitFor(8, 40_000);
    await retried(8);
    // The marker: one more delivery, made after every retry above was in the log. Once it is forwarded the tail has read
    // the log past all of them, and forwarded none (they would have come before it); it is retried too, as the others.
    await trigger(cli);
    await app.waitFor(9, 40_000);
    await retried(9);
    expect(await second.stop('SIGINT')).toBe(0);

    const log = await logOf(webhook.id);
    expect(log).toHaveLength(18);
    // The deliveries, oldest first, as the log has them.
    const deliveries = log
      .filter((a) => a.attempts === 1)
      .map((a) => a.id)
      .reverse();
    const forwardedIds = app.received.map((r) => String(r.headers['x-service-delivery-id']));
    expect(forwardedIds).toEqual(deliveries);
    for (const request of app.received) {
      expect(verified(request)).toBe(true);
      expect(request.headers).toMatchObject({ 'content-type': 'application/json', 'x-service-event': 'invoice.paid', 'x-service-attempt': '1' });
      expect(request.headers['x-service-attempt-id']).toBe(request.headers['x-service-delivery-id']);
      expect(JSON.parse(request.body)).toMatchObject({ event: 'invoice.paid' });
    }
    const forwardLines = [...first.lines(), ...second.lines()].filter((l) => l.change === 'forwarded');
    expect(forwardLines.map((l) => l.delivery_id)).toEqual(deliveries);
    expect(forwardLines.every((l) => l.app_status === 200 && l.signature_check === 'verified')).toBe(true);
    expect(JSON.parse(readFileSync(checkpoint, 'utf8')).forwarded).toEqual(deliveries);
  });

  it('on a terminal at 132, 80 and 60 columns (no -i): each line names its webhook (whole at 132, short at 80, not at 60), as deliveries list across webhooks does (issue 44)', async () => {
    const endpoint = await startReceiver();
    try {
      // Two webhooks of one event type no other test triggers: one event, a delivery to each.
      const webhooks = [await createWebhook(cli, `${endpoint.url}/one`, 'product.updated'), await createWebhook(cli, `${endpoint.url}/two`, 'product.updated')];
      await trigger(cli, 'product.updated');
      await endpoint.waitFor(2);
      const follow = ['deliveries', 'tail', ...webhooks.flatMap((w) => ['--webhook', w.id]), '--since', '1h', '--status', 'delivered', '--count', '2'];
      const at = (columns: number) => inProcessCliWith(apiEnv, { terminal: { columns } });
      const tailed = await at(80)(follow);
      expect(tailed.code, tailed.stderr).toBe(0);
      const lines = tailed.stdout.trimEnd().split('\n');
      expect(lines, tailed.stdout).toHaveLength(2);
      for (const line of lines) expect(line.length, tailed.stdout).toBeLessThanOrEqual(80);
      const shown = webhooks.map((w) => shortId(w.id));
      expect(lines.map((line) => / (wh_\S+) /.exec(line)?.[1]).sort(), tailed.stdout).toEqual([...shown].sort());
      // The same short form as deliveries list's WEBHOOK column across webhooks at 80.
      const listed = await at(80)(['deliveries', 'list', '--event', 'product.updated']);
      expect(listed.stdout.split('\n')[0], listed.stdout).toMatch(/^DELIVERY +WEBHOOK /);
      for (const id of shown) expect(listed.stdout).toContain(` ${id} `);
      // At 132 the webhook whole in both, where the declared widths leave room for it (issue 44).
      const wide = await at(132)(follow);
      for (const w of webhooks) expect(wide.stdout, wide.stdout).toContain(`  ${w.id}  `);
      const listedWide = await at(132)(['deliveries', 'list', '--event', 'product.updated']);
      for (const w of webhooks) expect(listedWide.stdout, listedWide.stdout).toContain(`  ${w.id}  `);
      // At 60 the status's words stay whole (one state, one wording at every width); the webhook goes, in both.
      const narrow = await at(60)(follow);
      for (const line of narrow.stdout.trimEnd().split('\n')) expect(line, narrow.stdout).toMatch(/^\d\d:\d\d {2}delivered +200 +dlv_\S+ #1$/);
      const listedNarrow = await at(60)(['deliveries', 'list', '--event', 'product.updated']);
      expect(listedNarrow.stdout.split('\n')[0], listedNarrow.stdout).toMatch(/^DELIVERY +STATUS +CODE$/);
    } finally {
      await endpoint.close();
    }
  });

  it('--count with --timeout: exit 6 when the count is not reached in time, with one line saying so', async () => {
    const endpoint = await startReceiver();
    const webhook = await createWebhook(cli, `${endpoint.url}/quiet`);
    const result = await cli(['deliveries', 'tail', '--webhook', webhook.id, '--status', 'delivered', '--count', '1', '--timeout', '1', '--interval', '200ms']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('whsvc: 0 of 1 line within 1 s');
    expect(result.stdout).toBe('');
  });
});

describe('whsvc deliveries tail against a rate-limited service', () => {
  it('polls faster than the service allows: waits as each 429 asks, and still prints each attempt once', async () => {
    const limited = await startSandboxInProcess(['--quiet', '--rate-limit', '2']);
    try {
      const writerEnv = sandboxEnv(limited.info, join(workDir, 'config-limited'));
      const writer = inProcessCliWith(writerEnv);
      const endpoint = await startReceiver();
      const webhook = await createWebhook(writer, `${endpoint.url}/limited`);
      // Its own client (the read-only one: all tail needs), polled 5 times a second against a limit of 2.
      const tail = await startTailInProcess(['--webhook', webhook.id, '--json', '--interval', '200ms'], {
        env: { ...writerEnv, WHSVC_CLIENT_ID: limited.info.readonly_client_id, WHSVC_CLIENT_SECRET: limited.info.readonly_client_secret },
      });
      const delivered = (count: number) =>
        tail.until(() => tail.lines().filter((l) => l.status === 'delivered').length >= count, `${count} attempts delivered`);
      await trigger(writer, 'invoice.paid', { times: 3 });
      await delivered(3);
      await tail.until(() => tail.stderr().includes('answered 429'), 'a 429');
      // The marker: one more event, printed after the three and the waits the 429s asked for; what came before it is all there is.
      await trigger(writer);
      await delivered(4);
      expect(await tail.stop('SIGINT')).toBe(0);
      const news = tail.lines().filter((l) => l.change === 'new');
      expect(news).toHaveLength(4);
      expect(new Set(news.map((l) => l.attempt_id)).size).toBe(4);
      const stderr = tail.stderr();
      expect(stderr).toMatch(/the service answered 429; retrying in \d+ s as it asks \(Retry-After\)/);
      expect(stderr).not.toMatch(/unexpected|\n\s+at /);
    } finally {
      await limited.stop();
    }
  });
});
