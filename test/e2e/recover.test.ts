import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WHSVC_BIN,
  cliWith,
  createWebhook,
  sandboxEnv,
  startSandboxProcess,
  startWhsvc,
  trigger,
  type Cli,
  type CliResult,
  type SandboxProcess,
} from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';

// After an outage: a real receiver that fails for a while and then recovers,
// the real sandbox, and the built whsvc re-sending what failed.

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-recover-'));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

interface Setup {
  sandbox: SandboxProcess;
  receiver: Receiver;
  cli: Cli;
  env: Record<string, string>;
  /** A webhook to the receiver at `path`, for `events`: its id. */
  webhook: (path: string, events: string) => Promise<string>;
  /** Sends per X-Service-Delivery-Id, of every request the receiver got. */
  sends: () => Map<string, number>;
  down: { value: boolean };
}

/** A sandbox with one automatic attempt per delivery (failures stay failed), and a receiver that is down until told. */
async function setup(name: string, sandboxArgs: string[] = []): Promise<Setup> {
  const sandbox = await startSandboxProcess(['--quiet', '--max-attempts', '1', ...sandboxArgs]);
  const down = { value: true };
  const receiver = await startReceiver(() => (down.value ? 503 : 200));
  const env = sandboxEnv(sandbox.info, mkdtempSync(join(workDir, name)));
  const cli = cliWith(env, { timeoutMs: 60_000 });
  return {
    sandbox,
    receiver,
    env,
    cli,
    webhook: async (path, events) => (await createWebhook(cli, `${receiver.url}${path}`, events)).id,
    sends: () => {
      const counts = new Map<string, number>();
      for (const r of receiver.received) {
        const id = String(r.headers['x-service-delivery-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    down,
  };
}

const json = (result: CliResult) => {
  expect(result.stdout, result.stderr).not.toBe('');
  return JSON.parse(result.stdout);
};

describe('deliveries recover against the real sandbox', () => {
  it('re-sends each failed delivery once, skips the delivered, honours --webhook, --event and --since', async () => {
    // The sandbox's clock moves only when told: a point in time between two failures is one it was moved to.
    const s = await setup('main', ['--clock', 'manual']);
    const hookA = await s.webhook('/a', 'invoice.paid,sales_order.created');
    const hookB = await s.webhook('/b', 'invoice.paid');
    await trigger(s.cli, 'sales_order.created', { times: 2 });
    await trigger(s.cli, 'invoice.paid', { times: 3 });
    await s.receiver.waitFor(2 + 3 * 2);
    // The outage ends; one delivery is re-sent by hand before recover runs.
    s.down.value = false;
    const failedA = json(await s.cli(['deliveries', 'list', hookA, '--status', 'failed', '--json'])).data as Array<{ id: string; event: string }>;
    const byHand = failedA.find((d) => d.event === 'sales_order.created')!;
    expect((await s.cli(['deliveries', 'retry', byHand.id])).code).toBe(0);
    // A later failure, after a point in time that --since names: a minute on, on the sandbox's clock.
    const between = json(await s.cli(['sandbox', 'clock', 'advance', '1m', '--json'])).now as string;
    s.down.value = true;
    await trigger(s.cli, 'invoice.paid', { times: 1 });
    await s.receiver.waitFor(2 + 3 * 2 + 1 + 2);
    s.down.value = false;

    const dry = json(await s.cli(['deliveries', 'recover', '--dry-run', '--json']));
    // 2 sales orders (one delivered by hand) + 4 invoices on A, 4 invoices on B.
    expect(dry.summary).toEqual({ selected: 1 + 4 + 4, webhooks: 2 });
    expect(s.receiver.received).toHaveLength(2 + 3 * 2 + 1 + 2);

    const since = json(await s.cli(['deliveries', 'recover', '--dry-run', '--since', between, '--json']));
    expect(since.summary).toEqual({ selected: 2, webhooks: 2 });

    const onlyB = await s.cli(['deliveries', 'recover', '--webhook', hookB, '--event', 'invoice.paid', '--yes', '--json']);
    expect(onlyB.code, onlyB.stderr).toBe(0);
    const b = json(onlyB);
    expect(b.summary).toEqual({ selected: 4, resent: 4, delivered: 4, failed: 0, pending: 0, already_delivered: 0, errors: 0 });
    expect(new Set(b.deliveries.map((d: { webhook_id: string }) => d.webhook_id))).toEqual(new Set([hookB]));

    const rest = await s.cli(['deliveries', 'recover', '--yes']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toContain('Re-sent 5 deliveries: 5 delivered, 0 failed again, 0 already delivered, 0 errors.');

    // Every delivery was sent twice in all: once failed, once delivered (by hand or by recover), never more.
    const sends = s.sends();
    expect(sends.size).toBe(2 + 4 * 2);
    for (const [id, count] of sends) expect(count, id).toBe(2);
    // Nothing left: a second run re-sends nothing.
    const again = json(await s.cli(['deliveries', 'recover', '--yes', '--json']));
    expect(again.summary.selected).toBe(0);
  });

  it('survives 429s from --rate-limit: every delivery still re-sent exactly once', async () => {
    const s = await setup('limited', ['--rate-limit', '4']);
    await s.webhook('/r', 'invoice.paid');
    await trigger(s.cli, 'invoice.paid', { times: 16 });
    await s.receiver.waitFor(16);
    s.down.value = false;
    const result = await s.cli(['deliveries', 'recover', '--yes', '--json', '--concurrency', '8'], { timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(json(result).summary).toMatchObject({ selected: 16, resent: 16, delivered: 16, errors: 0 });
    // Said once, however many waits: not a line a wait over the JSON's reader's log.
    expect(result.stderr.match(/429/g), result.stderr).toEqual(['429']);
    expect(result.stderr).toContain('whsvc: the service answered 429: re-sends wait as it asks (Retry-After), each time it does\n');
    const sends = s.sends();
    expect(sends.size).toBe(16);
    for (const [id, count] of sends) expect(count, id).toBe(2);
  });

  it('stops cleanly on SIGINT: the sends in flight finish, the summary is true, and running it again resumes', async () => {
    const s = await setup('interrupt');
    const webhookId = await s.webhook('/slow', 'invoice.paid');
    await trigger(s.cli, 'invoice.paid', { times: 12 });
    await s.receiver.waitFor(12);
    s.down.value = false;
    // Recovered, but slow: each answer takes a while, so the run is still going when it is stopped.
    s.receiver.answerDelayMs = 300;
    const run = startWhsvc(['deliveries', 'recover', '--yes', '--json', '--concurrency', '1'], { env: s.env });
    await s.receiver.waitFor(12 + 2, 60_000);
    const code = await run.stop('SIGINT');
    const stdout = run.stdout();
    const stderr = run.stderr();
    expect(code, stderr).toBe(130);
    const report = JSON.parse(stdout);
    expect(report.interrupted).toBe(true);
    const resentByFirstRun = s.receiver.received.length - 12;
    expect(report.summary.resent).toBe(resentByFirstRun);
    expect(report.summary.delivered).toBe(resentByFirstRun);
    expect(resentByFirstRun).toBeLessThan(12);
    const resume = /run `whsvc (.*?)` again to resume/.exec(stderr)?.[1]?.split(' ');
    // The window ends where the stopped run began: resumed later, it reads the same deliveries.
    expect(resume).toEqual(['deliveries', 'recover', '--yes', '--json', '--concurrency', '1', '--until', expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/)]);

    // A delivery that fails after the stop (its attempt the 13th failed one of the log) is not the stopped run's.
    s.down.value = true;
    await trigger(s.cli, 'invoice.paid', { times: 1 });
    await expect
      .poll(async () => json(await s.cli(['deliveries', 'list', webhookId, '--status', 'failed', '--json'])).data.length, { timeout: 30_000 })
      .toBe(13);
    s.down.value = false;
    s.receiver.answerDelayMs = 0;
    const resumed = json(await s.cli(resume!));
    expect(resumed.summary).toMatchObject({ selected: 12 - resentByFirstRun, delivered: 12 - resentByFirstRun });
    const sends = s.sends();
    expect(sends.size).toBe(13);
    expect([...sends.values()].sort()).toEqual([1, ...Array(12).fill(2)]);
  });

  it('a reader that goes away (| head -1) stops the run like Ctrl-C, exit 1 with what was not re-sent; running it again resumes', async () => {
    const s = await setup('pipe');
    await s.webhook('/pipe', 'invoice.paid');
    await trigger(s.cli, 'invoice.paid', { times: 10 });
    await s.receiver.waitFor(10);
    s.down.value = false;
    s.receiver.answerDelayMs = 200;
    const run = startWhsvc(['deliveries', 'recover', '--yes', '--json', '--concurrency', '1'], { env: s.env });
    // The first outcome read, then the pipe closed, as `head -1` does.
    await run.until(() => run.stdout() !== '', 'its first outcome');
    run.child.stdout!.destroy();
    const code = await run.exit;
    const stderr = run.stderr();
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(
      /the output was closed, so the run stopped: of those re-sent, \d+ got through and 0 did not; \d+ selected deliver(y was|ies were) not re-sent; run `whsvc deliveries recover --yes --json --concurrency 1 --until \S+` to resume\n/,
    );
    const resentByFirstRun = s.receiver.received.length - 10;
    expect(resentByFirstRun).toBeLessThan(10);
    s.receiver.answerDelayMs = 0;
    const resumed = json(await s.cli(['deliveries', 'recover', '--yes', '--json']));
    expect(resumed.summary).toMatchObject({ selected: 10 - resentByFirstRun, delivered: 10 - resentByFirstRun });
    for (const [id, count] of s.sends()) expect(count, id).toBe(2);
  });

  it('without a terminal and without --yes it refuses (exit 2) and sends nothing', async () => {
    const s = await setup('refuse');
    const result = await s.cli(['deliveries', 'recover']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('re-sending needs confirmation: pass --yes');
  });
});

const describeInTerminal = hasTmux || process.env.CI ? describe : describe.skip;

describeInTerminal('deliveries recover in a real terminal (tmux)', () => {
  it('asks to confirm with the count, shows a progress line while it works, and wipes it for the summary', async () => {
    const s = await setup('tty');
    await s.webhook('/tty', 'invoice.paid');
    await trigger(s.cli, 'invoice.paid', { times: 6 });
    await s.receiver.waitFor(6);
    s.down.value = false;
    // Slow enough for the progress line to be seen.
    s.receiver.answerDelayMs = 400;
    const { CI: _ci, ...env } = s.env;
    const session = new TmuxSession(`${process.execPath} ${WHSVC_BIN} deliveries recover --concurrency 1`, { ...env, TERM: 'xterm-256color' });
    try {
      await session.waitFor(/Re-send 6 failed deliveries of 1 webhook now\?/, 30_000);
      session.type('y');
      session.press('Enter');
      const during = await session.waitFor(/re-sending [1-5]\/6 · \d+ delivered · 0 still failing · [\d.]+\/s/, 30_000);
      expect(during).not.toContain('Re-sent');
      const screen = await session.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toContain('EXIT=0');
      expect(screen).toContain('Re-sent 6 deliveries: 6 delivered, 0 failed again, 0 already delivered, 0 errors.');
      expect(screen).not.toContain('re-sending');
      // Every byte the run sent the terminal, up to the shell's EXIT line after it: what came before that is all there is.
      const written = await session.waitForWritten(/EXIT=\d+/);
      // From its first draw to the summary, the line holds the progress line and nothing else: each time it is wiped, the
      // progress line is drawn again (never the per-request spinner), until the one wipe before the summary.
      const run = written.slice(written.indexOf('re-sending'));
      const wipes = run.split('\r\u001b[2K');
      expect(wipes.slice(0, -1).filter((drawn) => !drawn.startsWith('re-sending'))).toEqual([]);
      expect(wipes.at(-1)).toMatch(/^Re-sent 6 deliveries/);
      expect(run).not.toContain('waiting for');
      for (let done = 1; done <= 5; done++) expect(run).toContain(`re-sending ${done}/6 · ${done} delivered`);
    } finally {
      session.close();
    }
  });

  it("a rate-limited run shows the service's waits in its progress line, never as lines over it, and counts them in the summary", async () => {
    const s = await setup('tty-limited', ['--rate-limit', '2']);
    await s.webhook('/tty-limited', 'invoice.paid');
    await trigger(s.cli, 'invoice.paid', { times: 8 });
    await s.receiver.waitFor(8);
    s.down.value = false;
    const { CI: _ci, ...env } = s.env;
    const session = new TmuxSession(`${process.execPath} ${WHSVC_BIN} deliveries recover --yes --concurrency 4`, { ...env, TERM: 'xterm-256color' });
    try {
      await session.waitFor(/re-sending \d+\/\d+ .*· waiting \d+ s as the service asks \(429\)/, 60_000);
      const screen = await session.waitFor(/EXIT=\d+/, 120_000);
      expect(screen).toContain('EXIT=0');
      expect(screen).toContain('Re-sent 8 deliveries: 8 delivered');
      expect(screen).toMatch(/Waited \d+ times? as the service asked \(HTTP 429, Retry-After\)\./);
      expect(screen).not.toContain('retrying in');
      // Nor at any moment of the run: all the terminal was sent, up to the shell's EXIT line.
      expect(await session.waitForWritten(/EXIT=\d+/)).not.toContain('retrying in');
    } finally {
      session.close();
    }
  });
});
