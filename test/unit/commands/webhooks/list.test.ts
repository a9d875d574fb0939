import { afterEach, describe, expect, it } from 'vitest';
import { run as list } from '../../../../src/commands/webhooks/list.js';
import { run as get } from '../../../../src/commands/webhooks/get.js';
import { run as deliveriesList } from '../../../../src/commands/deliveries/list.js';
import { run as events } from '../../../../src/commands/events/list.js';
import {
  CATALOG,
  T0,
  fakeDeps,
  finishFakeDeps,
  json,
  jsonReply,
  mockCatalog,
  mockToken,
  pathOnly,
  queryOf,
  rejectionOf,
  type FakeDeps,
} from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

/** A 120-column terminal without colour: tables as people see them. */
const TERMINAL = { stdoutTTY: true, stdoutColumns: 120, env: { NO_COLOR: '1' } };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function hook(i: number, extra: Record<string, unknown> = {}) {
  return {
    id: `wh_${String(i).padStart(6, '0')}`,
    url: `https://hooks${i}.example.com/in`,
    events: ['invoice.paid'],
    active: i % 2 === 0,
    created_at: new Date(T0 - 3_600_000).toISOString(),
    updated_at: new Date(T0 - 60_000).toISOString(),
    ...extra,
  };
}

/** Answers GET /v1/webhooks pages in order; records the query of each request and what stdout held when it came. */
function mockPages(fake: FakeDeps, pages: Array<Record<string, unknown>>) {
  const seen: Array<{ query: URLSearchParams; stdoutBefore: string }> = [];
  for (const page of pages) {
    fake.mock.intercept({ path: (p) => pathOnly(p) === '/v1/webhooks', method: 'GET' }).reply((opts) => {
      seen.push({ query: queryOf(opts.path), stdoutBefore: fake.stdout.text });
      return jsonReply(200, page);
    });
  }
  return seen;
}

