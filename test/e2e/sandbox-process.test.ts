import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliWith, runCli, startSandboxProcess, startWhsvcUntil, trigger } from '../helpers/cli.js';
import { getToken, http, postEvent, postWebhook } from '../helpers/http.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

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
    const sandbox = await startWhsvcUntil(['sandbox', 'start', '--port', '0', '--quiet'], /Ctrl-C stops it\n/, 'sandbox start');
    try {
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
      sandbox.child.kill('SIGTERM');
      await sandbox.exit;
    }
  });

  it('prints its address and both clients, and sends a retry that fell due while it was stopped once it starts again with --data-dir', async () => {
    receiver.respondWith = () => 500;
    // The first run's clock is a manual one: the retry, due a millisecond after the failure, never falls due on it. The
    // second runs on the wall clock, on which that millisecond has long passed when it starts: the retry is overdue.
    const first = await startSandboxProcess(['--data-dir', dataDir, '--clock', 'manual', '--retry-base-ms', '1', '--max-attempts', '3']);
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

    const triggered = await runCli(['sandbox', 'trigger', 'invoice.paid', '--base-url', first.info.base_url]);
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(triggered.stdout).toMatch(/Triggered invoice\.paid \(evt_\w+\): 1 delivery pending/);
    const [firstAttempt] = await receiver.waitFor(1, 20_000, '/kept');

    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.stderr()).toContain('stopping');

    expect(receiver.received).toHaveLength(1);
    receiver.respondWith = () => 204;

    const second = await startSandboxProcess(['--data-dir', dataDir, '--retry-base-ms', '1', '--max-attempts', '3']);
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

  it('after a kill -9, attempts that were only queued (never sent) are sent as the same try, not counted as failed ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-kill-'));
    // One send at a time to the webhook, and a receiver that never answers: one attempt in flight, the rest queued.
    const hanging = await startReceiver();
    hanging.answerDelayMs = 600_000;
    const args = ['--quiet', '--data-dir', dir, '--concurrency-per-webhook', '1', '--max-attempts', '2', '--retry-base-ms', '600000'];
    const first = await startSandboxProcess(args);
    try {
      const token = await getToken(first.info.base_url, first.info.client_id, first.info.client_secret);
      const created = await postWebhook(first.info.base_url, token, `${hanging.url}/hang`);
      await trigger(cliWith({ WHSVC_BASE_URL: first.info.base_url }), 'invoice.paid', { times: 3 });
      await hanging.waitFor(1, 20_000);
      expect(await first.stop('SIGKILL')).toBe(null);
      await hanging.close();

      const second = await startSandboxProcess(args);
      try {
        const again = await getToken(second.info.base_url, second.info.client_id, second.info.client_secret);
        // The receiver is gone: every send now fails at once, and no automatic retry falls due within the test.
        let log: Array<{ delivery_id: string; attempts: number; status: string }> = [];
        await expect
          .poll(
            async () => {
              log = (await http(second.info.base_url, 'GET', `/v1/webhooks/${created.id}/deliveries`, { token: again })).json.data;
              return log.filter((d) => d.status !== 'pending').length;
            },
            { timeout: 20_000 },
          )
          .toBe(4);
        const tries = new Map<string, number[]>();
        for (const d of log) tries.set(d.delivery_id, [...(tries.get(d.delivery_id) ?? []), d.attempts]);
        // The one in flight at the kill: a failed try, then its retry (2 of 2). The two queued: their first try, once.
        expect([...tries.values()].map((numbers) => numbers.sort().join(',')).sort()).toEqual(['1', '1', '1,2']);
      } finally {
        await second.stop('SIGKILL');
      }
    } finally {
      await first.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === 'linux')('serves in the process it was started as: one process, no start of Node again', async () => {
    const sandbox = await startSandboxProcess(['--quiet']);
    try {
      expect(
        readFileSync(`/proc/${sandbox.child.pid}/cmdline`, 'utf8')
          .split('\0')
          .filter((word) => word.startsWith('--max-semi-space-size')),
      ).toEqual([]);
      expect((await http(sandbox.info.base_url, 'GET', '/v1/webhooks')).status).toBe(401);
    } finally {
      expect(await sandbox.stop('SIGKILL')).toBe(null);
    }
    await expect(http(sandbox.info.base_url, 'GET', '/v1/webhooks')).rejects.toThrow();
  });

  it('one sandbox at a time on a --data-dir: a second is refused in one line, and takes over once the first has stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-held-'));
    try {
      const first = await startSandboxProcess(['--quiet', '--data-dir', dir]);
      try {
        const second = await runCli(['sandbox', 'start', '--port', '0', '--quiet', '--data-dir', dir], { timeoutMs: 20_000 });
        expect(second.code).toBe(1);
        expect(second.stderr.trim().split('\n')[0]).toBe(
          `whsvc: cannot open the sandbox store in ${dir}: another sandbox (pid ${first.child.pid}) is using it; stop that one first, or give another --data-dir`,
        );
        expect(second.stderr).not.toMatch(/\n\s+at /);
      } finally {
        expect(await first.stop('SIGKILL')).toBe(null);
      }
      // Killed, not stopped: its pid is still in the store, and is gone.
      const third = await startSandboxProcess(['--quiet', '--data-dir', dir]);
      expect(await third.stop('SIGTERM')).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a --data-dir that cannot be a directory is a usage error, one line, exit 2, before anything starts: a file or a FIFO in its place, or a place no directory can be made', async () => {
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
        const refused = await runCli(['sandbox', 'start', '--port', '0', '--quiet', '--data-dir', path], { timeoutMs: 20_000 });
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr.trim().split('\n')).toEqual([
          `whsvc: --data-dir ${path} is ${what}, not a directory`,
          'hint: give the path of a directory, or of one to create',
        ]);
        expect(refused.stdout).toBe('');
      }
      expect(readdirSync(dir).sort()).toEqual(['a-fifo', 'a-file']);
      if (process.platform === 'linux') {
        // Node's recursive mkdirSync loops forever here.
        const underProc = await runCli(['sandbox', 'start', '--port', '0', '--quiet', '--data-dir', '/proc/whsvc-nope/data'], { timeoutMs: 20_000 });
        expect(underProc.code).toBe(2);
        expect(underProc.stderr).toMatch(/^whsvc: --data-dir \/proc\/whsvc-nope\/data cannot be written into: /);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps serving and delivering when the reader of its log goes away, and SIGTERM still exits 0', async () => {
    // As in `whsvc sandbox start 2>&1 >ready.json | head -c 50`: the log's pipe closes early.
    const sandbox = await startSandboxProcess([]);
    sandbox.child.stderr!.destroy();
    const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
    await postWebhook(sandbox.info.base_url, token, `${receiver.url}/epipe`);
    // Each delivery writes a log line into the closed pipe.
    for (let i = 0; i < 20; i += 1) await postEvent(sandbox.info.base_url);
    expect(await receiver.waitFor(20, 20_000, '/epipe')).toHaveLength(20);
    expect((await http(sandbox.info.base_url, 'GET', '/v1/webhooks', { token })).status).toBe(200);
    expect(sandbox.child.exitCode).toBeNull();
    expect(await sandbox.stop('SIGTERM')).toBe(0);
  });

  it('says clearly when the port is taken', async () => {
    const running = await startSandboxProcess(['--quiet']);
    try {
      const port = new URL(running.info.base_url).port;
      const clash = await runCli(['sandbox', 'start', '--port', port]);
      expect(clash.code).toBe(1);
      expect(clash.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(clash.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await running.stop();
    }
  });

  it('refuses bad flag values as usage errors', async () => {
    const result = await runCli(['sandbox', 'start', '--port', 'eighty']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port');
    const name = await runCli(['sandbox', 'start', '--platform-name', 'bad name']);
    expect(name.code).toBe(2);
  });
});

describe('whsvc sandbox trigger', () => {
  it('refuses an event type outside the catalog with a suggestion, before any request', async () => {
    const result = await runCli(['sandbox', 'trigger', 'invoice.payed', '--base-url', 'http://127.0.0.1:9']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean invoice.paid?');
  });

  it('refuses --data that is not a JSON object', async () => {
    const result = await runCli(['sandbox', 'trigger', 'invoice.paid', '--data', '{nope', '--base-url', 'http://127.0.0.1:9']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--data is not valid JSON');
  });

  it('says when no sandbox is running at the address', async () => {
    const dead = await startReceiver();
    const url = dead.url;
    await dead.close();
    const result = await runCli(['sandbox', 'trigger', 'invoice.paid', '--base-url', url]);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe(`whsvc: cannot connect to ${new URL(url).host}: connection refused`);
    expect(result.stderr).toContain('Start it with `whsvc sandbox start`');
  });

  it("goes to the profile's sandbox on this machine (login --profile sandbox, as the banner suggests), not the default port", async () => {
    const sandbox = await startSandboxProcess(['--quiet']);
    const configDir = mkdtempSync(join(tmpdir(), 'whsvc-trigger-profile-'));
    try {
      const env = { WHSVC_CONFIG_DIR: configDir, WHSVC_BASE_URL: undefined, CI: 'true' };
      const login = await runCli(
        ['login', '--profile', 'sandbox', '--base-url', sandbox.info.base_url, '--client-id', sandbox.info.client_id, '--client-secret-stdin'],
        { env, input: sandbox.info.client_secret },
      );
      expect(login.code, login.stderr).toBe(0);
      const triggered = await runCli(['sandbox', 'trigger', 'invoice.paid', '--profile', 'sandbox', '--json'], { env });
      expect(triggered.code, triggered.stderr).toBe(0);
      expect(JSON.parse(triggered.stdout)).toMatchObject({ type: 'invoice.paid' });
    } finally {
      await sandbox.stop();
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it('merges --data into the payload and prints the answer with --json', async () => {
    const sandbox = await startSandboxProcess(['--quiet']);
    try {
      const result = await runCli([
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
      await sandbox.stop();
    }
  });
});
