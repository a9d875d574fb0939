import { describe, expect, it } from 'vitest';
import { deliveryIdFields, fitLine, fittedLine, idField, shortIdsAt, type LineField } from '../../src/render/line.js';
import { displayWidth } from '../../src/render/width.js';

const tailLine = (status: string): LineField[] => [
  { text: '08:27:47' },
  { text: 'wh_326807ce730391d25809a772', min: 10, cut: 'middle', give: 1, drop: 4 },
  { text: 'production_order.completed', pad: 26, min: 12, cut: 'end', give: 5, drop: 6 },
  { text: status, styled: `<${status}>`, pad: 19 },
  { text: '  -' },
  { text: 'dlv_90217b164c40c3dedd222e5e #1', min: 14, cut: 'middle', give: 2 },
  { text: '(dlv_0000000000000000000000ff)', drop: 0, attached: true },
];

describe('log lines fitted to a terminal', () => {
  it('in a pipe: every field whole and padded, the colour as given', () => {
    const { line, fits } = fitLine(tailLine('delivered'));
    expect(fits).toBe(true);
    expect(line).toBe(
      `08:27:47  wh_326807ce730391d25809a772  production_order.completed  <delivered>${' '.repeat(10)}    -  dlv_90217b164c40c3dedd222e5e #1 (dlv_0000000000000000000000ff)`,
    );
  });

  it('at 80 columns: the attempt id goes, the ids lose their middle, the webhook id goes before the event type is cut short', () => {
    const status = 'failed · retry due 08:31:08';
    const { line, fits } = fitLine(tailLine(status), 80);
    expect(fits).toBe(true);
    expect(line).toContain(`<${status}>`);
    expect(line).not.toContain('dlv_0000');
    expect(line).not.toContain('wh_');
    expect(line).toMatch(/production_o\S*/);
    expect(line).toMatch(/dlv_\S*…\S* #1$/);
    expect(displayWidth(line.replace(/[<>]/g, ''))).toBeLessThanOrEqual(80);
  });

  it('at 100 columns the webhook id stays, its middle gone; at 120 the event type is whole', () => {
    const at100 = fitLine(tailLine('failed · retry due 08:31:08'), 100).line;
    expect(at100).toMatch(/wh_3\S*…\S*9a772/);
    expect(displayWidth(at100.replace(/[<>]/g, ''))).toBeLessThanOrEqual(100);
    expect(fitLine(tailLine('failed · retry due 08:31:08'), 120).line).toContain('production_order.completed');
  });

  it('at 60 columns what tells the state stays whole: time, status, code, delivery; the rest goes in order', () => {
    const { line, fits } = fitLine(tailLine('failed · retry due 08:31:08'), 60);
    expect(fits).toBe(true);
    expect(line).toMatch(/^08:27:47 {2}<failed · retry due 08:31:08> +- {2}dlv_\S*…\S* #1$/);
  });

  it('an attached field follows after one space, two when the field before it is left out', () => {
    const fields: LineField[] = [{ text: 'a' }, { text: 'pending →', drop: 1 }, { text: 'failed', attached: true }, { text: 'end' }];
    expect(fitLine(fields).line).toBe('a  pending → failed  end');
    expect(fitLine(fields, 15).line).toBe('a  failed  end');
  });

  it('a form that does not fit gives way to the next; none fitting, the last is cut at its end', () => {
    const long = tailLine('pending → failed · retry due 08:31:08').map((field) => ({ ...field, drop: undefined }));
    const short = tailLine('failed · retry due 08:31:08');
    expect(fittedLine([long, short], 80)).toContain('<failed · retry due 08:31:08>');
    const cut = fittedLine([long, short], 40);
    expect(displayWidth(cut)).toBe(40);
    expect(cut.endsWith('…')).toBe(true);
  });
});

describe('log lines: an id is whole, or in its one short form on every line', () => {
  it('on a terminal narrower than a full line, every line has the short form, whatever room it has left; in a pipe none', () => {
    expect([shortIdsAt(80, 132), shortIdsAt(131, 132), shortIdsAt(132, 132), shortIdsAt(undefined, 132), shortIdsAt(0, 132)]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    const line = (status: string) =>
      fitLine([{ text: '08:27:47' }, { text: status }, ...deliveryIdFields('dlv_90217b164c40c3dedd222e5e', 2, { short: true, give: 1 })], 80).line;
    const ids = ['failed', 'failed · retry due 08:31:08 with a long tail of words', 'delivered'].map((status) => line(status).split('  ').at(-1));
    expect(ids).toEqual(['dlv_90…2e5e #2', 'dlv_90…2e5e #2', 'dlv_90…2e5e #2']);
    expect(idField('wh_326807ce730391d25809a772', true, 1, 10).text).toBe('wh_32…a772');
  });

  it('on a wide terminal the id is whole; a line that still does not fit cuts it to that same short form', () => {
    const fields = (status: string) => [
      { text: '08:27:47' },
      { text: status },
      ...deliveryIdFields('dlv_90217b164c40c3dedd222e5e', 2, { short: false, give: 1 }),
    ];
    expect(fitLine(fields('failed'), 140).line).toBe('08:27:47  failed  dlv_90217b164c40c3dedd222e5e #2');
    expect(fitLine(fields('x'.repeat(120)), 140).line.endsWith('dlv_90…2e5e #2')).toBe(true);
  });

  it('padded (listen), a line with no attempt number lines up with one that has one, short or whole', () => {
    for (const short of [true, false]) {
      const fields = (attempt: number | undefined) => [
        { text: '12:00:00' },
        ...deliveryIdFields('dlv_90217b164c40c3dedd222e5e', attempt, { short, give: 1, pad: 32 }),
        { text: 'unsigned' },
      ];
      expect(fitLine(fields(undefined)).line.indexOf('unsigned')).toBe(fitLine(fields(1)).line.indexOf('unsigned'));
    }
  });
});

describe('log lines: a cut never widens', () => {
  it('a field shorter than its min stays as it is when the line is cut', () => {
    const fields: LineField[] = [
      { text: '12:00:00' },
      { text: '(no event)', pad: 26, min: 12, cut: 'end', give: 3, drop: 5 },
      { text: '-', pad: 32, min: 14, cut: 'middle', give: 1 },
      { text: 'unsigned' },
      { text: '-> 200' },
      { text: '(default)', attached: true, min: 10, cut: 'end', give: 2, drop: 4 },
    ];
    expect(fitLine(fields, 51).line).toBe('12:00:00  (no event)  -  unsigned  -> 200 (default)');
    expect(fitLine(fields, 50).line).toBe('12:00:00  (no event)  -  unsigned  -> 200');
  });

  it('when no form fits, what is cut is the form as fitted, so that what was to go first is gone', () => {
    const line = fittedLine([tailLine('failed · retry due 08:31:08')], 57);
    // (The test's colour is <…>, kept as text: only a terminal's escape codes are taken out of a cut line.)
    expect(line.replace(/[<>]/g, '').startsWith('08:27:47  failed · retry due 08:31:08    -  dlv_')).toBe(true);
    expect(displayWidth(line)).toBeLessThanOrEqual(57);
  });
});
