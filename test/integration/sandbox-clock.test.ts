import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clockTime } from '../../src/render/words.js';
import { createWebhook, sandboxEnv, trigger } from '../helpers/cli.js';
import {
  inProcessCliWith,
  runInProcess,
  startInProcess,
  startListenInProcess,
  startSandboxInProcess,
  type ListenerInProcess,
  type SandboxInProcess,
} from '../helpers/in-process.js';
import { startReceiver } from '../helpers/receiver.js';

// The sandbox as a test harness: a manual clock plays a retry schedule out in
// seconds, against a real `whsvc listen --fail-first` receiver; the sandbox, listen and the commands all in-process.
// What a test leaves running is stopped after it, its exit code checked.

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-clock-'));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** What a test started, stopped once it ends (the last started first): each a promise of what it checks. */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A sandbox in-process, stopped after the test (SIGTERM: exit 0) unless the test stopped it. */
async function sandboxOf(args: string[]): Promise<SandboxInProcess> {
  const sandbox = await startSandboxInProcess(args);
  cleanups.push(async () => expect(await sandbox.stop()).toBe(0));
  return sandbox;
}

/**
 * `whsvc listen --port 0 …` in-process, once ready; stopped after the test (SIGTERM) unless it ended, with exit 0, or 1
 * when `refusing`: a listener given a secret of no webhook's refuses what it gets.
 */
async function listenOf(args: string[], refusing = false): Promise<ListenerInProcess> {
  const listener = await startListenInProcess(args);
  cleanups.push(async () => expect(await listener.stop('SIGTERM'), listener.stderr()).toBe(refusing ? 1 : 0));
  return listener;
}

/** `whsvc listen --port 0 --json …`, once ready. */
const listen = (args: string[], refusing = false) => listenOf(['--json', ...args], refusing);

const cliFor = (sandbox: SandboxInProcess, configDir: string) => inProcessCliWith(sandboxEnv(sandbox.info, configDir));

const SECOND = 1000;

