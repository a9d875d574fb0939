import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command, LIST_BOUNDS, run, type ListBounds } from '../../src/commands/deliveries/list.js';
import { trigger, type CliResult } from '../helpers/cli.js';
import { runInProcess, startInProcess } from '../helpers/in-process.js';
import { json, recoverSetups, type RecoverSetup } from '../helpers/recover.js';
import { runVerbInProcess } from '../helpers/verb.js';

// `deliveries list` without a webhook id: the deliveries of every webhook, newest first, filtered, against the real
// sandbox in this process. Three webhooks, and attempts at two times of the sandbox's clock (manual: it moves when
// told), an hour apart:
//   T0      A: invoice.paid inv_old (failed), sales_order.created (failed); B: invoice.paid inv_old (failed);
//           C: sales_order.created (failed)
//   T0+1h   A: invoice.paid inv_42 (delivered), inv_old retried (delivered); B: invoice.paid inv_42 (delivered)

const { setup, closeAll } = recoverSetups();
afterAll(closeAll);

let s: RecoverSetup;
const hooks = { A: '', B: '', C: '' };
let t0 = '';
let t1 = '';

beforeAll(async () => {
  s = await setup('across', ['--clock', 'manual']);
  hooks.A = await s.webhook('/a', 'invoice.paid,sales_order.created');
  hooks.B = await s.webhook('/b', 'invoice.paid');
  hooks.C = await s.webhook('/c', 'sales_order.created');
  t0 = json(await s.cli(['sandbox', 'clock', '--json'])).now as string;
  const [oldOnA] = await trigger(s.cli, 'invoice.paid', { data: { id: 'inv_old' } });
  await trigger(s.cli, 'sales_order.created');
  await s.receiver.waitFor(4);
  t1 = json(await s.cli(['sandbox', 'clock', 'advance', '1h', '--json'])).now as string;
  s.down.value = false;
  await trigger(s.cli, 'invoice.paid', { data: { id: 'inv_42' } });
  await s.receiver.waitFor(6);
  const retried = await s.cli(['deliveries', 'retry', oldOnA!]);
  expect(retried.code, retried.stderr).toBe(0);
});

interface Row {
  id: string;
  webhook_id: string;
  event: string;
  status: string;
  created_at: string;
  delivery_id: string;
}