describe('webhooks list', () => {
  it('in a pipe: tab-separated rows, no header, whole values and ISO times', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockPages(fake, [{ data: [hook(1, { events: ['invoice.paid', 'sales_order.created'] }), hook(2)], has_more: false, next_cursor: null }]);
    expect(await list({ all: false }, fake.deps)).toBe(0);
    expect(fake.stdout.text).toBe(
      `wh_000001\thttps://hooks1.example.com/in\tinvoice.paid, sales_order.created\tpaused\t${new Date(T0 - 3_600_000).toISOString()}\n` +
        `wh_000002\thttps://hooks2.example.com/in\tinvoice.paid\tactive\t${new Date(T0 - 3_600_000).toISOString()}\n`,
    );
  });

  it('on a narrow terminal: every line fits, a URL keeps its scheme and host whole and its path loses its middle', async () => {
    const fake = fakeDeps({ ...TERMINAL, stdoutColumns: 60 });
    mockToken(fake.mock);
    const long = hook(1, { url: 'https://hooks.example.com/a/rather/long/path/to/the/webhooks/incoming', events: ['invoice.paid', 'sales_order.created'] });
    mockPages(fake, [{ data: [long, hook(2)], has_more: false, next_cursor: null }]);
    await list({ all: false }, fake.deps);
    const lines = fake.stdout.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    // The time goes first, then the event types (an event type is not cut under 12 characters while a column may go).
    expect(lines[0]).toMatch(/^ID +URL +STATUS$/);
    expect(lines[1]).toMatch(/^wh_000001 +https:\/\/hooks\.example\.com\/a\/\S*…\S*\/incoming +paused$/);
    expect(lines[2]).toMatch(/^wh_000002 +https:\/\/hooks2\.example\.com\/in +active$/);
  });

  it('prints a table of the page on stdout and the exact next-page command on stderr', async () => {
    const fake = fakeDeps(TERMINAL);
    mockToken(fake.mock);
    const seen = mockPages(fake, [{ data: [hook(1), hook(2)], has_more: true, next_cursor: 'cur_page2' }]);
    const code = await list({ all: false, limit: 2, active: true }, fake.deps);
    expect(code).toBe(0);
    expect(seen[0]!.query.get('limit')).toBe('2');
    expect(seen[0]!.query.get('active')).toBe('true');
    expect(seen[0]!.query.has('cursor')).toBe(false);
    const lines = fake.stdout.text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+URL\s+EVENTS\s+STATUS\s+CREATED$/);
    expect(lines[1]).toMatch(/^wh_000001\s+https:\/\/hooks1\.example\.com\/in\s+invoice\.paid\s+paused\s+1h ago$/);
    expect(lines[2]).toMatch(/^wh_000002\s+https:\/\/hooks2\.example\.com\/in\s+invoice\.paid\s+active\s+1h ago$/);
    expect(lines).toHaveLength(3);
    expect(fake.stderr.text).toBe(
      'More than the 2 shown (--all shows every one); the next page: whsvc webhooks list --active true --limit 2 --cursor cur_page2\n',
    );
  });

  it('no hint when the page is the last', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockPages(fake, [{ data: [hook(1)], has_more: false, next_cursor: null }]);
    await list({ all: false }, fake.deps);
    expect(fake.stdout.text).toContain('wh_000001');
    expect(fake.stderr.text).toBe('');
  });

  it('--cursor is sent with the first request', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const seen = mockPages(fake, [{ data: [hook(3)], has_more: false, next_cursor: null }]);
    await list({ all: false, cursor: 'cur_given' }, fake.deps);
    expect(seen[0]!.query.get('cursor')).toBe('cur_given');
  });

  it('an empty list says so, with how to create one: on the terminal, or on stderr in a pipe (stdout holds rows only)', async () => {
    const fake = fakeDeps(TERMINAL);
    mockToken(fake.mock);
    mockPages(fake, [{ data: [], has_more: false, next_cursor: null }]);
    await list({ all: false }, fake.deps);
    expect(fake.stdout.text).toMatch(/No webhooks/);
    expect(fake.stdout.text).toContain('whsvc webhooks create');

    const piped = fakeDeps();
    mockToken(piped.mock);
    mockPages(piped, [{ data: [], has_more: false, next_cursor: null }]);
    await list({ all: true }, piped.deps);
    expect(piped.stdout.text).toBe('');
    expect(piped.stderr.text).toMatch(/^No webhooks/);
  });

  it('--all on a terminal: the first page leaves the spare width to the columns that may be cut, so later pages are not cut needlessly', async () => {
    const fake = fakeDeps(TERMINAL);
    mockToken(fake.mock);
    mockPages(fake, [
      { data: [hook(1)], has_more: true, next_cursor: 'c2' },
      { data: [hook(2, { url: 'https://a-longer-host-on-the-second-page.example.com/in' })], has_more: false, next_cursor: null },
    ]);
    await list({ all: true }, fake.deps);
    const lines = fake.stdout.text.trimEnd().split('\n');
    expect(lines[2]).toContain('https://a-longer-host-on-the-second-page.example.com/in');
    expect(lines[2]!.indexOf('active')).toBe(lines[0]!.indexOf('STATUS'));
  });

  it('--json prints exactly the service envelope, unknown fields included, and no hint', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    const envelope = {
      data: [hook(1, { metadata: { team: 'billing' }, future_field: [1, 2] }), hook(2)],
      has_more: true,
      next_cursor: 'cur_x',
      total_estimate: 17,
    };
    mockPages(fake, [envelope]);
    await list({ all: false }, fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual(envelope);
    expect(fake.stderr.text).toBe('');
  });

  it('--json: a page longer than --max-answer-size is an error naming the limit and the flag, and nothing on stdout', async () => {
    const fake = fakeDeps({ json: true, maxAnswerBytes: 1024 });
    mockToken(fake.mock);
    mockPages(fake, [{ data: Array.from({ length: 20 }, (_, i) => hook(i)), has_more: false, next_cursor: null }]);
    const error = await rejectionOf(list({ all: false }, fake.deps));
    expect(error).toMatchObject({ status: 200, code: 'answer_too_large', message: expect.stringMatching(/longer than 1 KiB.*--max-answer-size/) });
    expect(fake.stdout.text).toBe('');
  });

  it('--all --json: one envelope with every item, each page fetched with the previous cursor, written as pages arrive', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    const seen = mockPages(fake, [
      { data: [hook(1), hook(2)], has_more: true, next_cursor: 'c1' },
      { data: [hook(3, { extra: { nested: true } })], has_more: true, next_cursor: 'c2' },
      { data: [hook(4), hook(5)], has_more: false, next_cursor: null },
    ]);
    await list({ all: true, limit: 2 }, fake.deps);
    expect(seen.map((s) => s.query.get('cursor'))).toEqual([null, 'c1', 'c2']);
    expect(seen.map((s) => s.query.get('limit'))).toEqual(['2', '2', '2']);
    const out = JSON.parse(fake.stdout.text) as Record<string, unknown>;
    expect(out).toEqual({
      data: [hook(1), hook(2), hook(3, { extra: { nested: true } }), hook(4), hook(5)],
      has_more: false,
      next_cursor: null,
    });
    // Streaming: page 1's items were on stdout before page 3 was asked for.
    expect(seen[2]!.stdoutBefore).toContain('wh_000001');
    expect(seen[2]!.stdoutBefore).toContain('wh_000002');
    expect(seen[2]!.stdoutBefore).toContain('wh_000003');
    expect(seen[2]!.stdoutBefore).not.toContain('wh_000004');
  });

  it('--all in human mode: every page rendered as it arrives, one header, no hint', async () => {
    const fake = fakeDeps(TERMINAL);
    mockToken(fake.mock);
    const seen = mockPages(fake, [
      { data: [hook(1)], has_more: true, next_cursor: 'c1' },
      { data: [hook(2)], has_more: true, next_cursor: 'c2' },
      { data: [hook(3)], has_more: false, next_cursor: null },
    ]);
    await list({ all: true }, fake.deps);
    expect(seen[2]!.stdoutBefore).toContain('wh_000001');
    for (const id of ['wh_000001', 'wh_000002', 'wh_000003']) expect(fake.stdout.text).toContain(id);
    expect(fake.stdout.text.match(/^ID\s/gm)).toHaveLength(1);
    expect(fake.stdout.text.trimEnd().split('\n')).toHaveLength(4);
    expect(fake.stderr.text).toBe('');
  });

  it('--all --json with no webhooks is a valid empty envelope', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockPages(fake, [{ data: [], has_more: false, next_cursor: null }]);
    await list({ all: true }, fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it('--all --json over 30 pages of 200 parses and holds every item once', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    const PAGES = 30;
    const SIZE = 200;
    const pages = Array.from({ length: PAGES }, (_, p) => ({
      data: Array.from({ length: SIZE }, (_, i) => hook(p * SIZE + i, { note: `quote " backslash \\ unicode é ${p}` })),
      has_more: p < PAGES - 1,
      next_cursor: p < PAGES - 1 ? `cur_${p + 1}` : null,
    }));
    const seen = mockPages(fake, pages);
    await list({ all: true, limit: SIZE }, fake.deps);
    expect(seen).toHaveLength(PAGES);
    expect(seen.map((s) => s.query.get('cursor'))).toEqual([null, ...Array.from({ length: PAGES - 1 }, (_, p) => `cur_${p + 1}`)]);
    const out = JSON.parse(fake.stdout.text) as { data: Array<{ id: string }>; has_more: boolean; next_cursor: null };
    expect(out.has_more).toBe(false);
    expect(out.next_cursor).toBeNull();
    expect(out.data).toHaveLength(PAGES * SIZE);
    const ids = new Set(out.data.map((w) => w.id));
    expect(ids.size).toBe(PAGES * SIZE);
    expect(out.data[4321]).toEqual(hook(4321, { note: 'quote " backslash \\ unicode é 21' }));
    // Written page by page, not as one string at the end.
    expect(fake.stdout.chunks.length).toBeGreaterThan(PAGES);
  });
});

