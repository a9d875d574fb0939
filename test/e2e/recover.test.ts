import { afterAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, startWhsvc, trigger } from '../helpers/cli.js';
import { json, recoverSetups } from '../helpers/recover.js';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';

// What only a process shows of deliveries recover: a real Ctrl-C, a reader that goes away (| head -1), and a real
// terminal (tmux). The sandbox and the receiver are in this test's process; only the recover is a process of its own.
// The rest is in test/integration/recover.test.ts.

const { setup, closeAll } = recoverSetups();
afterAll(closeAll);

describe('deliveries recover, a process of its own', () => {
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