/** `deliveries list <args> --json`: its rows, after checking it is one page envelope with nothing more. */
async function rows(args: string[]): Promise<Row[]> {
  const result = await s.cli(['deliveries', 'list', ...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  const page = json(result);
  expect(Object.keys(page)).toEqual(['data', 'has_more', 'next_cursor']);
  expect(page.has_more, result.stderr).toBe(false);
  expect(page.next_cursor).toBeNull();
  return page.data;
}

const tally = (list: Row[]) => list.map((row) => `${Object.entries(hooks).find(([, id]) => id === row.webhook_id)![0]} ${row.event} ${row.status}`).sort();

describe('deliveries list across webhooks', () => {
  it("lists every webhook's attempts newest first, each item as the service's list gave it with its webhook_id added", async () => {
    const all = await rows([]);
    expect(all).toHaveLength(7);
    expect(new Set(all.map((row) => row.webhook_id))).toEqual(new Set(Object.values(hooks)));
    const times = all.map((row) => Date.parse(row.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Each item is its webhook's log's item, webhook_id added after the id, where the service's retrieve has it.
    for (const id of Object.values(hooks)) {
      const own = json(await s.cli(['deliveries', 'list', id, '--json'])).data as Array<Record<string, unknown>>;
      const mine = all.filter((row) => row.webhook_id === id);
      expect(mine.map(({ webhook_id, ...item }) => item)).toEqual(own);
      for (const row of mine) expect(Object.keys(row).slice(0, 2)).toEqual(['id', 'webhook_id']);
    }
  });

  it("in a pipe the webhook is each row's second field; on a terminal a WEBHOOK column; the old form is as it was", async () => {
    const piped = await s.cli(['deliveries', 'list']);
    const lines = piped.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    for (const line of lines) expect(Object.values(hooks)).toContain(line.split('\t')[1]);
    const terminal = await runInProcess(['deliveries', 'list'], { env: s.env, terminal: { columns: 80 } });
    expect(terminal.stdout.split('\n')[0]).toMatch(/^DELIVERY +WEBHOOK +EVENT +STATUS +CODE$/);
    // A webhook's own log: the service's page, with its cursor.
    const page = json(await s.cli(['deliveries', 'list', hooks.A, '--limit', '1', '--json']));
    expect(page.data).toHaveLength(1);
    expect(page.data[0].webhook_id).toBeUndefined();
    expect(typeof page.next_cursor).toBe('string');
    expect((await s.cli(['deliveries', 'list', hooks.A])).stdout.split('\n')[0]!.split('\t')[1]).toBe('invoice.paid');
  });

  it('--status, --event (a comma list too), --webhook and a webhook id with a filter', async () => {
    expect(tally(await rows(['--status', 'failed']))).toEqual([
      'A invoice.paid failed',
      'A sales_order.created failed',
      'B invoice.paid failed',
      'C sales_order.created failed',
    ]);
    expect(tally(await rows(['--status', 'delivered']))).toEqual(['A invoice.paid delivered', 'A invoice.paid delivered', 'B invoice.paid delivered']);
    expect(tally(await rows(['--event', 'sales_order.created']))).toEqual(['A sales_order.created failed', 'C sales_order.created failed']);
    expect(await rows(['--event', 'sales_order.created,invoice.paid'])).toHaveLength(7);
    expect(tally(await rows(['--webhook', hooks.B]))).toEqual(['B invoice.paid delivered', 'B invoice.paid failed']);
    expect(await rows(['--webhook', hooks.A, '--webhook', hooks.C])).toHaveLength(5);
    expect(tally(await rows([hooks.A, '--event', 'invoice.paid', '--status', 'delivered']))).toEqual(['A invoice.paid delivered', 'A invoice.paid delivered']);
  });

  it("--since and --until as a time or back from the service's now (an hour ahead of this machine's)", async () => {
    expect(tally(await rows(['--since', t1]))).toEqual(['A invoice.paid delivered', 'A invoice.paid delivered', 'B invoice.paid delivered']);
    expect(await rows(['--since', '30m'])).toHaveLength(3);
    expect(tally(await rows(['--until', t0]))).toEqual(tally(await rows(['--status', 'failed'])));
    expect(await rows(['--since', t0, '--until', '30m'])).toHaveLength(4);
  });

  it('--payload-id finds the attempts whose payload has that id, says how many deliveries it looked at, narrowed by --event', async () => {
    const found = await s.cli(['deliveries', 'list', '--payload-id', 'inv_42', '--json']);
    expect(found.code, found.stderr).toBe(0);
    expect(tally(json(found).data)).toEqual(['A invoice.paid delivered', 'B invoice.paid delivered']);
    // Six deliveries, one of them (inv_old on A) with two attempts: its payload looked at once.
    expect(found.stderr).toBe('Payload id inv_42: 2 attempts carry it, of 6 deliveries whose payload was looked at (7 attempts read of 3 webhooks).\n');
    expect(tally(await rows(['--payload-id', 'inv_old']))).toEqual(['A invoice.paid delivered', 'A invoice.paid failed', 'B invoice.paid failed']);
    const narrowed = await s.cli(['deliveries', 'list', '--payload-id', 'inv_42', '--event', 'invoice.paid']);
    expect(narrowed.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(narrowed.stderr).toBe('Payload id inv_42: 2 attempts carry it, of 4 deliveries whose payload was looked at (7 attempts read of 3 webhooks).\n');
    const none = await s.cli(['deliveries', 'list', '--payload-id', 'inv_nope', '--since', t1]);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toBe(
      'No deliveries.\nPayload id inv_nope: 0 attempts carry it, of 3 deliveries whose payload was looked at (3 attempts read of 3 webhooks).\n',
    );
  });

  it('on a terminal, a payload search shows its progress on stderr', async () => {
    const result = await runInProcess(['deliveries', 'list', '--payload-id', 'inv_42'], { env: s.env, terminal: { columns: 132 } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /\r\u001b\[2Kpayload id inv_42: \d attempts? carr(y|ies) it, of \d deliver(y|ies) whose payload was looked at \(\d attempts? read of 3 webhooks\)…/,
    );
    expect(result.stdout).toMatch(/^DELIVERY +WEBHOOK +EVENT +STATUS +CODE +CREATED( +ATTEMPT ID)?\n/);
  });

  it('--limit N shows the N newest and says more match (has_more in --json, with no cursor); --all every one', async () => {
    const two = await s.cli(['deliveries', 'list', '--limit', '2', '--json']);
    expect(json(two)).toMatchObject({ has_more: true, next_cursor: null });
    expect(json(two).data.map((row: Row) => row.id)).toEqual((await rows([])).slice(0, 2).map((row) => row.id));
    const human = await s.cli(['deliveries', 'list', '--limit', '2']);
    expect(human.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(human.stderr).toBe('More than the 2 shown: --limit N shows more, --all every one.\n');
    expect(await rows(['--all'])).toHaveLength(7);
    expect(await rows(['--limit', '7'])).toHaveLength(7);
  });

  it('checks before reading: an event type not in the catalog (exit 2), a webhook that does not exist (exit 5)', async () => {
    const typo = await s.cli(['deliveries', 'list', '--event', 'invoice.payd']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean invoice.paid?');
    const unknown = await s.cli(['deliveries', 'list', '--webhook', 'wh_nope', '--json']);
    expect(unknown).toMatchObject({ code: 5, stdout: '' });
  });
});

describe('deliveries list across webhooks: the bounds, each said when it stops the list', () => {
  /** `deliveries list <args>` with these bounds in place of LIST_BOUNDS. */
  const bounded = (bounds: Partial<ListBounds>, args: string[]): Promise<CliResult> =>
    runVerbInProcess(['deliveries', 'list'], () => command((options, deps) => run(options, deps, { ...LIST_BOUNDS, ...bounds })), args, { env: s.env });

  it('the webhooks read', async () => {
    const result = await bounded({ webhooks: 2 }, ['--json']);
    expect(json(result).has_more).toBe(true);
    expect(new Set(json(result).data.map((row: Row) => row.webhook_id)).size).toBe(2);
    expect(result.stderr).toBe(
      'whsvc: the account has more than 2 webhooks, the most one list reads: only the first 2 listed were; name others with --webhook\n',
    );
  });

  it("the attempts of one webhook's log", async () => {
    const result = await bounded({ eachLog: 1 }, ['--json']);
    expect(tally(json(result).data)).toEqual(['A invoice.paid delivered', 'B invoice.paid delivered', 'C sales_order.created failed']);
    expect(json(result).has_more).toBe(true);
    expect(result.stderr).toMatch(
      /^whsvc: the logs of wh_\w+, wh_\w+ were read to the newest 1 attempt, the most one list reads of a log: older ones are not listed; narrow with --since\n$/,
    );
  });

  it('the attempts read in all', async () => {
    const result = await bounded({ read: 4 }, ['--json']);
    expect(json(result).has_more).toBe(true);
    expect(json(result).data.length).toBeLessThanOrEqual(4);
    expect(result.stderr).toBe(
      'whsvc: stopped after 4 attempts read, the most one list reads: older ones are not listed; narrow with --since, --webhook or --event\n',
    );
    // The bound not reached: a list of exactly as many says nothing.
    expect(await bounded({ read: 7 }, ['--json'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('the payloads a search looks at', async () => {
    const result = await bounded({ lookups: 1 }, ['--payload-id', 'inv_old', '--json']);
    expect(json(result)).toMatchObject({ data: [], has_more: true, next_cursor: null });
    expect(result.stderr).toMatch(
      /^whsvc: stopped after looking at 1 delivery's payload, the most one search retrieves: older ones were not looked at; narrow with --since or --event\nPayload id inv_old: 0 attempts carry it, of 1 delivery whose payload was looked at \(\d attempts read of 3 webhooks\)\.\n$/,
    );
  });
});

describe('deliveries list across webhooks against a service of our own', () => {
  /** How the service answers a request other than the token's; set by each test. */
  let answer: (url: URL, res: ServerResponse) => void;
  let server: Server;
  let env: Record<string, string>;
  const send = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const item = (id: string, minute: number) => ({
    id,
    event: 'invoice.paid',
    status: 'failed',
    response_code: 503,
    attempts: 1,
    created_at: `2026-11-23T08:${String(minute).padStart(2, '0')}:00.000Z`,
  });
  const webhooksPage = {
    data: ['wh_a', 'wh_b'].map((id) => ({ id, url: 'https://e.example/h', events: ['invoice.paid'], active: true })),
    has_more: false,
    next_cursor: null,
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const url = new URL(req.url!, 'http://127.0.0.1');
        if (url.pathname === '/v1/oauth/token') send(res, { access_token: 'tok_own', token_type: 'Bearer', expires_in: 3600 });
        else if (url.pathname === '/v1/webhooks') send(res, webhooksPage);
        else answer(url, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-across-'));
    env = {
      WHSVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      WHSVC_CLIENT_ID: 'cli_own',
      WHSVC_CLIENT_SECRET: 'cs_own',
      WHSVC_CONFIG_DIR: dir,
    };
    return async () => {
      // A page held by a test that failed is not waited for.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    };
  });

  it("writes each row as the merge gives it: those before a log's next page are out while that page is awaited", async () => {
    let release = () => {};
    let asked: () => void = () => {};
    const pageTwoAsked = new Promise<void>((resolve) => (asked = resolve));
    answer = (url, res) => {
      if (url.pathname === '/v1/webhooks/wh_b/deliveries') return send(res, { data: [item('b1', 9)], has_more: false, next_cursor: null });
      if (url.searchParams.get('cursor') === null) return send(res, { data: [item('a1', 10), item('a2', 8)], has_more: true, next_cursor: 'ca' });
      release = () => send(res, { data: [item('a3', 5)], has_more: false, next_cursor: null });
      asked();
    };
    const list = startInProcess(['deliveries', 'list', '--all', '--json'], { env });
    await pageTwoAsked;
    expect(list.stdout()).toContain('"a2"');
    expect(list.stdout()).not.toContain('"a3"');
    release();
    expect(await list.exit).toBe(0);
    const page = JSON.parse(list.stdout());
    expect(page.data.map((row: Row) => `${row.id} ${row.webhook_id}`)).toEqual(['a1 wh_a', 'b1 wh_b', 'a2 wh_a', 'a3 wh_a']);
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
  });

  it("a log whose pages go round in a circle ends the list with one line, exit 1, and --json's envelope cut, never closed as if whole", async () => {
    answer = (url, res) => {
      if (url.pathname === '/v1/webhooks/wh_b/deliveries') return send(res, { data: [item('b1', 9)], has_more: false, next_cursor: null });
      const cursor = url.searchParams.get('cursor');
      send(res, { data: [item(`a_${cursor ?? 'first'}`, 10)], has_more: true, next_cursor: cursor === 'c1' ? 'c2' : 'c1' });
    };
    const result = await runInProcess(['deliveries', 'list', '--all', '--json'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^whsvc: the service's pages of the log of webhook wh_a go round in a circle/);
    expect(() => JSON.parse(result.stdout)).toThrow();
    expect(JSON.parse(`${result.stdout}]}`).data.map((row: Row) => row.id)).toEqual(['a_first', 'a_c1', 'a_c2']);
  });
});
