import { describe, expect, it } from 'vitest';
import { PLAIN } from '../../../src/render/colors.js';
import { footerKeys, helpLines } from '../../../src/screen/keys.js';
import { ScreenModel } from '../../../src/screen/model.js';
import { frame } from '../../../src/screen/view.js';

// The footer at 80 columns, as listen -i and tail -i draw it: the keys that work on that screen, from one table.

const footer = (retries: boolean, sendsAgain: boolean, over: 'list' | 'pane' = 'list') =>
  frame({
    model: new ScreenModel<string>((item) => ({ event: item, statuses: [], id: item, body: '' })),
    columns: 80,
    rows: 10,
    colors: PLAIN,
    heading: 'h',
    line: (item) => item,
    keys: footerKeys({ retries, sendsAgain }, over),
  }).at(-1)!;

describe('the footer at 80 columns', () => {
  it('listen -i with --forward-to: r, / and p', () => {
    expect(footer(false, true)).toBe('Enter open  r send again  d diagnose  / filter  p pause  ? help  q quit');
  });

  it('tail -i: R, / and p; r only with --forward-to', () => {
    expect(footer(true, false)).toBe('Enter open  R retry  d diagnose  / filter  p pause  c copy id  ? help  q quit');
    expect(footer(true, true)).toBe('Enter open  R retry  r send again  d diagnose  / filter  p pause  ? help  q quit');
  });

  it('over a pane: close and scroll, and what acts on the delivery open', () => {
    expect(footer(true, false, 'pane')).toBe('Esc close  ↑↓ scroll  R retry  d diagnose  p pause  c copy id  ? help  q quit');
  });
});

describe('?', () => {
  it('names every key; one that does not work here says where it does', () => {
    const listen = helpLines({ retries: false, sendsAgain: false }).map((line) => line.text);
    expect(listen.find((line) => line.startsWith('R '))).toMatch(/deliveries tail -i/);
    expect(listen.find((line) => line.startsWith('r '))).toMatch(/start the command with --forward-to URL/);
    expect(listen.map((line) => line.split(/\s{2,}/)[0])).toEqual(['Enter', 'R', 'r', 'd', '/', 'p', 'c', '↑ ↓', 'Esc', 'q', 'Ctrl-C']);
  });
});