describe('server strings cannot drive the terminal', () => {
  const EVIL_URL = 'https://evil.example/\u001b]0;pwned\u0007x\u001b[2J\u009b31m';

  it('control characters are removed from the list table', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockPages(fake, [{ data: [hook(1, { url: EVIL_URL, id: 'wh_\u001b[31mred', events: ['invoice.paid\u0007'] })], has_more: false, next_cursor: null }]);
    await list({ all: false }, fake.deps);
    expect(fake.stdout.text).not.toMatch(CONTROL);
    expect(fake.stdout.text).toContain('https://evil.example/]0;pwnedx[2J31m');
  });

  it('control characters are removed from the next-page hint (the cursor comes from the server)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockPages(fake, [{ data: [hook(1)], has_more: true, next_cursor: 'cur\u001b]0;pwned\u0007\u001b[2J' }]);
    await list({ all: false }, fake.deps);
    expect(fake.stderr.text).toContain('--cursor');
    expect(fake.stderr.text).not.toMatch(CONTROL);
  });

  it('control characters are removed from webhooks get', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, hook(1, { url: EVIL_URL, created_at: '2025\u001b[2J' })));
    await get({ id: 'wh_1' }, fake.deps);
    expect(fake.stdout.text).toContain('evil.example');
    expect(fake.stdout.text).not.toMatch(CONTROL);
  });

  it('--json keeps the value exactly as the service returned it', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, hook(1, { url: EVIL_URL })));
    await get({ id: 'wh_1' }, fake.deps);
    expect((JSON.parse(fake.stdout.text) as { url: string }).url).toBe(EVIL_URL);
  });
});

describe('webhooks get', () => {
  it('prints a key/value block; the id is encoded in the path', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const paths: string[] = [];
    fake.mock.intercept({ path: (p) => p.startsWith('/v1/webhooks/'), method: 'GET' }).reply((opts) => {
      paths.push(opts.path);
      return jsonReply(200, hook(7));
    });
    await get({ id: 'wh/../7' }, fake.deps);
    expect(paths).toEqual(['/v1/webhooks/wh%2F..%2F7']);
    expect(fake.stdout.text).toMatch(/^id\s+wh_000007$/m);
    expect(fake.stdout.text).toMatch(/^url\s+https:\/\/hooks7\.example\.com\/in$/m);
    expect(fake.stdout.text).toMatch(/^status\s+paused$/m);
  });
});

