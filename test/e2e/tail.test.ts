import { spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, runCli, sandboxEnv, startSandboxProcess, startWhsvcUntil, type Running, type SandboxProcess } from '../helpers/cli.js';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.js';

let sandbox: SandboxProcess;
let workDir: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet', '--retry-base-ms', '300', '--max-attempts', '3']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
});

afterAll(async () => {
  await Promise.all(receivers.map((started) => started.close()));
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const apiEnv = () => sandboxEnv(sandbox.info, join(workDir, 'config'));

/** A receiver on 127.0.0.1 (the tests' one) that answers each request as `answer` says, after `delayMs`. */
async function receiver(answer: (request: Received) => number, delayMs = 0): Promise<Receiver> {
  const started = await startReceiver(answer);
  started.answerDelayMs = delayMs;
  receivers.push(started);
  return started;
}

type Tail = Running;

/** Starts `whsvc deliveries tail …` and waits until it follows (its "following" line). */
function startTail(args: string[]): Promise<Tail> {
  return startWhsvcUntil(['deliveries', 'tail', ...args], /^whsvc: following /m, 'tail', apiEnv());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createWebhook(url: string): Promise<{ id: string; signing_secret: string }> {
  const created = await runCli(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--json'], { env: apiEnv() });
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as { id: string; signing_secret: string };
}

async function trigger(times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const result = await runCli(['sandbox', 'trigger', 'invoice.paid'], { env: apiEnv() });
    expect(result.code, result.stderr).toBe(0);
  }
}

interface LogItem {
  id: string;
  delivery_id: string;
  status: string;
  attempts: number;
}

async function logOf(webhookId: string): Promise<LogItem[]> {
  const result = await runCli(['deliveries', 'list', webhookId, '--all', '--json'], { env: apiEnv() });
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { data: LogItem[] }).data;
}

const ndjson = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);

describe('whsvc deliveries tail', () => {
  it('--json: each attempt once, then each change of its status once, in order (a first attempt failed, its retry delivered)', async () => {
    // Each answer takes a while, so that attempts are seen pending; the first attempt of each delivery fails.
    const endpoint = await receiver((request) => (request.headers['x-service-attempt'] === '1' ? 500 : 200), 1500);
    const webhook = await createWebhook(`${endpoint.url}/hook`);
    const tail = await startTail(['--webhook', webhook.id, '--json', '--interval', '200ms']);
    await trigger(2);
    const settled = () => {
      const lines = ndjson(tail.stdout());
      return lines.filter((l) => l.attempt === 2 && l.status === 'delivered').length === 2;
    };
    await expect.poll(settled, { message: 'both deliveries delivered on their second attempt, in the tail', timeout: 40_000, interval: 50 }).toBe(true);
    // A few more polls: nothing may come twice.
    await sleep(1_000);
    tail.child.kill('SIGINT');
    expect(await tail.exit).toBe(0);

    const lines = ndjson(tail.stdout());
    const log = await logOf(webhook.id);
    expect(log).toHaveLength(4);
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
    // Attempts answered after 1.5 s were seen under way: some line is a change of status.
    expect(lines.some((l) => l.change === 'status' && l.previous_status === 'pending')).toBe(true);
  });

  it('--forward-to with --checkpoint, stopped and started again while events keep coming: each delivery reaches the app once, signed so that it verifies', async () => {
    // The webhook's own endpoint fails each first attempt: every delivery is retried, and a retry is not forwarded again.
    const endpoint = await receiver((request) => (request.headers['x-service-attempt'] === '1' ? 500 : 200));
    const webhook = await createWebhook(`${endpoint.url}/public`);
    const verified = (request: Received) => {
      const given = String(request.headers['x-service-signature'] ?? '').replace(/^sha256=/, '');
      const expected = createHmac('sha256', webhook.signing_secret).update(request.body).digest();
      return given.length === 64 && timingSafeEqual(expected, Buffer.from(given, 'hex'));
    };
    // The local app: takes what verifies, refuses the rest.
    const app = await receiver((request) => (verified(request) ? 200 : 400));
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
    const deliveredTwice = async (count: number) => {
      await expect
        .poll(() => endpoint.received.filter((r) => r.headers['x-service-attempt'] === '2').length >= count, {
          message: `${count} deliveries retried and delivered`,
          timeout: 40_000,
          interval: 50,
        })
        .toBe(true);
    };

    const first = await startTail(args);
    expect(first.stderr()).toContain(`no checkpoint at ${checkpoint} yet`);
    await trigger(3);
    await expect.poll(() => app.received.length >= 3, { message: 'the first 3 deliveries forwarded', timeout: 40_000, interval: 50 }).toBe(true);
    await deliveredTwice(3);
    first.child.kill('SIGINT');
    expect(await first.exit).toBe(0);
    expect(existsSync(checkpoint)).toBe(true);

    // While it is stopped.
    await trigger(3);
    await deliveredTwice(6);
    expect(app.received).toHaveLength(3);

    const second = await startTail(args);
    expect(second.stderr()).toContain(`catching up from the checkpoint ${checkpoint}`);
    await expect
      .poll(() => app.received.length >= 6, { message: 'the 3 deliveries made while it was stopped forwarded', timeout: 40_000, interval: 50 })
      .toBe(true);
    await trigger(2);
    await expect.poll(() => app.received.length >= 8, { message: 'the 2 newest deliveries forwarded', timeout: 40_000, interval: 50 }).toBe(true);
    await deliveredTwice(8);
    // Polls enough to see every retry in the log: none may be forwarded.
    await sleep(1_500);
    second.child.kill('SIGINT');
    expect(await second.exit).toBe(0);

    const log = await logOf(webhook.id);
    expect(log).toHaveLength(16);
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
    const forwardLines = [...ndjson(first.stdout()), ...ndjson(second.stdout())].filter((l) => l.change === 'forwarded');
    expect(forwardLines.map((l) => l.delivery_id)).toEqual(deliveries);
    expect(forwardLines.every((l) => l.app_status === 200 && l.signature_check === 'verified')).toBe(true);
    expect(JSON.parse(readFileSync(checkpoint, 'utf8')).forwarded).toEqual(deliveries);
  });

  it('--count with --timeout: exit 6 when the count is not reached in time, with one line saying so', async () => {
    const endpoint = await receiver(() => 200);
    const webhook = await createWebhook(`${endpoint.url}/quiet`);
    const result = await runCli(
      ['deliveries', 'tail', '--webhook', webhook.id, '--status', 'delivered', '--count', '1', '--timeout', '2', '--interval', '200ms'],
      {
        env: apiEnv(),
        timeoutMs: 40_000,
      },
    );
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('whsvc: 0 of 1 lines within 2 s');
    expect(result.stdout).toBe('');
  });
});

describe('whsvc deliveries tail against a rate-limited service', () => {
  it('polls faster than the service allows: waits as each 429 asks, and still prints each attempt once', async () => {
    const limited = await startSandboxProcess(['--quiet', '--rate-limit', '2']);
    try {
      const env = (clientId: string, secret: string) => ({
        WHSVC_CONFIG_DIR: join(workDir, 'config-limited'),
        WHSVC_BASE_URL: limited.info.base_url,
        WHSVC_CLIENT_ID: clientId,
        WHSVC_CLIENT_SECRET: secret,
      });
      const writer = env(limited.info.client_id, limited.info.client_secret);
      const endpoint = await receiver(() => 200);
      const created = await runCli(['webhooks', 'create', '--url', `${endpoint.url}/limited`, '--events', 'invoice.paid', '--json'], { env: writer });
      expect(created.code, created.stderr).toBe(0);
      const webhookId = (JSON.parse(created.stdout) as { id: string }).id;
      // Its own client (the read-only one: all tail needs), polled 5 times a second against a limit of 2.
      const child = spawn(process.execPath, [WHSVC_BIN, 'deliveries', 'tail', '--webhook', webhookId, '--json', '--interval', '200ms'], {
        env: { ...process.env, NO_COLOR: '1', ...env(limited.info.readonly_client_id, limited.info.readonly_client_secret) },
      });
      let stdout = '';
      let stderr = '';
      const exit = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      child.stdout.on('data', (c: Buffer) => (stdout += c));
      child.stderr.on('data', (c: Buffer) => (stderr += c));
      await expect.poll(() => /^whsvc: following /m.test(stderr), { message: 'the tail to follow', timeout: 40_000, interval: 50 }).toBe(true);
      for (let i = 0; i < 3; i++) expect((await runCli(['sandbox', 'trigger', 'invoice.paid'], { env: writer })).code).toBe(0);
      await expect
        .poll(() => ndjson(stdout).filter((l) => l.status === 'delivered').length >= 3, {
          message: 'the 3 attempts delivered, in the tail',
          timeout: 40_000,
          interval: 50,
        })
        .toBe(true);
      await expect.poll(() => stderr.includes('answered 429'), { message: 'a 429', timeout: 40_000, interval: 50 }).toBe(true);
      await sleep(1_500);
      child.kill('SIGINT');
      expect(await exit).toBe(0);
      const news = ndjson(stdout).filter((l) => l.change === 'new');
      expect(news).toHaveLength(3);
      expect(new Set(news.map((l) => l.attempt_id)).size).toBe(3);
      expect(stderr).toMatch(/the service answered 429; retrying in \d+ s as it asks \(Retry-After\)/);
      expect(stderr).not.toMatch(/unexpected|\n\s+at /);
    } finally {
      await limited.stop();
    }
  });
});
