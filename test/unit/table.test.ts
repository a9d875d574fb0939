import { describe, expect, it } from 'vitest';
import { PLAIN as plain } from '../../src/render/colors.js';
import { renderTable } from '../../src/render/table.js';

describe('tables', () => {
  it('the pages of a streamed list line up under the first page: a longer value later is shortened with …', async () => {
    const widths: number[] = [];
    const first = await renderTable(['ID', 'URL', 'ON'], [['wh_1', 'https://a.example/h', 'yes']], plain, { widths });
    const second = await renderTable(['ID', 'URL', 'ON'], [['wh_2', 'https://b.example/h', 'no'], ['wh_3', 'https://a-much-longer-host.example/hooks', 'yes']], plain, {
      withHead: false,
      widths,
    });
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
});
