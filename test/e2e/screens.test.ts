import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WHSVC_BIN, cliWith, createWebhook, sandboxEnv, startSandboxProcess, trigger, type SandboxProcess } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';

// Issue 35, "tables and lines that hold still", in a real terminal at the widths a user tries: the same command at
// the same width shows the same columns whatever the rows, ids whole or in their one short form, hosts whole, no
// title or word cut, and health's verdict in words (NO_COLOR).
//   prod     http://127.0.0.1:PORT/api/v2/webhooks/erp/invoices   answers 200
//   staging  http://localhost:PORT/api/v2/webhooks/erp/invoices   the same path on another host; answers 500
//   refused  http://127.0.0.1:1/hooks                             no answer: connection refused
//   idle     subscribed to an event never triggered: no data

const describeInTerminal = hasTmux || process.env.CI ? describe : describe.skip;
const WIDTHS = [60, 80, 100, 132] as const;
const PATH = '/api/v2/webhooks/erp/invoices';

describeInTerminal('screens that hold still, in a real terminal (tmux)', () => {
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

  /** The command's lines on a terminal `columns` wide, unwrapped (a line longer than the terminal shows whole), and its exit code. */
  const screen = async (args: string, columns: number) => {
    const session = new TmuxSession(`${process.execPath} ${WHSVC_BIN} ${args}`, { ...env(), TERM: 'xterm-256color', NO_COLOR: '1' }, { columns, rows: 100 });
    sessions.push(session);
    await session.waitFor(/EXIT=\d+/);
    const lines = session.screen(false, true).split('\n');
    const end = lines.findIndex((line) => line.startsWith('EXIT='));
    return { lines: lines.slice(0, end).filter((line) => line.trim() !== ''), code: Number(lines[end]!.slice('EXIT='.length)) };
  };
  const titlesOf = (line: string) => line.trim().split(/ {2,}/);
  const ID = /^(dlv|wh)_[0-9a-f]{24}$/;

  it('deliveries list: at each width the same columns for every webhook, ids whole, titles and words whole', async () => {
    const expected: Record<(typeof WIDTHS)[number], string[]> = {
      132: ['ID', 'EVENT', 'STATUS', 'CODE', 'ATTEMPT', 'CREATED'],
      100: ['ID', 'EVENT', 'STATUS', 'CODE', 'CREATED'],
      80: ['ID', 'EVENT', 'STATUS', 'CODE'],
      60: ['ID', 'STATUS', 'CODE'],
    };
    for (const columns of WIDTHS) {
      for (const name of ['prod', 'staging', 'refused']) {
        const { lines, code } = await screen(`deliveries list ${ids[name]}`, columns);
        const shown = `${name} at ${columns}:\n${lines.join('\n')}`;
        expect(code, shown).toBe(0);
        expect(titlesOf(lines[0]!), shown).toEqual(expected[columns]);
        for (const line of lines) expect(line.length, shown).toBeLessThanOrEqual(columns);
        for (const row of lines.slice(1)) {
          expect(row.split(' ')[0], shown).toMatch(ID);
          // A relative time is never cut mid-word (`7 seconds a…`): compact, whole.
          expect(row, shown).not.toMatch(/\d+ \w*…/);
        }
        if (name === 'refused') for (const row of lines.slice(1)) expect(row, shown).toMatch(/ {2}no answer( |$)/);
        if (name === 'staging' && columns === 132)
          expect(
            lines.some((row) => / 2 of dlv_[0-9a-f]{24} /.test(row)),
            shown,
          ).toBe(true);
      }
    }
  });

  it('webhooks health: a HEALTH column in words at every width (NO_COLOR), no data for an idle webhook, exit 1', async () => {
    const expected: Record<(typeof WIDTHS)[number], string[]> = {
      132: ['ID', 'URL', 'HEALTH', 'DELIVERED', 'FAILING STREAK', 'LAST FAILED', 'CODE'],
      100: ['ID', 'HEALTH', 'DELIVERED', 'FAILING STREAK', 'LAST FAILED', 'CODE'],
      80: ['ID', 'HEALTH', 'DELIVERED', 'FAILING STREAK', 'CODE'],
      60: ['ID', 'HEALTH', 'DELIVERED'],
    };
    for (const columns of WIDTHS) {
      const { lines, code } = await screen('webhooks health', columns);
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
    }
  });

  it('webhooks list: the scheme and the host whole at every width, the path losing its middle', async () => {
    const port = new URL(receiver.url).port;
    for (const columns of WIDTHS) {
      const { lines } = await screen('webhooks list', columns);
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
    }
  });
});
