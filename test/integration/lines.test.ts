import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, sandboxEnv, trigger, type CliResult, type SandboxInfo } from '../helpers/cli.js';
import { inProcessCliWith, startInProcess, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { sameWords, WIDTHS, widerLines } from '../helpers/words.js';

// Issue 44, "lines that do not fit": every line whsvc writes of a key/value block, a note, an error and its hint is laid
// out for the terminal's width, at 60, 80 and 132 columns: no line wider, no word of it broken (the words on the
// terminal are the words of the same command in a pipe, where each line stays whole), a signature or a body too wide
// shortened as an id is. The terminal itself (tmux) is test/e2e/screens.test.ts's.

let sandbox: SandboxInProcess;
let app: Receiver;
let workDir: string;
let secretFile: string;
let deliveryId: string;

beforeAll(async () => {
  // The app fails every delivery: a retry is due, and the manual clock's move sends it.
  [sandbox, app] = await Promise.all([startSandboxInProcess(['--quiet', '--clock', 'manual']), startReceiver(() => 500)]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-lines-'));
  secretFile = join(workDir, 'whsec.txt');
  await createWebhook(cli, `${app.url}/api/v2/webhooks/erp/invoices`, 'invoice.paid', ['--secret-file', secretFile]);
  deliveryId = (await trigger(cli))[0]!;
  await app.waitFor(1);
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), app?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

/** whsvc as the sandbox's read-write client: in a pipe, or on a terminal `columns` wide. */
const env = () => sandboxEnv(sandbox.info, join(workDir, 'config'));
const cli = inProcessCliWith(env);
const cliAt = (columns: number) => inProcessCliWith(env, { terminal: { columns } });

/** `args` run in a pipe, then on a terminal of each width: what each printed. */
async function atEachWidth(args: string[], options: Pick<Expected, 'input' | 'env'> = {}) {
  const pipe = await cli(args, options);
  const shown = new Map<number, CliResult>();
  for (const columns of WIDTHS) shown.set(columns, await cliAt(columns)(args, options));
  return { pipe, shown };
}

interface Expected {
  input?: string;
  env?: Record<string, string>;
  code?: number;
  /** What only a terminal is told (a progress line): left out of its words. */
  terminalOnly?: RegExp;
}

/** Every line of stdout and stderr at most `columns` wide, and its words those of the pipe's whole lines. */
async function laidOutLikeThePipe(args: string[], options: Expected = {}) {
  const { pipe, shown } = await atEachWidth(args, options);
  expect(pipe.code, pipe.stderr).toBe(options.code ?? 0);
  for (const [columns, result] of shown) {
    expect(result.code, result.stderr).toBe(options.code ?? 0);
    for (const stream of ['stdout', 'stderr'] as const) {
      const what = `${stream} at ${columns}:\n${result[stream]}`;
      expect(widerLines(result[stream], columns), what).toEqual([]);
      const words = options.terminalOnly ? result[stream].replace(options.terminalOnly, '') : result[stream];
      expect(sameWords(words, pipe[stream]), `${what}\nin a pipe:\n${pipe[stream]}`).toBe(true);
    }
  }
  return { pipe, shown };
}

describe('every line laid out for the width, broken between words (issue 44)', () => {
  it('deliveries show: the signature line (82 columns whole) shortened as an id is, its start and end kept', async () => {
    const { pipe, shown } = await laidOutLikeThePipe(['deliveries', 'show', deliveryId]);
    const signature = /^signature {2}(sha256=[0-9a-f]{64})$/m.exec(pipe.stdout)?.[1];
    expect(signature, pipe.stdout).toBeDefined();
    expect(shown.get(132)!.stdout).toContain(`signature  ${signature}`);
    for (const columns of [60, 80]) {
      const line = /^signature {2}(\S+)$/m.exec(shown.get(columns)!.stdout)?.[1] ?? '';
      expect(line).toHaveLength(columns - 11);
      expect(line).toMatch(/^sha256=[0-9a-f]+…[0-9a-f]+$/);
      const [start, end] = line.split('…') as [string, string];
      expect(signature!.startsWith(start) && signature!.endsWith(end)).toBe(true);
    }
  });

  it('deliveries diagnose: the verdict, why and what to do go on under their values; the signature header shortened; each next command pasted whole (` \\`)', async () => {
    const { shown } = await laidOutLikeThePipe(['deliveries', 'diagnose', deliveryId, '--secret-file', secretFile]);
    const at60 = shown.get(60)!.stdout;
    expect(at60).toMatch(/^signature {2}verified: the signature matches the payload under\n {11}\S*whsec\.txt: it holds this\n {11}webhook's secret$/m);
    expect(at60).toMatch(/^ {2}X-Service-Signature: sha256=[0-9a-f]+…[0-9a-f]+$/m);
    // A command too long for the line goes on after ` \`, its option with its value: pasted, the shell reads one.
    expect(at60).toMatch(/^ {2}whsvc deliveries diagnose dlv_[0-9a-f]+ \\\n {4}--record dlv_[0-9a-f]+\.ndjson$/m);
    expect(shown.get(132)!.stdout).toMatch(/^ {2}whsvc deliveries diagnose dlv_[0-9a-f]+ --record dlv_[0-9a-f]+\.ndjson$/m);
  });

  it("deliveries diagnose: an attempt's line too wide goes on under it between words, its id whole (issue 44)", async () => {
    // Nothing listens on port 1 of loopback: the attempt has no answer, its line's widest code.
    const unanswered = await createWebhook(cli, 'http://127.0.0.1:1/hooks', 'invoice.paid');
    expect((await cli(['test', unanswered.id])).code).toBe(1);
    const attempt = JSON.parse((await cli(['deliveries', 'list', unanswered.id, '--json'])).stdout).data[0].id;
    const { shown } = await laidOutLikeThePipe(['deliveries', 'diagnose', attempt]);
    expect(shown.get(60)!.stdout).toMatch(new RegExp(`^ {2}#1 {2}\\d\\d:\\d\\d:\\d\\d {2}failed {2}no answer\n {4}${attempt}$`, 'm'));
    for (const columns of [80, 132]) expect(shown.get(columns)!.stdout).toMatch(new RegExp(`^ {2}#1 {2}\\S+ {2}failed {2}no answer {2}${attempt}$`, 'm'));
  });

  it("send: the signature and the body's head shortened to the line, what follows on under them", async () => {
    const { shown } = await laidOutLikeThePipe(['send', `${app.url}/hooks`, '--secret-file', secretFile], { code: 1 });
    const at80 = shown.get(80)!.stdout;
    expect(at80).toMatch(/^signature {2}sha256=[0-9a-f]+…[0-9a-f]{10,}\n {11}\(the secret in \S*whsec\.txt\)$/m);
    expect(at80).toMatch(/^body {7}\d+ bytes: \{"\S+…\S+\}$/m);
  });

  it("login's line, the clock's move and a note on stderr: broken between words, under the text after the label", async () => {
    const { shown } = await laidOutLikeThePipe(['login', '--profile', 'lines', '--client-id', sandbox.info.client_id, '--client-secret-stdin'], {
      input: sandbox.info.client_secret,
    });
    expect(shown.get(60)!.stderr).toMatch(/^✓ Logged in to http:\/\/127\.0\.0\.1:\d+ as sbx_demo_readwrite\n {2}\(profile lines; scope:/);
    const moved = await laidOutLikeThePipe(['sandbox', 'clock', 'advance', '1h'], { terminalOnly: /^Moving [^…]*…\n/ });
    expect(moved.shown.get(60)!.stderr).toMatch(/^Moving the sandbox's clock 1 h ahead; every attempt due on\nthe way/);
    expect(moved.shown.get(60)!.stdout.split('\n')[0]).toMatch(/^Moved the sandbox's clock from \S+ to$/);
  });

  it('an error and its hint: laid out under the text after `whsvc: ` and `hint: ` on a terminal; one line each in a pipe, for grep', async () => {
    const { pipe, shown } = await laidOutLikeThePipe(['deliveries', 'tail', '--secret-file', secretFile, '--forward-to', 'http://127.0.0.1:9/app'], {
      code: 2,
    });
    expect(pipe.stderr.split('\n')[0]).toBe("whsvc: --secret-file holds one webhook's signing secret: follow that one webhook with --webhook ID");
    expect(shown.get(60)!.stderr).toMatch(/^whsvc: --secret-file holds one webhook's signing secret:\n {7}follow that one webhook with --webhook ID$/m);
    // A 403 and its hint, whose command stays on one line where it fits.
    const env = { WHSVC_CLIENT_ID: sandbox.info.readonly_client_id, WHSVC_CLIENT_SECRET: sandbox.info.readonly_client_secret };
    const refused = await laidOutLikeThePipe(['webhooks', 'create', '--url', `${app.url}/more`, '--events', 'invoice.paid'], { env, code: 4 });
    expect(refused.shown.get(80)!.stderr).toMatch(
      /^hint: log in with a client that has \S+: whsvc login --client-id ID;\n {6}the scope of this one: whsvc auth status$/m,
    );
    // commander's own usage errors too.
    await laidOutLikeThePipe(['webhooks', 'list', '--format', 'json'], { code: 2 });
  });

  it('a warning (`! …`): continued under its text', async () => {
    const { shown } = await laidOutLikeThePipe([
      'webhooks',
      'create',
      '--url',
      `${app.url}/api/v2/webhooks/erp/invoices`,
      '--events',
      'invoice.paid',
      '--dry-run',
    ]);
    expect(shown.get(60)!.stderr).toMatch(/^! .*\n {2}\S/m);
  });

  it("the sandbox's banner: each client secret whole on a line, the commands broken as a shell reads them back", async () => {
    // At 50 a secret fits under its text no more: it is copied, so whole at a line's start, never shortened.
    for (const columns of [...WIDTHS, 50]) {
      const started = startInProcess(['sandbox', 'start', '--port', '0', '--quiet'], { terminal: { columns } });
      const banner = await started.until(() => /Ctrl-C stops it\n/.test(started.stderr()) && started.stderr(), 'the banner');
      await started.stop('SIGTERM');
      const shown = `at ${columns}:\n${banner}`;
      expect(widerLines(banner, columns), shown).toEqual([]);
      expect(banner.match(/(?:^| )sbx_secret_[\w-]+$/gm), shown).toHaveLength(2);
      // Pasted, the lines of a command are one command: joined at their ` \`, the command as a pipe has it.
      const login = /^ {2}log in {8}(whsvc login(?:[^\n]*\\\n)*[^\n]*)$/m.exec(banner)?.[1] ?? '';
      expect(login.replace(/ \\\n +/g, ' '), shown).toMatch(
        /^whsvc login --profile sandbox --client-id sbx_demo_readwrite --base-url http:\/\/127\.0\.0\.1:\d+$/,
      );
      expect(login.includes('\\\n'), shown).toBe(columns < 132);
    }
  });

  it("webhooks create's secret shown once and its URL: copied, so whole, on a line of its own where they do not fit after their key", async () => {
    const url = `${app.url}/api/v2/webhooks/erp/invoices/shown-once`;
    const created = await cliAt(50)(['webhooks', 'create', '--url', url, '--events', 'invoice.paid']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^signing secret\nwhsec_[\w-]+$/m);
    expect(created.stdout.split('\n')).toEqual(expect.arrayContaining(['url', url]));
    expect(widerLines(created.stdout, 50), created.stdout).toEqual([]);
  });

  it("what a user copies is never shortened at 60 columns: webhooks get's URL, create's secret file and its warning of a URL delivered to already", async () => {
    const url = 'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices';
    const { id } = await createWebhook(cli, url, 'invoice.paid');
    const got = await cliAt(60)(['webhooks', 'get', id]);
    expect(got.code, got.stderr).toBe(0);
    // Wider than the line: whole, at a line's start, the terminal wraps it (the one exception widerLines names).
    expect(got.stdout.split('\n'), got.stdout).toEqual(expect.arrayContaining(['url', url]));
    expect(widerLines(got.stdout, 60), got.stdout).toEqual([]);
    // A second webhook at that URL: the warning names it whole.
    const again = await cliAt(60)(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--dry-run']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.split('\n'), again.stderr).toContain(url);
    // The secret's file in the ✓ line: whole, where the user finds it.
    const secretPath = join(workDir, 'rev2-secrets-of-the-production-account', 'production-hook2.secret');
    mkdirSync(join(workDir, 'rev2-secrets-of-the-production-account'));
    const written = await cliAt(60)(['webhooks', 'create', '--url', `${url}/2`, '--events', 'invoice.paid', '--secret-file', secretPath]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr.split('\n'), written.stderr).toContain(secretPath);
    for (const result of [again, written]) expect(widerLines(result.stderr, 60), result.stderr).toEqual([]);
  });

  it("the sandbox's log of attempts: a line too wide goes on under its status, the delivery's id and attempt together", async () => {
    const started = startInProcess(['sandbox', 'start', '--port', '0', '--json'], { terminal: { columns: 60 } });
    const info = JSON.parse(await started.until(() => /^.*\n/.exec(started.stdout())?.[0], 'its JSON line')) as SandboxInfo;
    const user = inProcessCliWith(sandboxEnv(info, join(workDir, 'log-config')));
    await createWebhook(user, `${app.url}/api/v2/webhooks/erp/invoices`);
    await trigger(user);
    const log = await started.until(() => /^\d\d:\d\d:\d\d failed[\s\S]*#1\)\n/m.exec(started.stderr())?.[0], "the attempt's line");
    await started.stop('SIGTERM');
    expect(widerLines(log, 60), log).toEqual([]);
    expect(log, log).toMatch(/^\d\d:\d\d:\d\d failed .*\n( {9}\S.*\n)+$/);
    expect(log, log).toMatch(/\(dlv_[0-9a-f]+ #1\)\n$/);
  });

  it("webhooks apply's plan: a step too wide goes on under its URL", async () => {
    const file = join(workDir, 'webhooks.json');
    const url = 'https://hooks.production.example-company.com/erp/invoices';
    writeFileSync(file, JSON.stringify({ webhooks: [{ url, events: ['invoice.paid', 'production_order.completed', 'sales_order.created'] }] }));
    const { shown } = await laidOutLikeThePipe(['webhooks', 'apply', '-f', file, '--dry-run']);
    expect(shown.get(80)!.stdout).toMatch(
      /^ {2}\+ create {5}https:\/\/hooks\.production\.example-company\.com\/erp\/invoices {2}\(new\)\n {15}invoice\.paid, production_order\.completed, sales_order\.created$/m,
    );
  });

  it('webhooks rotate-secret: the plan, each step and the end broken between words, the file, ids and URL whole (a trial at 60 and 80)', async () => {
    const ok = await startReceiver(() => 200);
    try {
      // Each run rotates a webhook of its own (its own path, its own file): the pipe's, then one per width.
      const rotate = async (run: number, columns: number | undefined, more: string[]) => {
        const dir = join(workDir, `rotate-${run}`);
        mkdirSync(dir, { recursive: true });
        const { id } = await createWebhook(cli, `${ok.url}/api/v2/webhooks/erp/invoices/${run}`);
        const args = ['webhooks', 'rotate-secret', id, '--secret-file', join(dir, 'new.secret'), ...more];
        return columns === undefined ? cli(args) : cliAt(columns)(args);
      };
      for (const more of [['--dry-run'], ['--yes']]) {
        const pipe = await rotate(0, undefined, more);
        expect(pipe.code, pipe.stderr).toBe(0);
        for (const columns of [60, 80]) {
          const result = await rotate(columns, columns, more);
          expect(result.code, result.stderr).toBe(0);
          for (const stream of ['stdout', 'stderr'] as const) {
            const what = `${more[0]} ${stream} at ${columns}:\n${result[stream]}`;
            expect(widerLines(result[stream], columns), what).toEqual([]);
            expect(sameWords(result[stream], pipe[stream]), `${what}\nin a pipe:\n${pipe[stream]}`).toBe(true);
          }
        }
      }
    } finally {
      await ok.close();
    }
  });

  it('deliveries list --limit: the hint that more match broken between words', async () => {
    await trigger(cli);
    // Its table is a table on a terminal and tab-separated rows in a pipe: the hint on stderr is what is compared.
    const { pipe, shown } = await atEachWidth(['deliveries', 'list', '--limit', '1']);
    for (const [columns, result] of shown) {
      expect(widerLines(result.stderr, columns), result.stderr).toEqual([]);
      expect(sameWords(result.stderr, pipe.stderr), `${result.stderr}\nin a pipe:\n${pipe.stderr}`).toBe(true);
    }
    expect(shown.get(60)!.stderr).toMatch(/^More than the 1 shown: --limit N shows more, --all every\none\.$/m);
  });

  it("listen's secret file not there yet: the command that writes it broken as a shell reads it back (` \\`)", async () => {
    const args = ['--secret-file', join(workDir, 'not-yet', 'whsec.txt')];
    const started = async (columns?: number) => {
      const listen = await startListenInProcess(args, columns === undefined ? {} : { terminal: { columns } });
      await listen.stop();
      return listen.stderr().replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT');
    };
    const pipe = await started();
    const command = /^ {4}(whsvc webhooks create .*)$/m.exec(pipe)?.[1];
    expect(command, pipe).toMatch(/--secret-file \S+whsec\.txt$/);
    for (const columns of [60, 80]) {
      const shown = await started(columns);
      const what = `at ${columns}:\n${shown}`;
      expect(widerLines(shown, columns), what).toEqual([]);
      expect(sameWords(shown, pipe), `${what}\nin a pipe:\n${pipe}`).toBe(true);
      const lines = /^ {4}(whsvc webhooks create(?:[^\n]*\\\n)*[^\n]*)$/m.exec(shown)?.[1] ?? '';
      expect(lines.includes(' \\\n'), what).toBe(true);
      expect(lines.replace(/ \\\n +/g, ' '), what).toBe(command);
    }
  });
});