describe('deliveries list', () => {
  it('sends status and limit, prints a table and the next-page command naming the webhook', async () => {
    const fake = fakeDeps(TERMINAL);
    mockToken(fake.mock);
    const queries: URLSearchParams[] = [];
    fake.mock.intercept({ path: (p) => pathOnly(p) === '/v1/webhooks/wh_1/deliveries', method: 'GET' }).reply((opts) => {
      queries.push(queryOf(opts.path));
      return jsonReply(200, {
        data: [
          { id: 'dlv_1', event: 'invoice.paid', status: 'failed', response_code: 500, attempts: 2, created_at: new Date(T0 - 120_000).toISOString() },
          { id: 'dlv_2', event: 'invoice.paid', status: 'failed', response_code: null, attempts: 1, created_at: new Date(T0 - 60_000).toISOString() },
        ],
        has_more: true,
        next_cursor: 'dc_2',
      });
    });
    await deliveriesList({ webhookId: 'wh_1', status: 'failed', limit: 2, all: false }, fake.deps);
    expect(queries[0]!.get('status')).toBe('failed');
    expect(queries[0]!.get('limit')).toBe('2');
    expect(fake.stdout.text).toMatch(/^dlv_1 #2\s+invoice\.paid\s+failed\s+500\s+2m ago$/m);
    expect(fake.stdout.text).toMatch(/^dlv_2 #1\s+invoice\.paid\s+failed\s+no answer\s+1m ago$/m);
    expect(fake.stderr.text).toContain('whsvc deliveries list wh_1 --status failed --limit 2 --cursor dc_2');
  });
});

describe('events', () => {
  it("names each row by its delivery and number (delivery_id, when the service says it); the newest says the delivery's fate", async () => {
    const page = {
      data: [
        {
          id: 'dlv_B',
          delivery_id: 'dlv_A',
          event: 'invoice.paid',
          status: 'failed',
          response_code: 500,
          attempts: 2,
          created_at: new Date(T0).toISOString(),
          next_attempt_at: null,
        },
        {
          id: 'dlv_A',
          delivery_id: 'dlv_A',
          event: 'invoice.paid',
          status: 'failed',
          response_code: 500,
          attempts: 1,
          created_at: new Date(T0).toISOString(),
          next_attempt_at: null,
        },
      ],
      has_more: false,
      next_cursor: null,
    };
    const listed = async (options: { columns: number; status?: 'failed' }) => {
      const fake = fakeDeps({ ...TERMINAL, stdoutColumns: options.columns });
      mockToken(fake.mock);
      fake.mock.intercept({ path: (p) => pathOnly(p) === '/v1/webhooks/wh_1/deliveries', method: 'GET' }).reply(200, page);
      await deliveriesList({ webhookId: 'wh_1', all: false, status: options.status }, fake.deps);
      return fake.stdout.text;
    };
    const wide = await listed({ columns: 160 });
    expect(wide).toMatch(/^dlv_A #2 +invoice\.paid +failed · no more retries +500 +now +dlv_B$/m);
    expect(wide).toMatch(/^dlv_A #1 +invoice\.paid +failed +500 +now$/m);
    // With --status, a newer attempt of another status may be left out: the newest shown is not known to be the newest.
    expect(await listed({ columns: 160, status: 'failed' })).toMatch(/^dlv_A #2 +invoice\.paid +failed +500 +now +dlv_B$/m);
  });

  it('prints the catalog as a table, grouped by module', async () => {
    const fake = fakeDeps(TERMINAL);
    mockToken(fake.mock);
    const interleaved = {
      data: [
        { type: 'invoice.paid', module: 'invoicing', desc: 'An invoice was paid' },
        { type: 'sales_order.created', module: 'sales', desc: 'A sales order was created' },
        { type: 'invoice.created', module: 'invoicing', desc: 'An invoice was created' },
      ],
    };
    fake.mock.intercept({ path: '/v1/webhooks/webhook-events', method: 'GET' }).reply(json(200, interleaved));
    await events({}, fake.deps);
    const rows = fake.stdout.text.trimEnd().split('\n').slice(1);
    expect(rows.map((r) => r.split(/\s+/).slice(0, 2).join(' '))).toEqual(['invoicing invoice.paid', 'invoicing invoice.created', 'sales sales_order.created']);
  });

  it('--json prints the service answer as is', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    await events({}, fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual(CATALOG);
  });
});
