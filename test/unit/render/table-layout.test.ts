import { describe, expect, it } from 'vitest';
import type { Attempt, Webhook } from '../../../src/api/shapes.js';
import { attemptTable } from '../../../src/commands/deliveries/shared/view.js';
import { NewestFirst } from '../../../src/commands/deliveries/shared/fate.js';
import { HealthTally, healthTable, type WebhookHealth } from '../../../src/commands/webhooks/health.js';
import { webhookTable } from '../../../src/commands/webhooks/shared/view.js';
import { PLAIN } from '../../../src/render/colors.js';
import { renderTable, type Column, type SharedLayout } from '../../../src/render/table.js';
import { displayWidth, shortId } from '../../../src/render/width.js';

// The widths a user tries a screen at: which columns a table shows must follow from these alone, never from its rows.
const WIDTHS = [60, 80, 100, 132] as const;
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();
const hex = (n: number, length = 24) => n.toString(16).padStart(length, '0');

const linesOf = (text: string) => text.trimEnd().split('\n');
const titlesOf = (line: string) => line.trim().split(/ {2,}/);

/**
 * A one-page table's columns (issue 44): at least those the widest rows leave (`floor`, from the declared widths), in
 * the table's order (`all`), and those left out beyond them only where the rows leave no room for them either: a
 * column that gave way for wider rows comes back beside narrow ones.
 */
function columnsOf(lines: string[], floor: string[], all: string[]): string[] {
  const titles = titlesOf(lines[0]!);
  const shown = `${lines.join('\n')}`;
  expect(
    all.filter((title) => titles.includes(title)),
    shown,
  ).toEqual(titles);
  for (const title of floor) expect(titles, shown).toContain(title);
  return titles;
}

/**
 * An id's form in a table `width` wide (issue 44): whole, or short only where the table with it whole would not fit
 * (the widest line, the id's column as much wider as the id is whole). `cell` is the id's cell as shown.
 */
function idFormOf(lines: string[], cell: string, id: string, width: number): 'whole' | 'short' {
  if (cell.startsWith(id)) return 'whole';
  expect(cell.startsWith(shortId(id)), cell).toBe(true);
  const widest = Math.max(...lines.map(displayWidth));
  expect(widest + displayWidth(id) - displayWidth(shortId(id)), `${id} short though it fits whole:\n${lines.join('\n')}`).toBeGreaterThan(width);
  return 'short';
}

/** Three pages of one webhook's log, as unlike as rows get: first attempts only, retries of long ids, no answers. */
const PAGES: Attempt[][] = [
  [1, 2, 3].map((n) => ({ id: `dlv_${hex(n)}`, event: 'invoice.paid', status: 'delivered', response_code: 200, attempts: 1, created_at: ago(15) })),
  [4, 5, 6].map((n) => ({
    id: `dlv_${hex(n)}`,
    delivery_id: 'dlv_eb21e83a2f0dc702c917aaee',
    event: 'production_order.completed',
    status: 'failed',
    response_code: 503,
    attempts: 3,
    next_attempt_at: ago(-60),
    created_at: ago(7),
  })),
  [7, 8].map((n) => ({ id: `dlv_${hex(n)}`, event: 'sales_order.created', status: 'failed', response_code: 0, attempts: 1, created_at: ago(7200) })),
];

const ATTEMPT_COLUMNS = ['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED', 'ATTEMPT ID'];

