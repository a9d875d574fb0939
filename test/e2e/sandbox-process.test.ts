import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startSandboxProcess, trigger } from '../helpers/cli.js';
import { getToken, http, postEvent, postWebhook } from '../helpers/http.js';
import { inProcessCliWith } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// The sandbox as a process: one process, its --data-dir held against another process, kill -9, a log whose reader goes
// away. What a user types and reads of sandbox start and trigger is in-process (test/integration/sandbox-process.test.ts).

let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

describe('whsvc sandbox start, as a process', () => {
  it("is one process; holds its --data-dir against a second, refused in one line, which a third takes over once the first is killed (-9); with its log's reader gone it keeps serving and delivering, and SIGTERM exits 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-held-'));
    try {
      const first = await startSandboxProcess(['--quiet', '--data-dir', dir]);
      try {
        // It serves in the process it was started as: no start of Node again.
        if (process.platform === 'linux')
          expect(
            readFileSync(`/proc/${first.child.pid}/cmdline`, 'utf8')
              .split('\0')
              .filter((word) => word.startsWith('--max-semi-space-size')),
          ).toEqual([]);
        expect((await http(first.info.base_url, 'GET', '/v1/webhooks')).status).toBe(401);
        const second = await runCli(['sandbox', 'start', '--port', '0', '--quiet', '--data-dir', dir], { timeoutMs: 20_000 });
        expect(second.code).toBe(1);
        expect(second.stderr.trim().split('\n')[0]).toBe(
          `whsvc: cannot open the sandbox store in ${dir}: another sandbox (pid ${first.child.pid}) is using it; stop that one first, or give another --data-dir`,
        );
        expect(second.stderr).not.toMatch(/\n\s+at /);
      } finally {
        expect(await first.stop('SIGKILL')).toBe(null);
      }
      await expect(http(first.info.base_url, 'GET', '/v1/webhooks')).rejects.toThrow();

      // Killed, not stopped: its pid is still in the store, and is gone. The third's log goes to a pipe that closes
      // early, as in `whsvc sandbox start 2>&1 >ready.json | head -c 50`.
      const third = await startSandboxProcess(['--data-dir', dir]);
      third.child.stderr!.destroy();
      const token = await getToken(third.info.base_url, third.info.client_id, third.info.client_secret);
      await postWebhook(third.info.base_url, token, `${receiver.url}/epipe`);
      // Each delivery writes a log line into the closed pipe.
      for (let i = 0; i < 20; i += 1) await postEvent(third.info.base_url);
      expect(await receiver.waitFor(20, 20_000, '/epipe')).toHaveLength(20);
      expect((await http(third.info.base_url, 'GET', '/v1/webhooks', { token })).status).toBe(200);
      expect(third.child.exitCode).toBeNull();
      expect(await third.stop('SIGTERM')).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
      await trigger(inProcessCliWith({ WHSVC_BASE_URL: first.info.base_url }), 'invoice.paid', { times: 3 });
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

  // In a process of its own: Node's recursive mkdirSync loops for good on such a path, which in-process would hang the
  // test runner itself rather than fail.
  it.runIf(process.platform === 'linux')('a --data-dir where no directory can be made is a usage error, one line, exit 2', async () => {
    const underProc = await runCli(['sandbox', 'start', '--port', '0', '--quiet', '--data-dir', '/proc/whsvc-nope/data'], { timeoutMs: 20_000 });
    expect(underProc.code).toBe(2);
    expect(underProc.stderr).toMatch(/^whsvc: --data-dir \/proc\/whsvc-nope\/data cannot be written into: /);
  });
});
