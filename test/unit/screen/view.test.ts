import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { colorsFrom, PLAIN } from '../../../src/render/colors.js';
import { displayWidth } from '../../../src/render/width.js';
import { ScreenModel } from '../../../src/screen/model.js';
import { fitPane, frame, type ViewInput } from '../../../src/screen/view.js';

// The screen's lines from its state: as many as the terminal has rows, none wider than it at 60 to 200 columns, the
// selection shown without colour (NO_COLOR) by its marker, the keys that fit with `? help` and `q quit` always.

// biome-ignore lint/complexity/useRegexLiterals: a literal would hold the escape character itself
const ESCAPE = new RegExp('\u001b\\[[0-9;]*m', 'g');
const WIDTHS = [60, 80, 132, 200];

const keys: ViewInput<string>['keys'] = [
  ['↑↓/jk', 'select'],
  ['Enter', 'open'],
  ['r', 'send again'],
  ['d', 'diagnose'],
  ['/', 'filter'],
  ['p', 'pause'],
  ['c', 'copy id'],
];

function input(columns: number, overrides: Partial<ViewInput<string>> = {}): ViewInput<string> {
  const model = new ScreenModel<string>((text) => ({ event: text, statuses: [], id: text, body: '' }));
  for (let n = 0; n < 40; n += 1) model.put(String(n), `row ${n} ${'x'.repeat(300)}`);
  return {
    model,
    columns,
    rows: 24,
    colors: PLAIN,
    heading: `listen http://127.0.0.1:4011 -> ${'http://localhost:3000/a/very/long/path/'.repeat(4)}`,
    // A row as a command lays it out for the width (listen's and tail's StreamLayout): here cut at the width.
    line: (item, width) => item.slice(0, width),
    message: `a message ${'that is long '.repeat(30)}`,
    keys,
    ...overrides,
  };
}

describe('a frame', () => {
  it.each(WIDTHS)('at %i columns: one line per terminal row, none wider than the terminal', (columns) => {
    for (const colors of [PLAIN, colorsFrom(new Chalk({ level: 1 }))]) {
      const lines = frame(input(columns, { colors }));
      expect(lines).toHaveLength(24);
      for (const line of lines) expect(displayWidth(line.replace(ESCAPE, '')), line).toBeLessThanOrEqual(columns);
      expect(lines.at(-1)!.replace(ESCAPE, '')).toMatch(/\? help {2}q quit$/);
    }
  });

  it('without colour: no escape code at all, the selected row marked by `> `, the others by spaces', () => {
    const lines = frame(input(80));
    expect(lines.join('\n')).not.toMatch(ESCAPE);
    const rows = lines.slice(1, 22);
    expect(rows.filter((line) => line.startsWith('> '))).toEqual([expect.stringMatching(/^> row 39 /)]);
    expect(rows.filter((line) => line.startsWith('  row '))).toHaveLength(20);
  });

  it('with colour: the selected row is a bar as wide as the terminal', () => {
    const lines = frame(input(80, { colors: colorsFrom(new Chalk({ level: 1 })) }));
    const selected = lines.find((line) => line.includes('> row 39'))!;
    expect(selected.startsWith('\u001b[7m') && selected.endsWith('\u001b[27m')).toBe(true);
    expect(displayWidth(selected.replace(ESCAPE, ''))).toBe(80);
  });

  it('the heading says the state first: paused with what waits, the filter and what it leaves', () => {
    const view = input(60);
    view.model.togglePause();
    view.model.put('new', 'row new');
    view.model.setFilter('row 3');
    const [heading] = frame(view);
    expect(heading).toMatch(/^PAUSED, 1 waiting \(p resumes\) {2}· {2}13 of 40 match \/row 3/);
  });

  it('the footer: while the filter is typed, the text and how it ends; the keys that fit otherwise', () => {
    const view = input(60);
    view.model.startFilter();
    view.model.editFilter('invoice');
    expect(frame(view).at(-1)).toBe('/invoice_  (Enter keeps it, Esc clears it)');
    view.model.endFilter(true);
    expect(frame(view).at(-1)).toBe('↑↓/jk select  Enter open  r send again  ? help  q quit');
    expect(frame(input(132)).at(-1)).toBe('↑↓/jk select  Enter open  r send again  d diagnose  / filter  p pause  c copy id  ? help  q quit');
  });

  it('at 60 columns, prose that does not fit loses whole words, never a word cut in two: the heading, the message, the title', () => {
    const view = input(60, {
      heading: 'following every webhook (3 now; new ones are picked up) from 2025-01-15 12:00:00',
      message: 'retried dlv_f55d…2c91: attempt 2 failed · retry due 12:00:05, 500',
    });
    const lines = frame(view);
    expect(lines[0]).toBe('40 deliveries  ·  following every webhook (3 now; new ones…');
    expect(lines.at(-2)).toBe('retried dlv_f55d…2c91: attempt 2 failed · retry due…');
    view.model.open('details');
    const pane = { title: 'dlv_eb21e83a2f0dc702c917aaee #12  production_order.completed', lines: Array.from({ length: 100 }, () => 'line') };
    expect(frame({ ...view, pane })[1]).toBe('1-20 of 100  ·  dlv_eb21e83a2f0dc702c917aaee #12…');
  });

  it('an empty list says why', () => {
    const view = input(80);
    view.model.setFilter('nothing-matches');
    expect(frame(view)[1]).toMatch(/no delivery matches \/nothing-matches/);
  });

  it('a pane: its title with where it is, its lines from the scroll', () => {
    const view = input(80);
    view.model.open('details');
    view.model.scrollPane(5, 100, 20);
    const pane = { title: 'dlv_1 #1  invoice.paid', lines: Array.from({ length: 100 }, (_, n) => `line ${n}`) };
    const lines = frame({ ...view, pane });
    expect(lines[1]).toBe('6-25 of 100  ·  dlv_1 #1  invoice.paid');
    expect(lines[2]).toBe('line 5');
  });
});

describe('fitPane', () => {
  it('breaks a line between words under its text, shortens a word wider than the width as an id is, takes out control characters', () => {
    const lines = fitPane(
      [
        { text: 'signature  verified, with the secret in ./a/very/long/path/to/the/secret-file.txt', hang: 11 },
        { text: `  x-service-signature: sha256=${'a'.repeat(64)}` },
        { text: '  "note": "\u001b[31mred\u001b[0m"' },
      ],
      40,
      PLAIN,
    );
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(40);
    expect(lines[0]).toBe('signature  verified, with the secret in');
    expect(lines[1]).toMatch(/^ {11}\.\/a\/very/);
    expect(lines.some((line) => /^ {2}sha256=a+…a+$/.test(line))).toBe(true);
    expect(lines.at(-1)).toBe('  "note": "[31mred[0m"');
  });
});
