import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, cliWith, createWebhook, sandboxEnv, startSandboxProcess, trigger, type SandboxProcess } from '../helpers/cli.js';
import { postDelivery, signatureOf } from '../helpers/delivery.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { GATHERED_TIMEOUT, step } from '../helpers/steps.js';
import { type Shown, TmuxSession, hasTmux, shownInOneTerminal } from '../helpers/tmux.js';
import { shortId } from '../../src/render/width.js';

// whsvc in a real terminal: its prompts answered, its prompts cut by Ctrl-C, and its tables and lines laid out for
// the terminal's width. Each test walks several sessions in turn, each check a named step. --no-input on a terminal
// asks nothing: test/unit/commands/webhooks/create-flags.test.ts (the factory refuses before its run could ask).

// CI installs tmux (.ci/run); elsewhere these tests need it on the machine.
const describeInTerminal = hasTmux || process.env.CI ? describe : describe.skip;

describeInTerminal('in a real terminal (tmux)', { timeout: GATHERED_TIMEOUT }, () => {
  let sandbox: SandboxProcess;
  let receiver: Receiver;
  let configDir: string;
  const sessions: TmuxSession[] = [];

  beforeAll(async () => {
    [sandbox, receiver] = await Promise.all([startSandboxProcess(['--quiet']), startReceiver()]);
    configDir = mkdtempSync(join(tmpdir(), 'whsvc-tty-'));
  });

  afterAll(async () => {
    for (const session of sessions) session.close();
    await sandbox?.stop();
    await receiver?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  const open = (args: string) => {
    const session = new TmuxSession(`${process.execPath} ${WHSVC_BIN} ${args}`, {
      WHSVC_CONFIG_DIR: configDir,
      WHSVC_BASE_URL: sandbox.info.base_url,
      TERM: 'xterm-256color',
    });
    sessions.push(session);
    return session;
  };

  /** A terminal's environment with credentials and no colour (a table's words, a screen's selection by its marker). */
  const terminalEnv = () => ({
    WHSVC_CONFIG_DIR: configDir,
    WHSVC_BASE_URL: sandbox.info.base_url,
    WHSVC_CLIENT_ID: sandbox.info.client_id,
    WHSVC_CLIENT_SECRET: sandbox.info.client_secret,
    TERM: 'xterm-256color',
    NO_COLOR: '1',
  });

  const token = () =>
    fetch(`${sandbox.info.base_url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: sandbox.info.client_id, client_secret: sandbox.info.client_secret }),
    }).then((r) => r.json() as Promise<{ access_token: string }>);

  /** A webhook made on the service directly, to the receiver at `path`. */
  const postWebhook = async (path: string, events: string[]) => {
    const { access_token } = await token();
    return fetch(`${sandbox.info.base_url}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ url: `${receiver.url}${path}`, events }),
    }).then((r) => r.json() as Promise<{ id: string }>);
  };

  it('asks on a terminal: login the client id and a masked secret, never shown; webhooks create the url and the events as a checklist, in colour; webhooks delete to confirm', async () => {
    await step('login asks for the client id and a masked secret, and never shows it', async () => {
      const session = open('login');
      await session.waitFor(/Client ID/);
      session.type(sandbox.info.client_id);
      session.press('Enter');
      await session.waitFor(/Client secret/);
      session.type(sandbox.info.client_secret);
      await session.waitFor(/\*{10,}/);
      expect(session.screen()).not.toContain(sandbox.info.client_secret);
      session.press('Enter');
      const screen = await session.waitFor(/EXIT=\d+/);
      expect(screen).toContain('EXIT=0');
      expect(screen).toContain(`Logged in to ${sandbox.info.base_url} as ${sandbox.info.client_id}`);
      expect(screen).not.toContain(sandbox.info.client_secret);
    });

    await step('webhooks create asks for the url and offers the catalog as a checklist; colour on the terminal', async () => {
      const session = open('webhooks create');
      await session.waitFor(/Endpoint URL/);
      session.type('not a url');
      session.press('Enter');
      await session.waitFor(/the URL must not contain spaces/);
      session.press('C-u');
      // A URL the service would refuse is asked again, before the checklist (whose answers it would lose).
      session.type('http://example.com/hooks');
      session.press('Enter');
      await session.waitFor(/the URL must use https/);
      session.press('C-u');
      session.type(`${receiver.url}/tty`);
      session.press('Enter');
      const checklist = await session.waitFor(/Events to subscribe to/);
      expect(checklist).toContain('invoice.paid');
      expect(checklist).toContain('product.updated');
      session.press('Space');
      session.press('Enter');
      const screen = await session.waitFor(/EXIT=\d+/);
      expect(screen).toContain('EXIT=0');
      expect(screen).toMatch(/events\s+product\.updated/);
      // The checklist's answer line names the type chosen, not its description.
      expect(screen).toMatch(/Events to subscribe to product\.updated$/m);
      expect(screen).not.toContain('(products:');
      expect(screen).toMatch(/signing secret\s+whsec_/);
      // Colour reaches a terminal (and only a terminal: the subprocess tests see none).
      expect(session.screen(true)).toMatch(/\u001b\[[0-9;]*m/);
    });

    await step('webhooks delete asks to confirm on a terminal', async () => {
      const webhook = await postWebhook('/del', ['invoice.paid']);
      const session = open(`webhooks delete ${webhook.id}`);
      // Named by its URL too, which is how people know it.
      await session.waitFor(new RegExp(`Delete webhook ${webhook.id} \\(${receiver.url.replace(/[.]/g, '\\.')}/del\\)\\?`));
      session.type('y');
      session.press('Enter');
      const screen = await session.waitFor(/EXIT=\d+/);
      expect(screen).toContain('EXIT=0');
      expect(screen).toContain(`Deleted webhook ${webhook.id}`);
    });
  });

  it('at 80 and 60 columns: webhooks list --all, deliveries list, deliveries tail and listen, events and --help fit, ids short or whole as the width allows, statuses whole', async () => {
    const env = terminalEnv();
    const whsvc = (args: string) => `${process.execPath} ${WHSVC_BIN} ${args}`;
    /** What each of `commands` (whsvc's arguments) showed, run one after the other in one terminal `columns` wide. */
    const shownAt = async (columns: number, commands: string[]): Promise<Shown[]> => {
      const { session, shown } = await shownInOneTerminal(commands.map(whsvc), env, { columns, rows: 200 });
      sessions.push(session);
      return shown;
    };
    const cli = cliWith(sandboxEnv(sandbox.info, configDir));

    // Four webhooks, two of them with URLs too long for 60 columns, listed two to a page.
    const ids: string[] = [];
    for (const path of ['/w', '/a-much-longer-path/for/a/webhook/that/will/not/fit', '/x', '/another/long/path/on/the/third/page/of/it']) {
      ids.push((await postWebhook(path, ['invoice.paid', 'sales_order.created'])).id);
    }

    // listen at 80, in a terminal of its own: it waits for two deliveries.
    const secretFile = join(configDir, 'listen-80.txt');
    const listen = new TmuxSession(whsvc(`listen --port 0 --secret-file ${secretFile} --count 2 --timeout 60`), env, { columns: 80, rows: 200 });
    sessions.push(listen);
    const ready = await listen.waitFor(/ready at (http:\/\/\S+)/);
    const listenUrl = /ready at (http:\/\/\S+)/.exec(ready)![1]!;
    const webhookId = (await createWebhook(cli, `${listenUrl}/hooks`, 'invoice.paid,production_order.completed', ['--secret-file', secretFile])).id;
    for (const event of ['invoice.paid', 'production_order.completed']) expect((await cli(['test', webhookId, '--event', event])).code).toBe(0);
    await listen.waitFor(/EXIT=\d+/);
    const listened = listen.screen(false, true).split('\n');
    const received = listened.filter((line) => /^\d\d:\d\d:\d\d {2}/.test(line));
    await step('listen at 80', () => {
      expect(received, listened.join('\n')).toHaveLength(2);
      for (const line of received) expect(line.length, line).toBeLessThanOrEqual(80);
      for (const line of received) expect(line).toMatch(/ dlv_\S*…\S* #1 +verified +-> 200( |$)/);
    });

    // A delivery failed and retried by hand, and one that failed with its retry due: the longest statuses shown, whole.
    receiver.respondWith = (request) => (request.path === '/narrow-down' || request.path === '/tail-80' ? 500 : 200);
    try {
      const failedId = (await createWebhook(cli, `${receiver.url}/narrow-down`)).id;
      const first = JSON.parse((await cli(['test', failedId, '--json'])).stdout);
      expect((await cli(['deliveries', 'retry', first.id])).code).toBe(1);
      const failing = (await createWebhook(cli, `${receiver.url}/tail-80`, 'production_order.completed')).id;
      expect((await cli(['test', failing, '--event', 'production_order.completed'])).code).toBe(1);
      const tail = `deliveries tail --webhook ${webhookId} --webhook ${failing} --since 1h --count 3`;

      const [at80, at60] = await Promise.all([
        shownAt(80, [`deliveries list ${failedId}`, tail]),
        shownAt(60, ['webhooks list --all --limit 2', `deliveries list ${failedId}`, tail, 'events', '--help', 'webhooks create --help']),
      ]);
      const [list80, tail80] = at80.map((shown) => shown.lines);
      const [webhooks60, list60, tail60, events60, help60, createHelp60] = at60.map((shown) => shown.lines);

      await step('webhooks list --all at 60: rows fit, long cells end in …, ids in their short form (hosts whole), every page under one header', () => {
        const lines = webhooks60!;
        expect(lines.filter((line) => line.startsWith('ID '))).toHaveLength(1);
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60);
        for (const id of ids) expect(lines.some((line) => line.startsWith(`${shortId(id)} `))).toBe(true);
        expect(lines.some((line) => line.includes('…'))).toBe(true);
        // Every row's STATUS starts where the header's does, whichever page it came on.
        const statusColumn = lines[0]!.indexOf('STATUS');
        for (const line of lines.slice(1)) expect(line.slice(statusColumn), line).toMatch(/^(active|paused)( |$)/);
      });

      await step('deliveries list at 80 columns: rows fit; each named by its delivery and number; the status with its retry due whole', () => {
        const lines = list80!;
        // The columns follow from the width alone: at 80, EVENT stays, though every attempt here is of invoice.paid.
        expect(lines[0]).toMatch(/^DELIVERY +EVENT +STATUS +CODE +CREATED$/);
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
        // The newest attempt of the failed delivery says when its automatic retry is due, whole; the first is failed alone.
        // Its id whole where these rows leave room for it (issue 44), else short.
        expect(
          lines.find((line) => line.startsWith(`${first.id} #1 `) || line.startsWith(`${shortId(first.id)} #1 `)),
          lines.join('\n'),
        ).toMatch(/ +failed +500( |$)/);
        expect(
          lines.some((line) => / +failed · retry due +500( |$)/.test(line)),
          lines.join('\n'),
        ).toBe(true);
      });

      await step('deliveries list at 60 columns: the attempt, the time and the event type are left out rather than wrap the rows or cut the status', () => {
        const narrowest = list60!;
        expect(narrowest[0], narrowest.join('\n')).toMatch(/^DELIVERY +(EVENT +)?STATUS +CODE( +CREAT\S*)?$/);
        for (const line of narrowest) expect(line.length, line).toBeLessThanOrEqual(60);
        expect(
          narrowest.find((line) => line.startsWith(`${first.id} #1 `) || line.startsWith(`${shortId(first.id)} #1 `)),
          narrowest.join('\n'),
        ).toMatch(/ failed +500( |$)/);
        expect(
          narrowest.some((line) => / failed · retry due +500( |$)/.test(line)),
          narrowest.join('\n'),
        ).toBe(true);
      });

      await step('deliveries tail at 80 columns: each line fits, the ids lose their middle, the status stays whole', () => {
        const lines = tail80!;
        const attempts = lines.filter((line) => /^\d\d:\d\d:\d\d {2}/.test(line));
        expect(attempts, lines.join('\n')).toHaveLength(3);
        for (const line of attempts) expect(line.length, line).toBeLessThanOrEqual(80);
        expect(
          attempts.some((line) => / failed · retry due \d\d:\d\d:\d\d +500 +dlv_/.test(line)),
          attempts.join('\n'),
        ).toBe(true);
        // The delivery ids in their short form, and the webhook in its short form (two webhooks' deliveries told apart), on every line alike.
        for (const line of attempts) expect(line).toMatch(/ dlv_\S*…\S* #1$/);
        expect(
          attempts.filter((line) => /^\S+ {2}wh_\S*…\S* {2}/.test(line)),
          attempts.join('\n'),
        ).toHaveLength(3);
      });

      await step(
        'deliveries tail at 60 columns: the time (no seconds), the status its words whole without its time of day, the code, the delivery (issue 44)',
        () => {
          const narrowest = tail60!.filter((line) => /^\d\d:\d\d {2}/.test(line));
          expect(narrowest, tail60!.join('\n')).toHaveLength(3);
          for (const line of narrowest) expect(line.length, line).toBeLessThanOrEqual(60);
          expect(
            narrowest.some((line) => /^\S+ {2}failed · retry due +500 +dlv_\S* #1$/.test(line)),
            narrowest.join('\n'),
          ).toBe(true);
        },
      );

      await step('events at 60: the descriptions are shortened, not wrapped under the module column', () => {
        const lines = events60!;
        expect(lines[0]).toMatch(/^MODULE +EVENT +DESCRIPTION$/);
        expect(lines).toHaveLength(6);
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60);
        expect(lines.some((line) => /production_order\.completed {2}\S/.test(line))).toBe(true);
      });

      await step('--help at 60 is laid out for the terminal, at the top level and for a command', () => {
        for (const [args, lines] of [
          ['--help', help60!],
          ['webhooks create --help', createHelp60!],
        ] as const) {
          expect(
            lines.some((line) => line.startsWith('Usage: whsvc')),
            args,
          ).toBe(true);
          // Example commands are for copying: they are never wrapped, whatever the width.
          const prose = lines.slice(
            0,
            lines.findIndex((line) => /^Examples?:$/.test(line)),
          );
          expect(prose.length, args).toBeGreaterThan(10);
          for (const line of prose) expect(line.length, `${args}: ${line}`).toBeLessThanOrEqual(60);
        }
      });
    } finally {
      receiver.respondWith = () => 200;
    }
  });

  it('Ctrl-C at a prompt: exit 130, one short line, nothing written: no profile stored at login, no webhook created at the checklist, the webhook kept at the delete confirmation', async () => {
    const interrupted = (screen: string) => {
      expect(screen).toContain('EXIT=130');
      expect(screen).toContain('whsvc: interrupted');
      expect(screen).not.toMatch(/unexpected error|ExitPromptError|force closed/i);
    };

    await step('at the login prompts: no profile is stored', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'whsvc-tty-int-'));
      const session = new TmuxSession(`${process.execPath} ${WHSVC_BIN} login --profile cut`, {
        WHSVC_CONFIG_DIR: dir,
        WHSVC_BASE_URL: sandbox.info.base_url,
        TERM: 'xterm-256color',
      });
      sessions.push(session);
      await session.waitFor(/Client ID/);
      session.type(sandbox.info.client_id);
      session.press('Enter');
      await session.waitFor(/Client secret/);
      session.press('C-c');
      interrupted(await session.waitFor(/EXIT=\d+/));
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
      rmSync(dir, { recursive: true, force: true });
    });

    await step('at the create checklist: no webhook is created', async () => {
      const before = await fetch(`${sandbox.info.base_url}/v1/webhooks?limit=200`, {
        headers: { authorization: `Bearer ${(await token()).access_token}` },
      }).then((r) => r.json() as Promise<{ data: unknown[] }>);
      const session = open('webhooks create');
      await session.waitFor(/Endpoint URL/);
      session.type(`${receiver.url}/cut`);
      session.press('Enter');
      await session.waitFor(/Events to subscribe to/);
      session.press('C-c');
      interrupted(await session.waitFor(/EXIT=\d+/));
      const after = await fetch(`${sandbox.info.base_url}/v1/webhooks?limit=200`, {
        headers: { authorization: `Bearer ${(await token()).access_token}` },
      }).then((r) => r.json() as Promise<{ data: unknown[] }>);
      expect(after.data.length).toBe(before.data.length);
    });

    await step('at the delete confirmation: the webhook is kept', async () => {
      const { access_token } = await token();
      const webhook = await postWebhook('/keep', ['invoice.paid']);
      const session = open(`webhooks delete ${webhook.id}`);
      await session.waitFor(new RegExp(`Delete webhook ${webhook.id} \\(`));
      session.press('C-c');
      interrupted(await session.waitFor(/EXIT=\d+/));
      const still = await fetch(`${sandbox.info.base_url}/v1/webhooks/${webhook.id}`, { headers: { authorization: `Bearer ${access_token}` } });
      expect(still.status).toBe(200);
    });
  });

  /** The whsvc of a terminal of its own, `columns` by `rows` (terminalEnv). */
  const screenSession = (args: string, size: { columns: number; rows: number }) => {
    const session = new TmuxSession(`${process.execPath} ${WHSVC_BIN} ${args}`, terminalEnv(), size);
    sessions.push(session);
    return session;
  };
  /** A screen's rows of deliveries: the selected one marked `> `, each starting with its time. */
  const rowsOf = (screen: string) => screen.split('\n').filter((line) => /^[> ] \d\d:\d\d:\d\d {2}/.test(line));

  it('listen -i (issue 45): three deliveries as they come, the second opened whole and sent again to the app, filtered, paused, at 80x24, 132x40 and 60 columns; q ends it as a plain listen ends', async () => {
    const cli = cliWith(sandboxEnv(sandbox.info, configDir));
    const secretFile = join(configDir, 'listen-i.txt');
    const app = `${receiver.url}/listen-i-app`;
    const session = screenSession(`listen --port 0 --secret-file ${secretFile} --forward-to ${app} -i`, { columns: 80, rows: 24 });
    const url = /listen (http:\/\/127\.0\.0\.1:\d+)/.exec(await session.waitFor(/listen http:\/\/127\.0\.0\.1:\d+/))![1]!;
    await createWebhook(cli, `${url}/hooks`, 'invoice.paid,production_order.completed', ['--secret-file', secretFile]);
    const secret = readFileSync(secretFile, 'utf8');
    const forwarded = () => receiver.received.filter((request) => request.path === '/listen-i-app');

    await step('the deliveries show as they arrive, the newest selected', async () => {
      for (const [n, event] of ['invoice.paid', 'invoice.paid', 'production_order.completed'].entries()) {
        await trigger(cli, event);
        await session.waitFor(new RegExp(`^${n + 1} deliver`, 'm'));
      }
      const rows = rowsOf(session.screen());
      expect(rows, session.screen()).toHaveLength(3);
      for (const row of rows) expect(row).toMatch(/ verified +-> 200 .*app 200/);
      expect(rows[2]).toMatch(/^> .* production_/);
    });

    await step('up to the second, Enter: its payload whole, with its invoice id, and the signature verified with the secret file', async () => {
      const invoiceId = JSON.parse(forwarded()[1]!.body).id as string;
      session.press('Up');
      await session.waitFor(/^> .* invoice\.paid /m);
      session.press('Enter');
      const pane = await session.waitFor(new RegExp(`"id": "${invoiceId}"`));
      expect(pane).toMatch(new RegExp(`signature +verified, with the secret in ${secretFile.replace(/[.]/g, '\\.')}`));
      expect(pane).toMatch(/answer +200 \(forwarded\) in \d+ ms/);
    });

    await step('r sends it to the app again, with a valid signature', async () => {
      const before = forwarded().length;
      session.press('r');
      await session.waitFor(/app 200: dlv_\w+ sent again to\b/);
      await receiver.waitFor(before + 1, 10_000, '/listen-i-app');
      const again = forwarded().at(-1)!;
      expect(again.bytes.equals(forwarded()[1]!.bytes)).toBe(true);
      expect(again.headers['x-service-signature']).toBe(signatureOf(secret, again.bytes));
    });

    await step('/ with an event type leaves only its rows', async () => {
      session.press('Escape');
      await session.waitFor(/Enter open/);
      session.type('/invoice.paid');
      session.press('Enter');
      await session.waitFor(/^2 of 3 match \/invoice\.paid/m);
      const rows = rowsOf(session.screen());
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row).toMatch(/ invoice\.paid /);
      session.press('Escape');
      await session.waitFor(/^3 deliveries/m);
    });

    await step('p holds the list while two more arrive, and shows both on resume', async () => {
      session.press('p');
      await session.waitFor(/^PAUSED, 0 waiting/m);
      await trigger(cli, 'invoice.paid');
      await trigger(cli, 'invoice.paid');
      await session.waitFor(/^PAUSED, 2 waiting/m);
      expect(rowsOf(session.screen())).toHaveLength(3);
      session.press('p');
      await session.waitFor(/^5 deliveries/m);
      expect(rowsOf(session.screen())).toHaveLength(5);
    });

    await step('redrawn for 132x40, then for 60 columns: every row on one line, none wider than the terminal', async () => {
      for (const [columns, rows] of [
        [132, 40],
        [60, 24],
      ] as const) {
        session.resize(columns, rows);
        // Redrawn whole once the terminal says its new size: the footer holds the keys that fit it.
        await session.waitFor(
          columns === 60 ? /^Enter open {2}r send again {2}.*\? help {2}q quit$/m : /^Enter open {2}r send again {2}.*c copy id {2}.*\? help {2}q quit$/m,
        );
        // A delivery with a bad signature, drawn at the new width.
        if (columns === 60) expect((await postDelivery(`${url}/hooks`, 'whsec_not_the_secret', 'dlv_forged')).status).toBe(400);
        const screen = await session.waitFor(columns === 60 ? /^6 deliveries/m : /\(forwarded\)/);
        const lines = screen.split('\n');
        expect(lines.length).toBeLessThanOrEqual(rows + 1);
        for (const line of lines) expect(line.length, `${columns}: ${line}`).toBeLessThanOrEqual(columns);
        expect(rowsOf(screen), screen).toHaveLength(columns === 60 ? 6 : 5);
        expect(lines.at(-2), screen).toMatch(/\? help {2}q quit$/);
      }
    });

    await step('q: back to the normal screen, with the last words and the exit code of a plain listen', async () => {
      session.press('q');
      const screen = await session.waitFor(/EXIT=\d+/, 20_000, true);
      expect(screen).toContain('EXIT=1');
      expect(screen).toContain('whsvc listen: 1 delivery with a bad or missing signature');
      expect(screen).toContain(`whsvc listen: ready at ${url}`);
    });
  });

  it('deliveries tail -i (issue 45) at 132x40: the log’s deliveries, R retries the selected one through the service (a new attempt in the log); Ctrl-C exits 130', async () => {
    const cli = cliWith(sandboxEnv(sandbox.info, configDir));
    receiver.respondWith = (request) => (request.path === '/tail-i' ? 500 : 200);
    try {
      const webhook = (await createWebhook(cli, `${receiver.url}/tail-i`)).id;
      await trigger(cli, 'invoice.paid');
      const log = async () => JSON.parse((await cli(['deliveries', 'list', webhook, '--json'])).stdout).data as Array<{ status: string }>;
      await expect.poll(async () => (await log()).filter((a) => a.status === 'failed').length, { timeout: 10_000, interval: 100 }).toBe(1);
      const session = screenSession(`deliveries tail --webhook ${webhook} --since 1h -i`, { columns: 132, rows: 40 });

      await step('the log’s delivery, failed, on a row of its own', async () => {
        await session.waitFor(/^1 delivery/m);
        expect(rowsOf(session.screen())).toEqual([expect.stringMatching(/^> \d\d:\d\d:\d\d {2}wh_\S+ +invoice\.paid +failed .* 500 +dlv_\w+ #1$/)]);
      });

      await step('R: a new attempt through the service, in the log and on the screen', async () => {
        const before = (await log()).length;
        session.press('R');
        await session.waitFor(/retried dlv_\w+: attempt \d+ failed/);
        expect((await log()).length).toBe(before + 1);
        await session.waitFor(/^2 deliveries/m);
        expect(rowsOf(session.screen()).at(-1)).toMatch(/ dlv_\w+ #2$/);
      });

      await step('Ctrl-C: back to the normal screen, exit 130', async () => {
        session.press('C-c');
        const screen = await session.waitFor(/EXIT=\d+/, 20_000, true);
        expect(screen).toContain('EXIT=130');
        expect(screen).toMatch(/whsvc: following 1 webhook from the --since time/);
      });
    } finally {
      receiver.respondWith = () => 200;
    }
  });
});
