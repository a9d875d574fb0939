import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getToken, http, postWebhook } from '../helpers/http.js';
import { runInProcess, startInProcess, startSandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// whsvc sandbox start and trigger as a user runs them, in-process. The sandbox as a process (one process, kill -9, its
// --data-dir held against another, a log whose reader goes away) is test/e2e/sandbox-process.test.ts's.

let receiver: Receiver;
let dataDir: string;

beforeAll(async () => {
  receiver = await startReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'whsvc-sandbox-'));
});

afterAll(async () => {
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('whsvc sandbox start', () => {
  it('at a terminal, prints its address, the inspector and both clients, each secret on a line of its own', async () => {
    const sandbox = startInProcess(['sandbox', 'start', '--port', '0', '--quiet']);
    try {
      await sandbox.until(() => sandbox.stderr().endsWith('Ctrl-C stops it\n'), 'its banner');
      const banner = sandbox.stderr();
      const baseUrl = /^whsvc sandbox ready at (\S+)\n/.exec(banner)?.[1];
      expect(baseUrl, banner).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(banner).toContain(`  inspector     ${baseUrl}/  `);
      expect(banner).toMatch(/\n {2}read-write {4}client sbx_demo_readwrite\n {16}secret sbx_secret_[\w-]+\n/);
      expect(banner).toMatch(/\n {2}read-only {5}client sbx_demo_readonly\n {16}secret sbx_secret_[\w-]+\n/);
      // A login of its own, so that the default profile keeps its credentials.
      expect(banner).toContain(`\n  log in        whsvc login --profile sandbox --client-id sbx_demo_readwrite --base-url ${baseUrl}\n`);
      // Every line fits 80 columns but the address's own.
      for (const line of banner.split('\n').filter((line) => !line.includes(baseUrl!))) expect(line.length, line).toBeLessThanOrEqual(80);
    } finally {
      expect(await sandbox.stop('SIGTERM')).toBe(0);
    }
  });

  it('prints its address and both clients, and sends a retry that fell due while it was stopped once it starts again with --data-dir', async () => {
    receiver.respondWith = () => 500;
    // The first run's clock is a manual one: the retry, due a millisecond after the failure, never falls due on it. The
    // second runs on the wall clock, on which that millisecond has long passed when it starts: the retry is overdue.
    const first = await startSandboxInProcess(['--data-dir', dataDir, '--clock', 'manual', '--retry-base-ms', '1', '--max-attempts', '3']);
    expect(Object.keys(first.info)).toEqual([
      'base_url',
      'inspector_url',
      'client_id',
      'client_secret',
      'readonly_client_id',
      'readonly_client_secret',
      'data_dir',
    ]);
    expect(first.info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.info.inspector_url).toBe(`${first.info.base_url}/`);
    // The credentials are in the JSON line: stderr, a CI log, holds none.
    expect(first.stderr()).toContain(`whsvc sandbox ready at ${first.info.base_url} (its credentials are in the JSON line on stdout)\n`);
    expect(first.stderr()).not.toContain(first.info.client_secret);
    expect(first.stderr()).not.toContain(first.info.readonly_client_secret);

    const token = await getToken(first.info.base_url, first.info.client_id, first.info.client_secret);
    const created = await postWebhook(first.info.base_url, token, `${receiver.url}/kept`);

    const triggered = await runInProcess(['sandbox', 'trigger', 'invoice.paid', '--base-url', first.info.base_url]);
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(triggered.stdout).toMatch(/Triggered invoice\.paid \(evt_\w+\): 1 delivery pending/);
    const [firstAttempt] = await receiver.waitFor(1, 20_000, '/kept');

    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.stderr()).toContain('stopping');

    expect(receiver.received).toHaveLength(1);
    receiver.respondWith = () => 204;

    const second = await startSandboxInProcess(['--data-dir', dataDir, '--retry-base-ms', '1', '--max-attempts', '3']);
    try {
      expect(second.info.client_secret).toBe(first.info.client_secret);
      const [, retried] = await receiver.waitFor(2, 20_000, '/kept');
      expect(retried!.headers['x-service-attempt']).toBe('2');
      expect(retried!.headers['x-service-delivery-id']).toBe(firstAttempt!.headers['x-service-delivery-id']);
      expect(retried!.body).toBe(firstAttempt!.body);

      const again = await getToken(second.info.base_url, second.info.client_id, second.info.client_secret);
      const log = await vi.waitFor(
        async () => {
          const result = await http(second.info.base_url, 'GET', `/v1/webhooks/${created.id}/deliveries`, { token: again });
          expect(result.json.data[0]?.status, 'the retried attempt recorded as delivered').toBe('delivered');
          return result.json.data;
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(log.map((d: { attempts: number; status: string; response_code: number }) => [d.attempts, d.status, d.response_code])).toEqual([
        [2, 'delivered', 204],
        [1, 'failed', 500],
      ]);
      // The token issued before the restart is still good: tokens are kept too.
      expect((await http(second.info.base_url, 'GET', '/v1/webhooks', { token })).status).toBe(200);
    } finally {
      expect(await second.stop('SIGINT')).toBe(130);
    }
  });

  it('a --data-dir that cannot be a directory is a usage error, one line, exit 2, before anything starts: a file or a FIFO in its place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-notdir-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, 'x');
      const fifo = join(dir, 'a-fifo');
      execFileSync('mkfifo', [fifo]);
      for (const [path, what] of [
        [file, 'a regular file'],
        [fifo, 'a FIFO'],
      ] as const) {
        const refused = await runInProcess(['sandbox', 'start', '--port', '0', '--quiet', '--data-dir', path]);
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr.trim().split('\n')).toEqual([
          `whsvc: --data-dir ${path} is ${what}, not a directory`,
          'hint: give the path of a directory, or of one to create',
        ]);
        expect(refused.stdout).toBe('');
      }
      expect(readdirSync(dir).sort()).toEqual(['a-fifo', 'a-file']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says clearly when the port is taken', async () => {
    const running = await startSandboxInProcess(['--quiet']);
    try {
      const port = new URL(running.info.base_url).port;
      const clash = await runInProcess(['sandbox', 'start', '--port', port]);
      expect(clash.code).toBe(1);
      expect(clash.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(clash.stderr).not.toMatch(/\n\s+at /);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  it('refuses bad flag values as usage errors', async () => {
    const result = await runInProcess(['sandbox', 'start', '--port', 'eighty']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port');
    const name = await runInProcess(['sandbox', 'start', '--platform-name', 'bad name']);
    expect(name.code).toBe(2);
  });
});

describe('whsvc sandbox trigger', () => {
  it('refuses an event type outside the catalog with a suggestion, before any request', async () => {
    const result = await runInProcess(['sandbox', 'trigger', 'invoice.payed', '--base-url', 'http://127.0.0.1:9']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean invoice.paid?');
  });

  it('refuses --data that is not a JSON object', async () => {
    const result = await runInProcess(['sandbox', 'trigger', 'invoice.paid', '--data', '{nope', '--base-url', 'http://127.0.0.1:9']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--data is not valid JSON');
  });

  it('says when no sandbox is running at the address', async () => {
    const dead = await startReceiver();
    const url = dead.url;
    await dead.close();
    const result = await runInProcess(['sandbox', 'trigger', 'invoice.paid', '--base-url', url]);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe(`whsvc: cannot connect to ${new URL(url).host}: connection refused`);
    expect(result.stderr).toContain('Start it with `whsvc sandbox start`');
  });

  it("goes to the profile's sandbox on this machine (login --profile sandbox, as the banner suggests), not the default port", async () => {
    const sandbox = await startSandboxInProcess(['--quiet']);
    const configDir = mkdtempSync(join(tmpdir(), 'whsvc-trigger-profile-'));
    try {
      const env = { WHSVC_CONFIG_DIR: configDir, WHSVC_BASE_URL: undefined, CI: 'true' };
      const login = await runInProcess(
        ['login', '--profile', 'sandbox', '--base-url', sandbox.info.base_url, '--client-id', sandbox.info.client_id, '--client-secret-stdin'],
        { env, input: sandbox.info.client_secret },
      );
      expect(login.code, login.stderr).toBe(0);
      const triggered = await runInProcess(['sandbox', 'trigger', 'invoice.paid', '--profile', 'sandbox', '--json'], { env });
      expect(triggered.code, triggered.stderr).toBe(0);
      expect(JSON.parse(triggered.stdout)).toMatchObject({ type: 'invoice.paid' });
    } finally {
      expect(await sandbox.stop()).toBe(0);
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it('merges --data into the payload and prints the answer with --json', async () => {
    const sandbox = await startSandboxInProcess(['--quiet']);
    try {
      const result = await runInProcess([
        'sandbox',
        'trigger',
        'invoice.paid',
        '--json',
        '--base-url',
        sandbox.info.base_url,
        '--data',
        '{"id":"inv_from_flag","amount":{"amount":5,"currency":"USD"}}',
      ]);
      expect(result.code, result.stderr).toBe(0);
      const answer = JSON.parse(result.stdout);
      expect(answer.payload).toEqual({ id: 'inv_from_flag', event: 'invoice.paid', amount: { amount: 5, currency: 'USD' } });
      expect(answer.deliveries).toEqual([]);
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
  });
});