describe('sandbox start --clock manual', () => {
  it('plays a retry schedule out step by step: each advance sends exactly the attempts due within it', async () => {
    const sandbox = await sandboxOf(['--quiet', '--clock', 'manual']);
    const configDir = mkdtempSync(join(workDir, 'config-'));
    const cli = cliFor(sandbox, configDir);
    const secretFile = join(workDir, 'schedule-secret.txt');
    const receiver = await listen(['--secret-file', secretFile, '--fail-first', '3']);
    const created = await createWebhook(cli, `${receiver.url}/hook`, 'invoice.paid', ['--secret-file', secretFile]);
    const webhookId = created.id;

    const start = JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout);
    expect(start).toMatchObject({ clock: 'manual', due: [] });
    // The clock stands still on its own: asked again and again while the wall clock moves on, it says the same time.
    for (let ask = 0; ask < 3; ask++) expect(JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout).now).toBe(start.now);

    await trigger(cli);
    // The first attempt goes out at once, as on the wall clock.
    await receiver.until(() => receiver.deliveries().length === 1, 'the first attempt');
    const t0 = Date.parse(start.now);
    const shown = JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout);
    expect(shown.due).toEqual([
      {
        delivery_id: receiver.deliveries()[0]!.delivery_id,
        webhook_id: webhookId,
        event: 'invoice.paid',
        attempt: 2,
        due_at: new Date(t0 + 5 * SECOND).toISOString(),
      },
    ]);

    const step = async (duration: string) => {
      const result = await cli(['sandbox', 'clock', 'advance', duration, '--json']);
      expect(result.code, result.stderr).toBe(0);
      // After each step, the log and the receiver agree: the same attempts, numbered alike, with the same outcome.
      const log = JSON.parse((await cli(['deliveries', 'list', webhookId, '--json'])).stdout).data.reverse();
      expect(log.map((d: { attempts: number; response_code: number }) => [d.attempts, d.response_code])).toEqual(
        receiver.deliveries().map((line) => [Number(line.headers['x-service-attempt']), line.status]),
      );
      return JSON.parse(result.stdout);
    };
    // 4 s: the retry due at 5 s is not yet due.
    expect(await step('4s')).toMatchObject({ sent: 0, now: new Date(t0 + 4 * SECOND).toISOString() });
    expect(receiver.deliveries()).toHaveLength(1);
    // 1 s more: attempt 2, failed by --fail-first.
    expect(await step('1s')).toMatchObject({ sent: 1, delivered: 0, failed: 1 });
    expect(receiver.deliveries()).toHaveLength(2);
    // 30 s more: attempt 3 (due at 15 s, failed) and attempt 4 (due at 35 s, taken).
    const played = await step('30s');
    expect(played).toMatchObject({ sent: 2, delivered: 1, failed: 1, due: [], now: new Date(t0 + 35 * SECOND).toISOString() });
    expect(played.attempts.map((a: { attempt: number; status: string }) => [a.attempt, a.status])).toEqual([
      [3, 'failed'],
      [4, 'delivered'],
    ]);

    const lines = receiver.deliveries();
    expect(lines.map((l) => [l.attempt, l.status, l.rule])).toEqual([
      [1, 500, 'fail_first'],
      [2, 500, 'fail_first'],
      [3, 500, 'fail_first'],
      [4, 200, 'respond_status'],
    ]);
    expect(new Set(lines.map((l) => l.delivery_id)).size).toBe(1);
    expect(new Set(lines.map((l) => l.body)).size).toBe(1);
    expect(new Set(lines.map((l) => l.headers['x-service-signature'])).size).toBe(1);

    // The log reads as if the time had passed: 5 s, 10 s, 20 s between attempts.
    const log = JSON.parse((await cli(['deliveries', 'list', webhookId, '--json'])).stdout).data.reverse();
    expect(log.map((d: { attempts: number; status: string }) => [d.attempts, d.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
      [4, 'delivered'],
    ]);
    expect(log.map((d: { created_at: string }) => (Date.parse(d.created_at) - t0) / SECOND)).toEqual([0, 5, 15, 35]);

    // A jump past the token's lifetime (an hour) expires it: the CLI gets the 401 and a new token.
    const cachedToken = () => JSON.stringify(JSON.parse(readFileSync(join(configDir, 'tokens.json'), 'utf8')).tokens);
    const before = cachedToken();
    await step('2h');
    const after = await cli(['webhooks', 'list', '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect(cachedToken()).not.toBe(before);

    // Moving back is refused; set moves forward to a point.
    const back = await cli(['sandbox', 'clock', 'set', '2000-01-01T00:00:00Z']);
    expect(back.code).toBe(1);
    expect(back.stderr).toContain('the clock only moves forward');
    // The request's field names are the sandbox's business, not the user's.
    expect(back.stderr).not.toMatch(/\bto:/);
    const target = new Date(t0 + 3 * 86_400_000).toISOString();
    const set = await cli(['sandbox', 'clock', 'set', target, '--json']);
    expect(JSON.parse(set.stdout).now).toBe(target);
    expect(await sandbox.stop()).toBe(0);
  });

  it('keeps its position across a restart with --data-dir', async () => {
    const dataDir = mkdtempSync(join(workDir, 'data-'));
    const configDir = mkdtempSync(join(workDir, 'config-'));
    const receiver = await listen(['--secret', 'whsec_unused', '--respond-status', '500'], true);
    const first = await sandboxOf(['--quiet', '--clock', 'manual', '--data-dir', dataDir]);
    let cli = cliFor(first, configDir);
    await createWebhook(cli, `${receiver.url}/down`);
    await trigger(cli);
    await receiver.until(() => receiver.deliveries().length === 1, 'the first attempt');
    const moved = JSON.parse((await cli(['sandbox', 'clock', 'advance', '5s', '--json'])).stdout);
    expect(moved.sent).toBe(1);
    expect(await first.stop()).toBe(0);

    const second = await sandboxOf(['--quiet', '--clock', 'manual', '--data-dir', dataDir]);
    cli = cliFor(second, configDir);
    const shown = JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout);
    expect(shown.now).toBe(moved.now);
    expect(shown.due).toEqual([expect.objectContaining({ attempt: 3, due_at: new Date(Date.parse(moved.now) + 10 * SECOND).toISOString() })]);
    const next = JSON.parse((await cli(['sandbox', 'clock', 'advance', '10s', '--json'])).stdout);
    expect(next).toMatchObject({ sent: 1, failed: 1 });
    expect(receiver.deliveries().map((l) => l.attempt)).toEqual([1, 2, 3]);
    expect(await second.stop()).toBe(0);
  });

  it('on the wall clock, moving time is refused with how to start a manual one', async () => {
    const sandbox = await sandboxOf(['--quiet']);
    const cli = cliFor(sandbox, mkdtempSync(join(workDir, 'config-')));
    const shown = JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout);
    expect(shown.clock).toBe('wall');
    const refused = await cli(['sandbox', 'clock', 'advance', '1h']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('whsvc sandbox start --clock manual');
    // On a terminal too: nothing said of moving the clock before the sandbox refused it.
    const atTerminal = await runInProcess(['sandbox', 'clock', 'advance', '1h'], {
      env: sandboxEnv(sandbox.info, mkdtempSync(join(workDir, 'config-'))),
      terminal: { columns: 80 },
    });
    expect(atTerminal.code).toBe(1);
    expect(atTerminal.stderr).toMatch(/^whsvc: the sandbox runs on the wall clock/);
    expect(atTerminal.stderr).not.toContain('Moving');
    // Without a token, the clock is not shown at all.
    const anonymous = await fetch(`${sandbox.info.base_url}/_sandbox/clock`);
    expect(anonymous.status).toBe(401);
    expect(await sandbox.stop()).toBe(0);
  });

  it("listen stamps a delivery with the sandbox's time (its Date header), not its own", async () => {
    const sandbox = await sandboxOf(['--quiet', '--clock', 'manual']);
    const cli = cliFor(sandbox, mkdtempSync(join(workDir, 'config-')));
    const start = Date.parse(JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout).now);
    // Three days and a few hours on, on a whole second: no time of day the wall clock could show now.
    const moved = new Date(Math.ceil((start + 3 * 86_400_000 + 4 * 3_600_000 + 1_234) / 1000) * 1000);
    expect((await cli(['sandbox', 'clock', 'set', moved.toISOString()])).code).toBe(0);
    const secretFile = join(workDir, 'stamp-secret.txt');
    const human = await listenOf(['--secret-file', secretFile, '--count', '1', '--timeout', '60']);
    await createWebhook(cli, `${human.url}/hook`, 'invoice.paid', ['--secret-file', secretFile]);
    await trigger(cli);
    expect(await human.exit).toBe(0);
    const [line] = human.stdout().trim().split('\n');
    expect(line!.startsWith(`${clockTime(moved.toISOString(), moved.getTime())} `), line).toBe(true);

    const json = await listen(['--secret', 'whsec_unused'], true);
    await createWebhook(cli, `${json.url}/hook`);
    await trigger(cli);
    await json.until(() => json.deliveries().length >= 1, 'a line');
    expect(json.deliveries()[0]!.headers.date).toBe(moved.toUTCString());
    expect(await sandbox.stop()).toBe(0);
  });

  describe('a jump over a receiver slower than --request-timeout', () => {
    /** A manual sandbox with one delivery whose retry falls due in 60 s, to a receiver that now holds what it gets. */
    async function retryDueToAHeldReceiver() {
      const receiver = await startReceiver(() => 500);
      cleanups.push(() => receiver.close());
      const sandbox = await sandboxOf(['--quiet', '--clock', 'manual', '--retry-base-ms', '60000']);
      const cli = cliFor(sandbox, mkdtempSync(join(workDir, 'config-')));
      await createWebhook(cli, `${receiver.url}/slow`);
      await trigger(cli);
      await receiver.waitFor(1);
      receiver.respondWith = () => 'hold';
      const from = Date.parse(JSON.parse((await cli(['sandbox', 'clock', '--json'])).stdout).now);
      const advance = startInProcess(['sandbox', 'clock', 'advance', '2m', '--request-timeout', '1s'], {
        env: sandboxEnv(sandbox.info, mkdtempSync(join(workDir, 'config-'))),
      });
      let ended = false;
      void advance.exit.then(() => (ended = true));
      // The retry, sent by the jump, is held: the jump cannot end before the receiver answers.
      await receiver.waitFor(2);
      return { receiver, cli, from, advance, ended: () => ended };
    }

    it('waits as long as the jump takes, past its request limit, and reports what was sent', async () => {
      const { receiver, advance, ended } = await retryDueToAHeldReceiver();
      // The marker: a request of another whsvc, held by the same receiver under the same 1 s limit, sent after the jump's.
      // Once it has given up, the jump would have given up too if its limit held it (it did, before).
      const control = await runInProcess(['webhooks', 'list', '--request-timeout', '1s'], {
        env: { WHSVC_BASE_URL: receiver.url, WHSVC_CLIENT_ID: 'a', WHSVC_CLIENT_SECRET: 'b', WHSVC_CONFIG_DIR: mkdtempSync(join(workDir, 'config-')) },
      });
      expect(control.stderr).toContain('no answer within 1 s');
      expect(ended(), advance.stderr()).toBe(false);
      receiver.release(200);
      expect(await advance.exit, advance.stderr()).toBe(0);
      expect(advance.stdout()).toMatch(/: 1 attempt sent, 1 delivered, 0 failed\n/);
    });

    it('Ctrl-C says the jump goes on without whsvc and how to see it; the clock then moves once, not twice', async () => {
      const { receiver, cli, from, advance } = await retryDueToAHeldReceiver();
      expect(await advance.stop('SIGINT')).toBe(130);
      expect(advance.stderr()).toContain('whsvc: the sandbox goes on moving its clock 2 min ahead without whsvc; `whsvc sandbox clock` shows its time');
      receiver.release(200);
      // The jump finishes in the sandbox: a second look waits for it (one move at a time) and finds it moved 2 minutes, once.
      const after = JSON.parse((await cli(['sandbox', 'clock', 'advance', '0s', '--json'])).stdout);
      expect(Date.parse(after.now) - from).toBe(2 * 60 * SECOND);
    });
  });
});
