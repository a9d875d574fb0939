import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { shortId } from '../../src/render/width.js';
import {
  WHSVC_BIN,
  cliWith,
  createWebhook,
  sandboxEnv,
  startListen,
  startSandboxProcess,
  startTail,
  startWhsvcUntil,
  trigger,
  type CliResult,
  type Running,
  type SandboxProcess,
} from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { verifiesReserializedJson } from '../helpers/receivers.js';
import { GATHERED_TIMEOUT, step } from '../helpers/steps.js';
import { type Shown, TmuxSession, hasTmux, shownInOneTerminal } from '../helpers/tmux.js';
import { onlyWholeWords, sameWords, widerLines, WIDTHS as LINE_WIDTHS } from '../helpers/words.js';

// Issue 35, "tables and lines that hold still", in a real terminal at the widths a user tries: the same command at
// the same width shows the same columns whatever the rows, ids whole or in their one short form, hosts whole, no
// title or word cut, and health's verdict in words (NO_COLOR). And check-receiver's report (issue 43), against the
// receiver at /check, which takes every delivery, and at /reserializes, which verifies the JSON it wrote again: its
// lines broken between words with their indent kept, a cause and its fix under their label.
//   prod     http://127.0.0.1:PORT/api/v2/webhooks/erp/invoices   answers 200
//   staging  http://localhost:PORT/api/v2/webhooks/erp/invoices   the same path on another host; answers 500
//   refused  http://127.0.0.1:1/hooks                             no answer: connection refused
//   idle     subscribed to an event never triggered: no data
// And issue 44, "lines that do not fit": the lines a user reads of login, the sandbox's banner and clock, deliveries
// show and diagnose, send, an error and its hint, tail --forward-to and listen, at 60, 80 and 132 columns, each no
// wider than the terminal (the screen joined again shows a line the terminal wrapped whole) and its words those of the
// same command in a pipe, none broken (a signature too wide shortened as an id is).

const describeInTerminal = hasTmux || process.env.CI ? describe : describe.skip;
/** The secret check-receiver is given, and the receiver at /reserializes holds. */
const CHECK_SECRET = 'whsec_screens';
const reserializes = verifiesReserializedJson(CHECK_SECRET);
const WIDTHS = [60, 80, 100, 132] as const;
const PATH = '/api/v2/webhooks/erp/invoices';

