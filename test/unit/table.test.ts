import { describe, expect, it } from 'vitest';
import { PLAIN as plain } from '../../src/render/colors.js';
import { renderTable } from '../../src/render/table.js';


describe('tables', () => {
  it('the pages of a streamed list line up, and no cell is cut', async () => {
    const widths: number[] = [];
    const first = await renderTable(['ID', 'URL'], [['wh_1', 'https://a.example/h']], plain, { widths });
    const second = await renderTable(['ID', 'URL'], [['wh_2', 'https://b.example/h'], ['wh_3', 'https://a-much-longer-host.example/hooks']], plain, { withHead: false, widths });
    expect(first).toBe('ID    URL\nwh_1  https://a.example/h\n');
    expect(second).toBe('wh_2  https://b.example/h\nwh_3  https://a-much-longer-host.example/hooks\n');
    const third = await renderTable(['ID', 'URL'], [['wh_4', 'x']], plain, { withHead: false, widths });
    // Widths only grow: the third page keeps the second page's column start.
    expect(third).toBe('wh_4  x\n');
    expect(widths).toEqual([4, 'https://a-much-longer-host.example/hooks'.length]);
  });

  it('a wide first column pushes the next one for every later page', async () => {
    const widths: number[] = [];
    await renderTable(['ID', 'STATUS'], [['dlv_0123456789', 'ok']], plain, { widths });
    const next = await renderTable(['ID', 'STATUS'], [['dlv_1', 'failed']], plain, { withHead: false, widths });
    expect(next).toBe('dlv_1           failed\n');
  });
});
