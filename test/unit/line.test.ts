import { describe, expect, it } from 'vitest';
import { fitLine, fittedLine, type LineField } from '../../src/render/line.js';
import { displayWidth } from '../../src/render/width.js';

const tailLine = (status: string): LineField[] => [
  { text: '08:27:47' },
  { text: 'wh_326807ce730391d25809a772', min: 10, cut: 'middle', give: 1 },
  { text: 'invoice.paid', pad: 26, min: 8, cut: 'end', give: 3 },
  { text: status, styled: `<${status}>`, pad: 19 },
  { text: '  -' },
  { text: 'dlv_90217b164c40c3dedd222e5e #1', min: 14, cut: 'middle', give: 2 },
  { text: '(dlv_0000000000000000000000ff)', optional: true },
];

describe('log lines fitted to a terminal', () => {
  it('in a pipe: every field whole and padded, the colour as given', () => {
    const { line, fits } = fitLine(tailLine('delivered'));
    expect(fits).toBe(true);
    expect(line).toBe(
      `08:27:47  wh_326807ce730391d25809a772  ${'invoice.paid'.padEnd(26)}  <delivered>${' '.repeat(10)}    -  dlv_90217b164c40c3dedd222e5e #1  (dlv_0000000000000000000000ff)`,
    );
  });

  it('at 80 columns: the optional field goes, the padding goes, the ids lose their middle; the status stays whole', () => {
    const status = 'failed · retry due 08:31:08';
    const { line, fits } = fitLine(tailLine(status), 80);
    expect(fits).toBe(true);
    expect(line).toContain(`<${status}>`);
    expect(line).not.toContain('dlv_0000');
    expect(line).toMatch(/wh_3\S*…\S*9a772/);
    expect(line).toMatch(/dlv_\S*…\S* #1$/);
    expect(displayWidth(line.replace(/[<>]/g, ''))).toBeLessThanOrEqual(80);
  });

  it('at 100 columns the event type stays whole: the ids give way first', () => {
    const { line } = fitLine(tailLine('failed · retry due 08:31:08'), 100);
    expect(line).toContain('invoice.paid');
    expect(displayWidth(line.replace(/[<>]/g, ''))).toBeLessThanOrEqual(100);
  });

  it('a form that does not fit gives way to the next; none fitting, the last is cut at its end', () => {
    const long = tailLine('pending → failed · retry due 08:31:08');
    const short = tailLine('failed · retry due 08:31:08');
    expect(fittedLine([long, short], 80)).toContain('<failed · retry due 08:31:08>');
    const cut = fittedLine([long, short], 40);
    expect(displayWidth(cut)).toBe(40);
    expect(cut.endsWith('…')).toBe(true);
  });
});
