import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WHSVC_BIN, cliWith, createWebhook, sandboxEnv, startSandboxProcess, trigger, type SandboxProcess } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { GATHERED_TIMEOUT, step } from '../helpers/steps.js';
import { type Shown, type TmuxSession, hasTmux, shownInOneTerminal } from '../helpers/tmux.js';

// Issue 35, "tables and lines that hold still", in a real terminal at the widths a user tries: the same command at
// the same width shows the same columns whatever the rows, ids whole or in their one short form, hosts whole, no
// title or word cut, and health's verdict in words (NO_COLOR). And check-receiver's report (issue 43), against the
// receiver at /check, which takes every delivery: its lines broken between words with their indent kept.
//   prod     http://127.0.0.1:PORT/api/v2/webhooks/erp/invoices   answers 200
//   staging  http://localhost:PORT/api/v2/webhooks/erp/invoices   the same path on another host; answers 500
//   refused  http://127.0.0.1:1/hooks                             no answer: connection refused
//   idle     subscribed to an event never triggered: no data

const describeInTerminal = hasTmux || process.env.CI ? describe : describe.skip;
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
      startSandboxProcess(['--quiet', '--retry-base-ms', '60000', '--max-attempts', '3']),
      startReceiver((request) => (String(request.headers.host).startsWith('localhost') ? 500 : 200)),
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

  /** deliveries list: at each width the same columns for every webhook, each row named by its delivery (the id whole or short) and number, titles and words whole. */
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
      expect(titlesOf(lines[0]!), shown).toEqual(expected[columns]);
      for (const line of lines) expect(line.length, shown).toBeLessThanOrEqual(columns);
      for (const row of lines.slice(1)) {
        expect(row, shown).toMatch(columns >= 100 ? /^dlv_[0-9a-f]{24} #\d+ / : /^dlv_[0-9a-f]{2}…[0-9a-f]{4} #\d+ /);
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
      100: ['ID', 'HEALTH', 'DELIVERED', 'FAILING STREAK', 'LAST FAILED', 'CODE'],
      80: ['ID', 'HEALTH', 'DELIVERED', 'FAILING STREAK', 'CODE'],
      60: ['ID', 'HEALTH', 'DELIVERED'],
    };
    const shown = `at ${columns}:\n${lines.join('\n')}`;
    expect(code, shown).toBe(1);
    expect(titlesOf(lines[0]!), shown).toEqual(expected[columns]);
    const row = (name: string) => lines.find((line) => line.startsWith(`${ids[name]} `)) ?? '';
    expect(row('staging'), shown).toMatch(/ {2}unhealthy {2}0% of 3( |$)/);
    expect(row('refused'), shown).toMatch(/ {2}unhealthy {2}0% of 2( |$)/);
    expect(row('prod'), shown).toMatch(/ {2}healthy {4}100% of 3( |$)/);
    expect(row('idle'), shown).toMatch(/ {2}no data {4}-( |$)/);
    // The table's lines fit; the stderr line after it names the unhealthy ones (a terminal wraps it).
    for (const line of lines.slice(0, 5)) expect(line.length, shown).toBeLessThanOrEqual(columns);
    if (columns >= 80) expect(row('refused'), shown).toMatch(/ {2}no answer$/);
    if (columns === 132) {
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
    expect(lines.at(-1), shown).toBe('5 of 9 checks passed; failed: 3, 4, 5, 6');
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

  it('at 60, 80, 100 and 132 columns, one terminal each: deliveries list, webhooks health, webhooks list and check-receiver, their columns and words whole', async () => {
    const names = ['prod', 'staging', 'refused'];
    const secretFile = join(configDir, 'whsec.txt');
    writeFileSync(secretFile, 'whsec_screens\n');
    const checkReceiver = `check-receiver http://127.0.0.1:${new URL(receiver.url).port}/check --secret-file ${secretFile}`;
    const commands = [...names.map((name) => `deliveries list ${ids[name]}`), 'webhooks health', 'webhooks list', checkReceiver];
    // The widths' terminals side by side: each its own session.
    const byWidth = await Promise.all(WIDTHS.map((columns) => screens(commands, columns)));
    for (const [i, columns] of WIDTHS.entries()) {
      const shown = byWidth[i]!;
      await step(`deliveries list at ${columns}`, () => checkDeliveriesList(columns, (name) => shown[names.indexOf(name)]!));
      await step(`webhooks health at ${columns}`, () => checkHealth(columns, shown[3]!));
      await step(`webhooks list at ${columns}`, () => checkList(columns, shown[4]!));
      await step(`check-receiver at ${columns}`, () => checkReceiverReport(columns, shown[5]!));
    }
  });
});
