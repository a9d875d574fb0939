import type { Colors } from '../render/colors.js';
import { counted, countText, sanitize } from '../render/text.js';
import { cutEnd, displayWidth, dropWords, padEnd } from '../render/width.js';
import { wrapLine } from '../render/wrap.js';
import type { ScreenModel } from './model.js';

// What the screen shows, made from its state as lines, each exactly one row of the terminal and never wider than it:
// a heading (what is followed, and the state of the list: paused, filtered), the list of deliveries or the pane open
// over it, a line for what was last said (an action's outcome, a note of the command's), and the keys.

/** A line of a pane (a delivery whole, its diagnosis, the keys): its text, and how it reads. */
export interface PaneLine {
  text: string;
  tone?: 'heading' | 'good' | 'bad' | 'warn' | 'dim' | undefined;
  /** Columns a continuation of the line (when it is wrapped) is indented by; its own indent when not given. */
  hang?: number | undefined;
}

/** A key and what it does, as the footer says it. */
export type KeyHint = [key: string, does: string];

export interface ViewInput<T> {
  model: ScreenModel<T>;
  columns: number;
  rows: number;
  colors: Colors;
  /** What the command follows: `listen http://127.0.0.1:4011`, `tail every webhook`. */
  heading: string;
  /** A delivery's row, at most `columns` wide. */
  line: (item: T, columns: number) => string;
  /** The pane open, laid out for the width (fitPane), and its title. */
  pane?: { title: string; lines: string[] } | undefined;
  message?: string | undefined;
  /** The footer's keys, the most useful first: those that do not fit are left to `?`. */
  keys: KeyHint[];
}

/** The rows around the list or pane: the heading, the message line and the footer. */
export const CHROME_ROWS = 3;
/** `?` and `q`: on the footer at every width. */
const ALWAYS: KeyHint[] = [
  ['?', 'help'],
  ['q', 'quit'],
];
const SELECTED = '> ';
const UNSELECTED = '  ';

/** The whole screen: `rows` lines, each at most `columns` wide. */
export function frame<T>(input: ViewInput<T>): string[] {
  const { model, columns, rows, colors } = input;
  const height = Math.max(0, rows - CHROME_ROWS);
  const body = input.pane ? paneRows(input, height) : listRows(input, height);
  // Prose that does not fit loses whole words at its end (dropWords), never a word cut in two.
  const message = input.message ? colors.yellow(dropWords(sanitize(input.message), columns)) : '';
  return [headingLine(input), ...body, message, footer(model, input.keys, columns, colors)].slice(0, rows);
}

function headingLine<T>({ model, columns, colors, heading }: ViewInput<T>): string {
  const total = model.total;
  const state = [
    model.paused ? `PAUSED, ${countText(model.waiting)} waiting (p resumes)` : '',
    model.filter.empty ? counted(total, 'delivery') : `${countText(model.shown.length)} of ${countText(total)} match /${model.filter.text}`,
    model.dropped > 0 ? `${countText(model.dropped)} oldest let go` : '',
    heading,
  ].filter(Boolean);
  return colors.bold(dropWords(state.join('  ·  '), columns));
}

function listRows<T>({ model, columns, colors, line }: ViewInput<T>, height: number): string[] {
  const { rows, selectedAt } = model.window(height);
  const lines = rows.map((row, n) => {
    const text = line(row.item, columns - SELECTED.length);
    if (n !== selectedAt) return UNSELECTED + text;
    // Shown by its marker without colour (NO_COLOR), and as a bar with it.
    const marked = SELECTED + text;
    return colors.enabled ? `\u001b[7m${padEnd(marked, columns)}\u001b[27m` : marked;
  });
  if (lines.length === 0) {
    const empty = model.total === 0 ? 'waiting for deliveries…' : `no delivery matches /${model.filter.text} (/ changes it, Esc clears it)`;
    lines.push(colors.dim(dropWords(`  ${empty}`, columns)));
  }
  return padTo(lines, height);
}

function paneRows<T>({ model, columns, colors, pane }: ViewInput<T>, height: number): string[] {
  if (!pane || height === 0) return padTo([], height);
  const room = height - 1;
  const from = Math.min(model.paneScroll, Math.max(0, pane.lines.length - room));
  // Where the pane is, first: a title too long for the width loses its end, never this.
  const more =
    pane.lines.length > room ? `${countText(from + 1)}-${countText(Math.min(pane.lines.length, from + room))} of ${countText(pane.lines.length)}  ·  ` : '';
  const title = colors.bold(dropWords(`${more}${sanitize(pane.title)}`, columns));
  return padTo([title, ...pane.lines.slice(from, from + room)], height);
}

/** The keys that fit, in their order, then `? help` and `q quit`; while the filter is typed, what it is and how it ends. */
function footer<T>(model: ScreenModel<T>, keys: KeyHint[], columns: number, colors: Colors): string {
  if (model.editing !== undefined) {
    const hint = '  (Enter keeps it, Esc clears it)';
    const typed = `/${model.editing}_`;
    return cutEnd(displayWidth(typed + hint) <= columns ? typed + hint : typed.slice(-(columns - 1)), columns);
  }
  const say = ([key, does]: KeyHint) => `${colors.bold(key)} ${does}`;
  const width = ([key, does]: KeyHint) => displayWidth(`${key} ${does}`) + 2;
  let room = columns - ALWAYS.reduce((sum, hint) => sum + width(hint), 0) + 2;
  const shown: KeyHint[] = [];
  for (const hint of keys) {
    if (width(hint) > room) break;
    shown.push(hint);
    room -= width(hint);
  }
  return [...shown, ...ALWAYS].map(say).join('  ');
}

/**
 * A pane's lines laid out for the width: each broken between words with its continuation under its text, a word wider
 * than the width (a signature, a long id) shortened as an id is (wrapLine: a screen is never wrapped by the terminal, and
 * its pane is read there, not copied: --json has every value whole), then toned; a line still wider (a command
 * in backticks) cut at its end. Made once per pane and width (it may hold a
 * large body).
 */
export function fitPane(lines: PaneLine[], columns: number, colors: Colors): string[] {
  const tones = { heading: colors.bold, good: colors.green, bad: colors.red, warn: colors.yellow, dim: colors.dim };
  return lines.flatMap((line) => {
    const text = sanitize(line.text.replace(/\t/g, '  '));
    const indent = line.hang ?? /^ */.exec(text)![0].length;
    const styled = line.tone === undefined ? (part: string) => part : tones[line.tone];
    return wrapLine(text, columns, ' '.repeat(Math.min(indent, columns >> 1)), [], { shorten: true })
      .split('\n')
      .map((part) => styled(cutEnd(part, columns)));
  });
}

function padTo(lines: string[], height: number): string[] {
  return [...lines, ...Array.from({ length: Math.max(0, height - lines.length) }, () => '')].slice(0, height);
}
