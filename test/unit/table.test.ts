import { describe, expect, it } from 'vitest';
import { PLAIN as plain } from '../../src/render/colors.js';
import { renderTable } from '../../src/render/table.js';
import { displayWidth } from '../../src/render/width.js';

describe('tables', () => {
  it('the pages of a streamed list line up under the first page: a longer value later is shortened with …', async () => {
    const widths: number[] = [];
    const first = await renderTable(['ID', 'URL', 'ON'], [['wh_1', 'https://a.example/h', 'yes']], plain, { widths });
    const second = await renderTable(
      ['ID', 'URL', 'ON'],
      [
        ['wh_2', 'https://b.example/h', 'no'],
        ['wh_3', 'https://a-much-longer-host.example/hooks', 'yes'],
      ],
      plain,
      {
        withHead: false,
        widths,
      },
    );
    expect(first).toBe('ID    URL                  ON\nwh_1  https://a.example/h  yes\n');
    expect(second).toBe('wh_2  https://b.example/h  no\nwh_3  https://a-much-lon…  yes\n');
  });

  it('an id column is never shortened: a longer id on a later page widens it', async () => {
    const widths: number[] = [];
    await renderTable(['ID', 'STATUS'], [['dlv_1', 'ok']], plain, { widths });
    const next = await renderTable(['ID', 'STATUS'], [['dlv_0123456789', 'failed']], plain, { withHead: false, widths });
    expect(next).toBe('dlv_0123456789  failed\n');
  });

  it('fits the terminal: the widest shortenable column gives first', async () => {
    const rows = [['evt_1', 'short', 'a description that goes on and on and on']];
    const fitted = await renderTable(['ID', 'NAME', 'DESCRIPTION'], rows, plain, { maxWidth: 40 });
    for (const line of fitted.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    expect(fitted).toContain('evt_1  short  a description that goes o…');
    // Nothing left to give: the row stays whole past the width rather than losing ids.
    const narrow = await renderTable(['ID', 'DESCRIPTION'], [['evt_0123456789abcdef', 'text that is long']], plain, { maxWidth: 20 });
    // Nothing else can give: the title is cut too, never the id.
    expect(narrow).toBe('ID                    DESC…\nevt_0123456789abcdef  text…\n');
  });

  it('plain: tab-separated rows, no header, tabs and line breaks in values made spaces', async () => {
    const text = await renderTable(['ID', 'NOTE'], [['wh_1', 'a\tb\nc']], plain, { plain: true });
    expect(text).toBe('wh_1\ta b c\n');
  });

  it('too narrow for every column: leaves them out in the order given rather than wrap a row or cut one to a few characters', async () => {
    const head = ['ID', 'EVENT', 'STATUS', 'CODE', 'ATTEMPT', 'CREATED'];
    const rows = [['dlv_300f0befb612d50ca4c16834', 'invoice.paid', 'failed', '503', '1', '2 minutes ago']];
    const options = { whole: [0, 2], reluctant: [1, 5], dropFirst: [4, 5, 1] };
    const at = async (maxWidth: number) => (await renderTable(head, rows, plain, { ...options, maxWidth })).trimEnd().split('\n');
    // Wide enough: all of them, nothing cut.
    expect((await at(100))[0]).toBe('ID                            EVENT         STATUS  CODE  ATTEMPT  CREATED');
    // A little narrower: a title is cut (ATTEMPT over values of one digit) before any column is left out.
    expect(await at(78)).toEqual([
      'ID                            EVENT         STATUS  CODE  ATTE…  CREATED',
      'dlv_300f0befb612d50ca4c16834  invoice.paid  failed  503   1      2 minutes ago',
    ]);
    // Then the event type and the time give way down to 8 characters before anything is left out.
    expect((await at(70))[1]).toBe('dlv_300f0befb612d50ca4c16834  invoice…  failed  503   1      2 minute…');
    // 60 columns: ATTEMPT, then CREATED (it would be cut under 8) are left out; the event type keeps its whole width.
    expect(await at(60)).toEqual(['ID                            EVENT         STATUS  CODE', 'dlv_300f0befb612d50ca4c16834  invoice.paid  failed  503']);
    // Narrower still: the event type goes too; the id and the status stay whole.
    expect(await at(45)).toEqual(['ID                            STATUS  CODE', 'dlv_300f0befb612d50ca4c16834  failed  503']);
    for (const width of [45, 50, 60, 70, 80]) for (const line of await at(width)) expect(line.length, `at ${width}`).toBeLessThanOrEqual(width);
  });

  it('a column of long and short values counts by its longest: it is not cut under 8 while another may be left out', async () => {
    const rows = [
      ['dlv_1234567890', 'invoice.paid', '2 minutes ago'],
      ['dlv_1234567891', 'x', 'now'],
    ];
    const text = await renderTable(['ID', 'EVENT', 'CREATED'], rows, plain, { whole: [0], reluctant: [1, 2], dropFirst: [2], maxWidth: 32 });
    expect(text).toBe('ID              EVENT\ndlv_1234567890  invoice.paid\ndlv_1234567891  x\n');
  });

  it('the later pages of a streamed list leave out the columns the first page left out', async () => {
    const widths: number[] = [];
    const options = { whole: [0], dropFirst: [2], maxWidth: 30, widths };
    const first = await renderTable(['ID', 'URL', 'CREATED'], [['wh_0123456789', 'https://a.example/h', 'just now']], plain, options);
    const second = await renderTable(['ID', 'URL', 'CREATED'], [['wh_9876543210', 'https://b.example/h', '3 days ago']], plain, {
      ...options,
      withHead: false,
    });
    expect(first).toBe('ID             URL\nwh_0123456789  https://a.exam…\n');
    expect(second).toBe('wh_9876543210  https://b.exam…\n');
  });
});

describe('tables keep what tells rows apart', () => {
  const head = ['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED'];
  const webhooks = [9001, 9002, 9003, 9004].map((port) => [
    `wh_${port}aaaaaaaaaaaaaaaaaaaaaa`,
    `http://127.0.0.1:${port}/hooks/fail`,
    port % 2 ? 'invoice.paid, sales_order.created' : 'invoice.paid',
    'active',
    '10 minutes ago',
  ]);
  const options = { whole: [0, 3], reluctant: [4], dropFirst: [4, 2], urls: [1] };

  it("at 80 columns a URL keeps its port and its path's end: the time and the event types give way first", async () => {
    const lines = (await renderTable(head, webhooks, plain, { ...options, maxWidth: 80 })).trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).not.toContain('CREATED');
    const urls = lines.slice(1).map((line) => line.split(/\s{2,}/)[1]);
    expect(new Set(urls).size).toBe(4);
    for (const [i, url] of urls.entries()) expect(url).toContain(`:${9001 + i}/hooks/fail`);
  });

  it('at 60 columns the URLs still differ, by their port', async () => {
    const lines = (await renderTable(head, webhooks, plain, { ...options, maxWidth: 60 })).trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60);
    const urls = lines.slice(1).map((line) => line.split(/\s{2,}/)[1]);
    expect(new Set(urls).size).toBe(4);
  });

  it('a column that reads the same on every row goes before a URL is cut', async () => {
    const rows = [9001, 9002].map((port) => [`wh_${port}`, `http://127.0.0.1:${port}/hooks/fail`, '0%', '100%', '3']);
    const text = await renderTable(['ID', 'URL', 'PENDING', 'FAILED', 'STREAK'], rows, plain, { whole: [0, 4], dropFirst: [2, 3], urls: [1], maxWidth: 52 });
    expect(text.split('\n')[0]).toBe('ID       URL                               STREAK');
    expect(text).toContain('http://127.0.0.1:9001/hooks/fail');
  });

  it('a cell with emoji or CJK lines up, cut only when it does not fit', async () => {
    const text = await renderTable(
      ['ID', 'NOTE', 'N'],
      [
        ['a', 'rocket 🚀 launch', '1'],
        ['b', '👍🏽 ok', '2'],
        ['c', '請求書', '3'],
      ],
      plain,
      { maxWidth: 80 },
    );
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toBe('a   rocket 🚀 launch  1');
    // The last column starts at the same terminal column on every row.
    const lastColumnAt = lines.map((line) => displayWidth(line.slice(0, line.lastIndexOf(' ') + 1)));
    expect(new Set(lastColumnAt)).toEqual(new Set([displayWidth('a   rocket 🚀 launch  ')]));
    const narrow = (await renderTable(['ID', 'NOTE'], [['a', 'rocket 🚀 launch 請求書']], plain, { maxWidth: 14 })).trimEnd().split('\n');
    for (const line of narrow) expect(displayWidth(line), line).toBeLessThanOrEqual(14);
    expect(narrow[1]).toBe('a   rocket 🚀…');
  });
});