describe('deliveries list: the columns the widest rows leave at the width, and those the rows leave room for', () => {
  const expected: Record<(typeof WIDTHS)[number], string[]> = {
    132: ['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED'],
    100: ['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED'],
    80: ['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED'],
    60: ['DELIVERY', 'STATUS', 'CODE'],
  };

  it.each(WIDTHS)('at %i columns', async (width) => {
    for (const page of PAGES) {
      const lines = linesOf(await attemptTable(page, PLAIN, NOW, { maxWidth: width }));
      const titles = columnsOf(lines, expected[width], ATTEMPT_COLUMNS);
      // A retry's own id at 132 columns, where the declared widths leave room for it (a column of blanks left out for
      // want of room does not come back).
      expect(titles.includes('ATTEMPT ID'), lines.join('\n')).toBe(width === 132);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
      // Each row is named by its delivery and its number, the id whole or in its one short form; a status with its
      // retry due and `no answer` whole too.
      for (const [i, attempt] of page.entries()) {
        const key = attempt.delivery_id ?? attempt.id;
        const cell = lines[i + 1]!.split(/ {2,}/)[0]!;
        expect(cell.endsWith(` #${attempt.attempts}`), cell).toBe(true);
        // Whole at 100 columns and more; at 80 too where the rows leave room (a first attempt's, beside a short status).
        const form = idFormOf(lines, cell, key, width);
        if (width >= 100 || (width === 80 && page === PAGES[0])) expect(form).toBe('whole');
      }
      for (const line of lines.slice(1)) expect(line).toMatch(/ {2}(delivered|failed · retry due|failed) +(200|503|no answer)( |$)/);
    }
  });

  it('at 60 columns, beside narrow statuses, the event type and the time come back (issue 44)', async () => {
    const lines = linesOf(await attemptTable(PAGES[0]!, PLAIN, NOW, { maxWidth: 60 }));
    expect(titlesOf(lines[0]!), lines.join('\n')).toEqual(['DELIVERY', 'EVENT', 'STATUS', 'CODE', 'CREATED']);
    expect(lines[1]).toMatch(/^dlv_00…0001 #1 {2}invoice\.paid {2}delivered {2}200 {3}15s ago$/);
    // The widest status a delivery can have: as the declared widths left it, the fate whole.
    const ranOut = { ...PAGES[1]![0]!, response_code: 0, next_attempt_at: null };
    const widest = linesOf(await attemptTable([ranOut], PLAIN, NOW, { maxWidth: 60 }, { newest: new NewestFirst(true) }));
    expect(titlesOf(widest[0]!), widest.join('\n')).toEqual(['DELIVERY', 'STATUS', 'CODE']);
    expect(widest[1]).toContain('  failed · no more retries  no answer');
  });

  it("at 132 columns a retry's own id is whole after the time (compact, never cut); a first attempt's is its delivery's", async () => {
    const lines = linesOf(await attemptTable(PAGES[1]!, PLAIN, NOW, { maxWidth: 132 }));
    expect(lines[1]).toMatch(/^dlv_eb21e83a2f0dc702c917aaee #3 .* {2}7s ago {3}dlv_0{23}4$/);
    const firsts = linesOf(await attemptTable(PAGES[0]!, PLAIN, NOW, { maxWidth: 132 }));
    expect(firsts[1]).toMatch(/ {2}15s ago$/);
  });

  it("at 80 columns an event type is cut between its words beside the widest status, a delivery's fate on its newest attempt", async () => {
    const key = 'dlv_eb21e83a2f0dc702c917aaee';
    const ranOut: Attempt[] = [2, 1].map((n) => ({
      id: n === 1 ? key : `dlv_${hex(n)}`,
      delivery_id: key,
      event: 'production_order.completed',
      status: 'failed',
      response_code: 0,
      attempts: n,
      next_attempt_at: null,
      created_at: ago(n),
    }));
    const lines = linesOf(await attemptTable(ranOut, PLAIN, NOW, { maxWidth: 80 }, { newest: new NewestFirst(true) }));
    expect(lines[1]).toMatch(/^dlv_eb…aaee #2 {2}production_order\.… +failed · no more retries {2}no answer {2}2s ago$/);
    expect(lines[2]).toMatch(/^dlv_eb…aaee #1 {2}production_order\.… +failed {2,}no answer {2}1s ago$/);
  });
});

describe('deliveries list across webhooks, streamed: the webhook after the delivery, whole where the declared widths allow', () => {
  // Streamed (its pages share the first's layout): its columns from the declared widths alone. The status says its
  // words whole at every width, as the per-webhook list does (`failed · retry due`): at 60 the webhook goes.
  const expected: Record<(typeof WIDTHS)[number], string[]> = {
    132: ['DELIVERY', 'WEBHOOK', 'EVENT', 'STATUS', 'CODE', 'CREATED'],
    100: ['DELIVERY', 'WEBHOOK', 'EVENT', 'STATUS', 'CODE', 'CREATED'],
    80: ['DELIVERY', 'WEBHOOK', 'EVENT', 'STATUS', 'CODE'],
    60: ['DELIVERY', 'STATUS', 'CODE'],
  };

  it.each(WIDTHS)('at %i columns', async (width) => {
    const shared: SharedLayout = {};
    for (const [n, page] of PAGES.entries()) {
      const rows = page.map((attempt) => ({ ...attempt, webhook_id: `wh_${hex(n + 9)}` }));
      const lines = linesOf(await attemptTable(rows, PLAIN, NOW, { maxWidth: width, shared }, { withWebhook: true }));
      expect(titlesOf(lines[0]!), `${width}: ${lines.join('\n')}`).toEqual(expected[width]);
      // One state, one wording, at every width: the compact fate, as the per-webhook list says it.
      const own = linesOf(await attemptTable(page, PLAIN, NOW, { maxWidth: width }));
      const statuses = (shown: string[]) => shown.slice(1).map((line) => line.match(/ {2}(delivered|failed(?: · retry due)?) {2,}/)?.[1]);
      expect(statuses(lines), lines.join('\n')).toEqual(statuses(own));
      if (n === 1) for (const line of lines.slice(1)) expect(line, lines.join('\n')).toContain('  failed · retry due  ');
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
      // The webhook second, after the delivery and its attempt (`dlv_… #1`): whole wherever the declared widths leave
      // room for it, at 132 columns surely.
      if (width > 60)
        for (const [i, attempt] of rows.entries()) {
          const form = idFormOf(lines, lines[i + 1]!.split(/ {2,}/)[1]!, attempt.webhook_id, width);
          if (width === 132) expect(form, lines.join('\n')).toBe('whole');
        }
    }
  });

  it('in a pipe, the code is a number or nothing: empty when the endpoint gave no answer, or none yet (for awk)', async () => {
    const rows: Attempt[] = [
      PAGES[0]![0]!,
      PAGES[1]![0]!,
      PAGES[2]![0]!,
      { id: `dlv_${hex(9)}`, event: 'invoice.paid', status: 'pending', response_code: null, attempts: 1, created_at: ago(1) },
    ];
    const codes = linesOf(await attemptTable(rows, PLAIN, NOW, { plain: true })).map((line) => line.split('\t')[3]);
    expect(codes).toEqual(['200', '503', '', '']);
  });

  it('in a pipe, the webhook id is the second field', async () => {
    const rows = PAGES[0]!.map((attempt) => ({ ...attempt, webhook_id: 'wh_1' }));
    expect((await attemptTable(rows, PLAIN, NOW, { plain: true }, { withWebhook: true })).split('\n')[0]!.split('\t').slice(0, 3)).toEqual([
      rows[0]!.id,
      'wh_1',
      'invoice.paid',
    ]);
  });
});

const webhooks: Webhook[] = [
  { id: `wh_${hex(1)}`, url: 'https://hooks.prod.example.com/api/v2/webhooks/erp/invoices', events: ['invoice.paid', 'sales_order.created'], active: true },
  { id: `wh_${hex(2)}`, url: 'https://hooks.staging.example.com/api/v2/webhooks/erp/invoices', events: ['invoice.paid'], active: false },
  { id: `wh_${hex(3)}`, url: 'http://127.0.0.1:9401/hooks', events: ['invoice.paid', 'sales_order.created', 'production_order.completed'], active: true },
].map((w) => ({ ...w, created_at: ago(600) }));

describe('webhooks list: hosts whole at every width', () => {
  const expected: Record<(typeof WIDTHS)[number], string[]> = {
    132: ['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED'],
    100: ['ID', 'URL', 'EVENTS', 'STATUS'],
    80: ['ID', 'URL', 'STATUS'],
    60: ['ID', 'URL', 'STATUS'],
  };

  it.each(WIDTHS)('at %i columns', async (width) => {
    for (const rows of [webhooks, webhooks.slice(2)]) {
      const lines = linesOf(await webhookTable(rows, PLAIN, NOW, { maxWidth: width }));
      // Beside narrower rows, what they leave room for too.
      if (rows === webhooks) expect(titlesOf(lines[0]!), lines.join('\n')).toEqual(expected[width]);
      else columnsOf(lines, expected[width], expected[132]);
      rows.forEach((webhook, i) => {
        const line = lines[i + 1]!;
        expect(displayWidth(line), line).toBeLessThanOrEqual(width);
        // Whole, or (at 60 columns, so that the hosts stay whole) in its one short form.
        expect(line.startsWith(`${width === 60 ? shortId(webhook.id) : webhook.id}  `), line).toBe(true);
        expect(line).toContain(new URL(webhook.url).origin);
      });
    }
  });

  it('the path loses its middle, its end kept first; the event types keep whole ones and a count', async () => {
    const at100 = linesOf(await webhookTable(webhooks, PLAIN, NOW, { maxWidth: 100 }));
    expect(at100[1]).toContain('https://hooks.prod.example.com/…/erp/invoices  invoice.paid +1');
    expect(at100[3]).toContain('invoice.paid +2');
    const at80 = linesOf(await webhookTable(webhooks, PLAIN, NOW, { maxWidth: 80 }));
    expect(at80[2]).toContain('https://hooks.staging.example.com…/invoices');
  });

  it('a host too long for the URL column takes the room of the id, which goes to its short form, at 80 columns (issue 44)', async () => {
    const long = { ...webhooks[0]!, url: 'https://hooks.production.example-company.com/webhooks/erp/v2/incoming' };
    const at80 = linesOf(await webhookTable([long, webhooks[1]!], PLAIN, NOW, { maxWidth: 80 }));
    expect(at80[1]).toMatch(new RegExp(`^${shortId(long.id)}  https://hooks\\.production\\.example-company\\.com/…/v2/incoming +active$`));
    expect(displayWidth(at80[1]!)).toBeLessThanOrEqual(80);
    // With hosts that fit, the ids stay whole.
    expect(linesOf(await webhookTable(webhooks, PLAIN, NOW, { maxWidth: 80 }))[1]!.startsWith(`${webhooks[0]!.id}  `)).toBe(true);
  });

  it('one URL column, one form: where one host keeps whole only without `https://`, every https row drops it; `http://` (sent unencrypted) stays, at 60 and 80 (webhooks list and health alike)', async () => {
    const urls = [
      'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices',
      'https://hooks.staging.example-company.com/api/v2/webhooks/erp/invoices',
      'http://127.0.0.1:9401/hooks',
      'http://hooks.production.example-company.com/api/v2/webhooks/erp/invoices',
    ];
    const shownUrls = async (table: 'list' | 'health', width: number) => {
      const text =
        table === 'list'
          ? await webhookTable(
              urls.map((url, i) => ({ ...webhooks[i % webhooks.length]!, url })),
              PLAIN,
              NOW,
              { maxWidth: width },
            )
          : await healthTable(
              urls.map((url, i) => healthRow(`wh_${hex(i + 1)}`, url, ['failed'])),
              PLAIN,
              NOW,
              { maxWidth: width },
            );
      const lines = linesOf(text);
      for (const line of lines) expect(displayWidth(line), text).toBeLessThanOrEqual(width);
      return lines.slice(1).map((line) => line.split(/ {2,}/)[1]);
    };
    // Where the long https host needs the room: both https rows without `https://`, both http rows with `http://`.
    for (const [table, width] of [
      ['list', 60],
      ['health', 60],
      ['health', 80],
    ] as const) {
      expect(await shownUrls(table, width), `${table} at ${width}`).toEqual([
        expect.stringMatching(/^hooks\.production\.example-company\.com/),
        expect.stringMatching(/^hooks\.staging\.example-company\.com\//),
        'http://127.0.0.1:9401/hooks',
        expect.stringMatching(/^http:\/\/hooks\./),
      ]);
    }
    // Where it has the room, every row keeps its scheme.
    expect(await shownUrls('list', 80)).toEqual([
      expect.stringMatching(/^https:\/\/hooks\.production\.example-company\.com\//),
      expect.stringMatching(/^https:\/\/hooks\.staging\.example-company\.com\//),
      'http://127.0.0.1:9401/hooks',
      expect.stringMatching(/^http:\/\/hooks\.production\.example-company\.com\//),
    ]);
  });

  it('a streamed list decides from its first page whether `https://` goes; `http://` shows on any page', async () => {
    const shared: SharedLayout = {};
    const page = (urls: string[], withHead: boolean) =>
      webhookTable(
        urls.map((url) => ({ ...webhooks[0]!, url })),
        PLAIN,
        NOW,
        { maxWidth: 60, shared, withHead },
      );
    const first = linesOf(await page(['https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices'], true));
    const second = linesOf(await page(['https://a.example/h', 'http://hooks.production.example-company.com/api/v2/webhooks/erp/invoices'], false));
    const urlsOf = (lines: string[]) => lines.map((line) => line.split(/ {2,}/)[1]);
    expect(urlsOf(first.slice(1)), first.join('\n')).toEqual([expect.stringMatching(/^hooks\.production\.example-company\.com\//)]);
    expect(urlsOf(second), second.join('\n')).toEqual(['a.example/h', expect.stringMatching(/^http:\/\/hooks\./)]);
  });
});

function healthRow(id: string, url: string, outcomes: Array<'delivered' | 'failed'>, code: number | null = 503): WebhookHealth {
  const tally = new HealthTally();
  for (const [i, status] of outcomes.entries()) {
    tally.add({ id: `dlv_${id}_${i}`, event: 'invoice.paid', status, response_code: status === 'delivered' ? 200 : code, created_at: ago(60 * (i + 1)) });
  }
  return tally.result({ id, url, active: true });
}

describe('webhooks health: the verdict in words at every width', () => {
  const rows = [
    healthRow(`wh_${hex(1)}`, webhooks[0]!.url, ['failed', 'failed', 'delivered'], null),
    // 13% delivered, its newest delivery through: unhealthy under the default threshold.
    healthRow(`wh_${hex(2)}`, webhooks[1]!.url, ['delivered', ...Array<'failed'>(7).fill('failed')]),
    healthRow(`wh_${hex(3)}`, webhooks[2]!.url, ['delivered', 'delivered']),
    healthRow(`wh_${hex(4)}`, 'http://127.0.0.1:9403/idle', []),
  ];
  const expected: Record<(typeof WIDTHS)[number], string[]> = {
    132: ['ID', 'URL', 'HEALTH', 'DELIVERED', 'FAILING STREAK', 'LAST FAILED', 'CODE'],
    // CODE goes with LAST FAILED, which explains it.
    100: ['ID', 'URL', 'HEALTH', 'DELIVERED', 'FAILING STREAK'],
    80: ['ID', 'URL', 'HEALTH', 'DELIVERED'],
    // DELIVERED goes before a host is cut.
    60: ['ID', 'URL', 'HEALTH'],
  };

  it.each(WIDTHS)('at %i columns, without colour', async (width) => {
    for (const shown of [rows, rows.slice(2)]) {
      const lines = linesOf(await healthTable(shown, PLAIN, NOW, { maxWidth: width }));
      // Beside narrower rows, what they leave room for too.
      columnsOf(lines, expected[width], ['ID', 'URL', 'STATUS', ...expected[132].slice(2)]);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
    }
    const lines = linesOf(await healthTable(rows, PLAIN, NOW, { maxWidth: width }));
    const delivered = width > 60;
    expect(lines[1]).toMatch(delivered ? / {2}unhealthy {2}33\.3% of 3( |$)/ : / {2}unhealthy$/);
    expect(lines[2]).toMatch(delivered ? / {2}unhealthy {2}12\.5% of 8( |$)/ : / {2}unhealthy$/);
    expect(lines[3]).toMatch(delivered ? / {2}healthy {4}100% of 2( |$)/ : / {2}healthy$/);
    expect(lines[4]).toMatch(delivered ? / {2}no data {4}-( |$)/ : / {2}no data$/);
    // Which endpoint each row is: its URL, the host whole from 80 columns up (the id short first, as webhooks list has it).
    expect(lines[2]).toMatch(/^\S+ {2}https:\/\/hooks\.staging\.example\.com\/\S* /);
    if (width < 132) expect(lines[1]!.startsWith(`${shortId(rows[0]!.id)}  `)).toBe(true);
  });

  it.each(WIDTHS)('at %i columns, the ids whole wherever the URLs and the other columns leave room (issue 44)', async (width) => {
    const local = [healthRow(`wh_${hex(5)}`, 'http://127.0.0.1:9403/hooks', ['failed']), healthRow(`wh_${hex(6)}`, 'http://127.0.0.1:9403/ok', ['delivered'])];
    const lines = linesOf(await healthTable(local, PLAIN, NOW, { maxWidth: width }));
    // Short only where the columns the table holds dearer take the room (idFormOf); whole at 120 columns and more.
    for (const [i, row] of local.entries())
      expect(idFormOf(lines, lines[i + 1]!.split(/ {2,}/)[0]!, row.id, width)).toEqual(width === 132 ? 'whole' : expect.any(String));
    const at120 = linesOf(await healthTable(local, PLAIN, NOW, { maxWidth: 120 }));
    for (const [i, row] of local.entries()) expect(at120[i + 1]!.startsWith(`${row.id}  `), at120.join('\n')).toBe(true);
  });

  it.each([...WIDTHS, 70, 90, 110, 120])(
    "at %i columns, CODE (the last failure's) only beside LAST FAILED, which it explains: both or neither",
    async (width) => {
      for (const shown of [rows, rows.slice(2), rows.slice(0, 1)]) {
        const lines = linesOf(await healthTable(shown, PLAIN, NOW, { maxWidth: width }));
        const titles = titlesOf(lines[0]!);
        expect(titles.includes('CODE'), lines.join('\n')).toBe(titles.includes('LAST FAILED'));
      }
    },
  );

  it('the code of a last failure with no answer says so; none, -', async () => {
    const lines = linesOf(await healthTable(rows, PLAIN, NOW, { maxWidth: 132 }));
    expect(lines[1]).toMatch(/ {2}no answer$/);
    expect(lines[2]).toMatch(/ {2}503$/);
    expect(lines[4]).toMatch(/ {2}-$/);
  });
});

describe('tables in general', () => {
  it('a title is never cut, however narrow the terminal', async () => {
    const columns: Column[] = [{ title: 'ID', kind: 'id', width: 28 }, { title: 'DESCRIPTION', kind: 'words', width: 40, min: 12 }, { title: 'ATTEMPT' }];
    for (let width = 20; width <= 90; width += 7) {
      const head = linesOf(await renderTable(columns, [[`dlv_${hex(9)}`, 'a description that goes on and on', '1']], PLAIN, { maxWidth: width }))[0]!;
      expect(titlesOf(head)).toEqual(['ID', 'DESCRIPTION', 'ATTEMPT']);
    }
  });

  it('the pages of a streamed list keep the first page\u2019s columns and places; a longer value later is shortened its way', async () => {
    const shared: SharedLayout = {};
    const columns: Column[] = [
      { title: 'ID', kind: 'id', width: 12 },
      { title: 'URL', kind: 'url', width: 30, min: 24, give: 1 },
      { title: 'CREATED', kind: 'time', now: NOW, drop: 0 },
    ];
    const first = await renderTable(columns, [['wh_000000001', 'https://a.example/h', ago(5)]], PLAIN, { maxWidth: 50, shared });
    const second = await renderTable(columns, [['wh_000000002', 'https://b.example/hooks/a/much/longer/path/to/it', ago(90)]], PLAIN, {
      maxWidth: 50,
      shared,
      withHead: false,
    });
    expect(linesOf(first)[0]).toBe('ID            URL');
    expect(second).toBe('wh_000000002  https://b.example/hooks/…/path/to/it\n');
  });

  it('in a pipe: tab-separated rows, nothing shortened, the times as given', async () => {
    const text = await renderTable([{ title: 'ID' }, { title: 'CREATED', kind: 'time', now: NOW }], [['wh_1', ago(5)]], PLAIN, { plain: true });
    expect(text).toBe(`wh_1\t${ago(5)}\n`);
  });
});