describeInTerminal('screens that hold still, in a real terminal (tmux)', { timeout: GATHERED_TIMEOUT }, () => {
  let sandbox: SandboxProcess;
  let receiver: Receiver;
  let configDir: string;
  const ids: Record<string, string> = {};
  const sessions: TmuxSession[] = [];
  const env = () => sandboxEnv(sandbox.info, configDir);

  const user = cliWith(env);
  const cli = async (args: string[], code = 0) => {
    const result = await user(args);
    expect(result.code, result.stderr).toBe(code);
    return result.stdout;
  };

  /** A webhook's attempts, none in flight. */
  const settledLog = async (id: string, count: number) =>
    vi.waitFor(
      async () => {
        const log = JSON.parse(await cli(['deliveries', 'list', id, '--json'])).data as Array<{ id: string; status: string }>;
        expect(log.length === count && log.every((a) => a.status !== 'pending'), JSON.stringify(log)).toBe(true);
        return log;
      },
      { timeout: 30_000, interval: 100 },
    );

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'whsvc-screens-'));
    [sandbox, receiver] = await Promise.all([
      // Retries a minute apart: each failed delivery keeps its retry due while the screens are read.
      // A manual clock: the service's now holds still (relative times read alike in a pipe and a terminal) until moved.
      startSandboxProcess(['--quiet', '--clock', 'manual', '--retry-base-ms', '60000', '--max-attempts', '3']),
      startReceiver((request) => {
        if (request.path.startsWith('/reserializes')) return reserializes(request);
        return String(request.headers.host).startsWith('localhost') ? 500 : 200;
      }),
    ]);
    const port = new URL(receiver.url).port;
    for (const [name, url, events] of [
      ['prod', `http://127.0.0.1:${port}${PATH}`, 'invoice.paid,production_order.completed'],
      ['staging', `http://localhost:${port}${PATH}`, 'invoice.paid,production_order.completed'],
      ['refused', 'http://127.0.0.1:1/hooks', 'invoice.paid'],
      ['idle', `http://127.0.0.1:${port}/idle`, 'product.updated'],
    ] as const) {
      ids[name] = (await createWebhook(user, url, events)).id;
    }
    for (const type of ['invoice.paid', 'production_order.completed', 'invoice.paid']) await trigger(user, type);
    const staging = await settledLog(ids.staging!, 3);
    await settledLog(ids.prod!, 3);
    await settledLog(ids.refused!, 2);
    // A manual retry of a failed delivery: its row reads `2 of dlv_…`, the widest an attempt's row gets.
    await cli(['deliveries', 'retry', staging[0]!.id], 1);
    await settledLog(ids.staging!, 4);
  });

  afterAll(async () => {
    for (const session of sessions) session.close();
    await sandbox?.stop();
    await receiver?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  /** The screens of `commands` (whsvc's arguments), run one after the other in one terminal `columns` wide (NO_COLOR). */
  const screens = async (commands: string[], columns: number): Promise<Shown[]> => {
    const { session, shown } = await shownInOneTerminal(
      commands.map((args) => `${process.execPath} ${WHSVC_BIN} ${args}`),
      { ...env(), TERM: 'xterm-256color', NO_COLOR: '1' },
      { columns, rows: 100 },
    );
    sessions.push(session);
    return shown;
  };
  const titlesOf = (line: string) => line.trim().split(/ {2,}/);

  /**
   * deliveries list: at each width at least the columns the widest rows leave, and those these rows leave room for (at
   * 60, beside `delivered`, the event type and the time: issue 44), each row named by its delivery (the id whole or
   * short) and number, titles and words whole.
   */
  const checkDeliveriesList = (columns: (typeof WIDTHS)[number], screenOf: (name: string) => Shown) => {
    const expected: Record<(typeof WIDTHS)[number], string[]> = {
      132: ['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED', 'ATTEMPT ID'],
      100: ['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED'],
      80: ['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED'],
      60: ['DELIVERY', 'STATUS', 'CODE'],
    };
    for (const name of ['prod', 'staging', 'refused']) {
      const { lines, code } = screenOf(name);
      const shown = `${name} at ${columns}:\n${lines.join('\n')}`;
      expect(code, shown).toBe(0);
      const titles = titlesOf(lines[0]!);
      expect(
        expected[132].filter((title) => titles.includes(title)),
        shown,
      ).toEqual(titles);
      for (const title of expected[columns]) expect(titles, shown).toContain(title);
      if (name === 'prod' && columns === 60) expect(titles, shown).toEqual(['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED']);
      for (const line of lines) expect(line.length, shown).toBeLessThanOrEqual(columns);
      for (const row of lines.slice(1)) {
        expect(row, shown).toMatch(columns >= 100 ? /^dlv_[0-9a-f]{24} #\d+ / : /^dlv_(?:[0-9a-f]{24}|[0-9a-f]{2}…[0-9a-f]{4}) #\d+ /);
        // A relative time is never cut mid-word (`7 seconds a…`): compact, whole.
        expect(row, shown).not.toMatch(/\d+ \w*…/);
      }
      if (name === 'refused') for (const row of lines.slice(1)) expect(row, shown).toMatch(/ {2}no answer( |$)/);
      // A retry by hand: the second attempt of its delivery, its own id whole at the end of its row.
      if (name === 'staging' && columns === 132)
        expect(
          lines.some((row) => /^dlv_[0-9a-f]{24} #2 .* dlv_[0-9a-f]{24}$/.test(row)),
          shown,
        ).toBe(true);
    }
  };

  /** webhooks health: a HEALTH column in words at every width (NO_COLOR), no data for an idle webhook, exit 1. */
  const checkHealth = (columns: (typeof WIDTHS)[number], { lines, code }: Shown) => {
    const expected: Record<(typeof WIDTHS)[number], string[]> = {
      132: ['ID', 'URL', 'HEALTH', 'DELIVERED', 'FAILING STREAK', 'LAST FAILED', 'CODE'],
      // CODE goes with LAST FAILED, which explains it.
      100: ['ID', 'URL', 'HEALTH', 'DELIVERED', 'FAILING STREAK'],
      80: ['ID', 'URL', 'HEALTH', 'DELIVERED'],
      // DELIVERED goes before a host is cut.
      60: ['ID', 'URL', 'HEALTH'],
    };
    const shown = `at ${columns}:\n${lines.join('\n')}`;
    expect(code, shown).toBe(1);
    // At least the columns the widest rows leave; those these rows leave room for too (issue 44).
    const titles = titlesOf(lines[0]!);
    for (const title of expected[columns]) expect(titles, shown).toContain(title);
    expect(titles.includes('CODE'), shown).toBe(titles.includes('LAST FAILED'));
    // The id whole at 132; narrower, whole or in its short form, as the URL and the other columns leave room.
    const row = (name: string) => lines.find((line) => line.startsWith(`${ids[name]!} `) || line.startsWith(`${shortId(ids[name]!)} `)) ?? '';
    if (columns === 132) for (const name of ['prod', 'staging']) expect(row(name).startsWith(`${ids[name]!} `), shown).toBe(true);
    const delivered = (share: string) => (titles.includes('DELIVERED') ? ` {2,}${share}( |$)` : '$');
    expect(row('staging'), shown).toMatch(new RegExp(` {2}unhealthy${delivered('0% of 3')}`));
    expect(row('refused'), shown).toMatch(new RegExp(` {2}unhealthy${delivered('0% of 2')}`));
    expect(row('prod'), shown).toMatch(new RegExp(` {2}healthy${delivered('100% of 3')}`));
    expect(row('idle'), shown).toMatch(new RegExp(` {2}no data${delivered('-')}`));
    // The table's lines fit; the stderr line after it names the unhealthy ones (a terminal wraps it).
    for (const line of lines.slice(0, 5)) expect(line.length, shown).toBeLessThanOrEqual(columns);
    if (titles.at(-1) === 'CODE') expect(row('refused'), shown).toMatch(/ {2}no answer$/);
    if (columns >= 80) {
      // The URL keeps its scheme and host: the production and the staging endpoint read apart.
      expect(row('prod'), shown).toContain(`http://127.0.0.1:${new URL(receiver.url).port}/`);
      expect(row('staging'), shown).toContain(`http://localhost:${new URL(receiver.url).port}/`);
    }
  };

  /** check-receiver: no line wider than the terminal (the screen joined again shows a wrapped one whole), none cut. */
  const checkReceiverReport = (columns: (typeof WIDTHS)[number], { lines, code }: Shown) => {
    const shown = `at ${columns}:\n${lines.join('\n')}`;
    expect(code, shown).toBe(1);
    for (const line of lines) expect(line.length, shown).toBeLessThanOrEqual(columns);
    expect(
      lines.filter((line) => /^(pass|fail) {2}\d {2}/.test(line)),
      shown,
    ).toHaveLength(9);
    expect(
      lines.filter((line) => /^ {9}likely cause: /.test(line)),
      shown,
    ).toHaveLength(4);
    expect(lines.at(-1), shown).toBe('5 of 9 checks passed; failed: 3–6');
    expect(lines.join(' '), shown).toContain(`http://127.0.0.1:${new URL(receiver.url).port}/check`);
  };

  /** webhooks list: the scheme and the host whole at every width, the path losing its middle. */
  const checkList = (columns: (typeof WIDTHS)[number], { lines }: Shown) => {
    const port = new URL(receiver.url).port;
    const shown = `at ${columns}:\n${lines.join('\n')}`;
    for (const line of lines) expect(line.length, shown).toBeLessThanOrEqual(columns);
    expect(
      lines.find((line) => line.includes(`http://127.0.0.1:${port}/`) && line.includes('/invoices')),
      shown,
    ).toBeDefined();
    expect(
      lines.find((line) => line.includes(`http://localhost:${port}/`) && line.includes('/invoices')),
      shown,
    ).toBeDefined();
    expect(
      lines.some((line) => line.includes('http://127.0.0.1:1/hooks')),
      shown,
    ).toBe(true);
  };

  /**
   * check-receiver against a receiver that verifies re-serialized JSON: check 2's cause and fix laid out under their
   * label (each continuation 11 in), no line wider than the terminal, the report's words those of a pipe, none cut.
   */
  const checkReceiverCause = (columns: (typeof WIDTHS)[number], { lines, code }: Shown, pipe: CliResult) => {
    const report = lines.slice(lines.findIndex((line) => /^(pass|fail) {2}1 {2}/.test(line)));
    const shown = `at ${columns}:\n${report.join('\n')}\n--- in a pipe:\n${pipe.stdout}`;
    expect(code, shown).toBe(1);
    expect(widerLines(report.join('\n'), columns), shown).toEqual([]);
    expect(sameWords(report.join('\n'), pipe.stdout), shown).toBe(true);
    const cause = report.findIndex((line) => line.startsWith('         cause (tested): it verifies the JSON written again'));
    const fix = report.findIndex((line) => line.startsWith('         fix: compute the HMAC over the raw body'));
    const next = report.findIndex((line) => line.startsWith('pass  3  '));
    expect([cause > 0, fix > cause, next > fix], shown).toEqual([true, true, true]);
    // Continued under the text after the label: at 60 and 80 the fix takes more than one line.
    for (const line of [...report.slice(cause + 1, fix), ...report.slice(fix + 1, next)]) expect(line, shown).toMatch(/^ {11}\S/);
    if (columns <= 80) expect(next - fix, shown).toBeGreaterThan(1);
  };

  it('at 60, 80, 100 and 132 columns, one terminal each: deliveries list, webhooks health, webhooks list and check-receiver, their columns and words whole', async () => {
    const names = ['prod', 'staging', 'refused'];
    const secretFile = join(configDir, 'whsec.txt');
    writeFileSync(secretFile, `${CHECK_SECRET}\n`);
    const port = new URL(receiver.url).port;
    const checkReceiver = `check-receiver http://127.0.0.1:${port}/check --secret-file ${secretFile}`;
    const refusing = ['check-receiver', `http://127.0.0.1:${port}/reserializes`, '--secret-file', secretFile];
    const commands = [...names.map((name) => `deliveries list ${ids[name]}`), 'webhooks health', 'webhooks list', checkReceiver, refusing.join(' ')];
    const refusingInAPipe = await user(refusing);
    // The widths' terminals side by side: each its own session.
    const byWidth = await Promise.all(WIDTHS.map((columns) => screens(commands, columns)));
    for (const [i, columns] of WIDTHS.entries()) {
      const shown = byWidth[i]!;
      await step(`deliveries list at ${columns}`, () => checkDeliveriesList(columns, (name) => shown[names.indexOf(name)]!));
      await step(`webhooks health at ${columns}`, () => checkHealth(columns, shown[3]!));
      await step(`webhooks list at ${columns}`, () => checkList(columns, shown[4]!));
      await step(`check-receiver at ${columns}`, () => checkReceiverReport(columns, shown[5]!));
      await step(`check-receiver's cause and fix at ${columns}`, () => checkReceiverCause(columns, shown[6]!, refusingInAPipe));
    }
  });

  /** What a terminal `columns` wide showed of a command: no line wider, its words the pipe's (stdout and stderr). */
  const laidOutAsInAPipe = (columns: number, { lines, code }: Shown, pipe: CliResult, terminalOnly?: RegExp) => {
    const text = lines.join('\n');
    const shown = `at ${columns}:\n${text}\n--- in a pipe:\n${pipe.stdout}${pipe.stderr}`;
    expect(code, shown).toBe(pipe.code);
    expect(widerLines(text, columns), shown).toEqual([]);
    expect(sameWords(terminalOnly ? text.replace(terminalOnly, '') : text, `${pipe.stdout}\n${pipe.stderr}`, true), shown).toBe(true);
  };

  /** A long-running command in a terminal `columns` wide of its own, once it shows `ready` (the screen joined again). */
  const going = async (args: string, columns: number, ready: RegExp) => {
    const session = new TmuxSession(`${process.execPath} ${WHSVC_BIN} ${args}`, { ...env(), TERM: 'xterm-256color', NO_COLOR: '1' }, { columns, rows: 60 });
    sessions.push(session);
    return { session, ready: ready.exec(await session.waitFor(ready, 20_000, true))! };
  };

  it('issue 44 at 60, 80 and 132 columns: login, show, diagnose, send, errors, the clock and the banner laid out, no word broken', async () => {
    const port = new URL(receiver.url).port;
    const secretFile = join(configDir, 'signed.txt');
    const clientSecretFile = join(configDir, 'client-secret.txt');
    writeFileSync(clientSecretFile, sandbox.info.client_secret);
    const signed = await createWebhook(user, `http://127.0.0.1:${port}/signed`, 'product.updated', ['--secret-file', secretFile]);
    await trigger(user, 'product.updated');
    const [delivery] = await settledLog(signed.id, 1);
    const commands: Array<[string, string[], string?]> = [
      [
        `login --profile screens --client-id ${sandbox.info.client_id} --client-secret-stdin < ${clientSecretFile}`,
        ['login', '--profile', 'screens', '--client-id', sandbox.info.client_id, '--client-secret-stdin'],
        sandbox.info.client_secret,
      ],
      [`deliveries show ${delivery!.id}`, ['deliveries', 'show', delivery!.id]],
      [`deliveries diagnose ${delivery!.id} --secret-file ${secretFile}`, ['deliveries', 'diagnose', delivery!.id, '--secret-file', secretFile]],
      [`send http://127.0.0.1:${port}/signed --secret-file ${secretFile}`, ['send', `http://127.0.0.1:${port}/signed`, '--secret-file', secretFile]],
      [
        `deliveries tail --secret-file ${secretFile} --forward-to http://127.0.0.1:9/app`,
        ['deliveries', 'tail', '--secret-file', secretFile, '--forward-to', 'http://127.0.0.1:9/app'],
      ],
      ['webhooks list --format json', ['webhooks', 'list', '--format', 'json']],
    ];
    const pipes: CliResult[] = [];
    for (const [, args, input] of commands) pipes.push(await user(args, input === undefined ? {} : { input }));
    const byWidth = await Promise.all(
      LINE_WIDTHS.map((columns) =>
        screens(
          commands.map(([line]) => line),
          columns,
        ),
      ),
    );
    for (const [i, columns] of LINE_WIDTHS.entries()) {
      for (const [n, [line]] of commands.entries()) await step(`${line} at ${columns}`, () => laidOutAsInAPipe(columns, byWidth[i]![n]!, pipes[n]!));
    }

    // The clock's move: what it sent once, nothing after; each terminal's own line says it is moving.
    const moved = await user(['sandbox', 'clock', 'advance', '1h']);
    const nothingMore = await user(['sandbox', 'clock', 'advance', '1h']);
    expect(moved.stdout, moved.stderr).toMatch(/^Moved the sandbox's clock from /);
    for (const columns of LINE_WIDTHS) {
      const [shown] = await screens(['sandbox clock advance 1h'], columns);
      await step(`sandbox clock advance at ${columns}`, () => laidOutAsInAPipe(columns, shown!, nothingMore, /^Moving [^…]*…/));
    }

    // The banner: each client secret whole, on a line; the commands broken as a shell reads them back.
    const banner = await startWhsvcUntil(['sandbox', 'start', '--port', '0'], /Ctrl-C stops it\n/, 'sandbox start', env());
    await banner.stop('SIGINT');
    const started = await Promise.all(LINE_WIDTHS.map((columns) => going('sandbox start --port 0', columns, /[\s\S]*Ctrl-C stops it/)));
    for (const [i, columns] of LINE_WIDTHS.entries()) {
      const text = started[i]!.ready[0];
      await step(`the banner at ${columns}`, () => {
        const shown = `at ${columns}:\n${text}`;
        expect(widerLines(text, columns), shown).toEqual([]);
        expect(sameWords(text, banner.stderr().replace(/\n.*stopping.*\n$/, '\n')), `${shown}\n--- in a pipe:\n${banner.stderr()}`).toBe(true);
        expect(text.match(/(?:^| )sbx_secret_[\w-]+$/gm), shown).toHaveLength(2);
      });
      started[i]!.session.press('C-c');
    }
  });

  it('issue 44 at 60, 80 and 132 columns: tail --forward-to and listen lines no wider than the terminal, their words whole', async () => {
    const port = new URL(receiver.url).port;
    const secretFile = join(configDir, 'forwarded.txt');
    const forwarded = await createWebhook(user, `http://127.0.0.1:${port}/forwarded`, 'product.updated', ['--secret-file', secretFile]);
    const app = 'http://127.0.0.1:9/app/webhooks/receive';
    const tailArgs = ['--webhook', forwarded.id, '--forward-to', app, '--secret-file', secretFile];
    const pipes: Running[] = [await startTail(tailArgs, env()), await startListen(['--forward-to', app], env())];
    const [tailPipe, listenPipe] = pipes;
    try {
      const tails = await Promise.all(LINE_WIDTHS.map((columns) => going(`deliveries tail ${tailArgs.join(' ')}`, columns, /following/)));
      const listeners = await Promise.all(LINE_WIDTHS.map((columns) => going(`listen --port 0 --forward-to ${app}`, columns, /ready at (http:\/\/\S+)/)));
      await trigger(user, 'product.updated');
      // Signed, with no secret to check it by: forwarded unchecked, to an app that is down.
      for (const url of [(listenPipe as Awaited<ReturnType<typeof startListen>>).url, ...listeners.map(({ ready }) => ready[1]!)]) {
        expect((await user(['send', url, '--event', 'product.updated', '--secret-file', secretFile])).code).toBe(1);
      }
      const forwardLine = / app down /;
      const piped = {
        tail: await tailPipe!.until(
          () =>
            tailPipe!
              .stdout()
              .split('\n')
              .find((line) => forwardLine.test(line)),
          'the forward line',
        ),
        listen: await listenPipe!.until(
          () =>
            listenPipe!
              .stdout()
              .split('\n')
              .find((line) => / -> 502 /.test(line)),
          'the receipt line',
        ),
      };
      for (const [i, columns] of LINE_WIDTHS.entries()) {
        for (const [what, session, line] of [
          ['tail --forward-to', tails[i]!.session, /^.*→ app down.*$|^.* app down .*$/m],
          ['listen', listeners[i]!.session, /^.* -> 502 .*$/m],
        ] as const) {
          const screen = await session.waitFor(line, 30_000, true);
          await step(`${what} at ${columns}`, () => {
            const shown = `at ${columns}:\n${screen}`;
            expect(widerLines(screen.trimEnd(), columns), shown).toEqual([]);
            const whole = what === 'listen' ? piped.listen : piped.tail;
            expect(onlyWholeWords(line.exec(screen)![0], whole), `${shown}\n--- in a pipe:\n${whole}`).toBe(true);
          });
        }
      }
    } finally {
      for (const running of pipes) await running.stop('SIGINT');
    }
  });
});
