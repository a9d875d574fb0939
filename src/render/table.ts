import type { Colors } from './colors.js';
import { relativeTime, sanitize } from './text.js';
import { cutEnd, cutMiddle, displayWidth, shortenUrl, urlKeptWidth } from './width.js';

export interface TableOptions {
  /** False for the pages after the first of a streamed list: rows only. */
  withHead?: boolean;
  /**
   * Column widths shared by the pages of a streamed list. The first page sets
   * them; later pages keep them (a longer value is shortened with `…`), so
   * every page lines up under the one header. Only a whole column (an id) may
   * still widen.
   */
  widths?: number[];
  /** The terminal's width: the table is fitted into it by shortening its widest cells with `…`. */
  maxWidth?: number | undefined;
  /** Columns never shortened (ids): the first by default. */
  whole?: number[];
  /** Columns shortened only when the others cannot give enough (an event type, a time). */
  reluctant?: number[];
  /**
   * Columns left out, in this order, when the terminal is too narrow for all
   * of them without cutting one to fewer than 8 characters (a URL to less
   * than its host's start, port and path end): a row that wraps, or a column
   * that reads `http:/…`, is worse than one column fewer (`--json` and the
   * plain rows keep them all). Those of them whose values are all alike say
   * nothing that tells the rows apart: they go first.
   */
  dropFirst?: number[];
  /** Columns of URLs: cut at the end of their host, so that the port and the end of the path stay (shortenUrl). */
  urls?: number[];
  /** Columns cut in their middle, so that their start and their end both stay (an id, a list of scopes). */
  middle?: number[];
  /** Columns of event types (or lists of them): not cut under 12 characters while another may be left out, so that
   *  `product.upd…` and `production_…` still differ. */
  events?: number[];
  /** No terminal: tab-separated rows, no header, nothing shortened, as `gh` prints into a pipe. */
  plain?: boolean;
}

/** A time in a table: relative on a terminal, ISO 8601 in a pipe (where a script reads it). */
export const tableTime = (iso: string | undefined, now: number, options: TableOptions) => (options.plain ? (iso ?? '') : relativeTime(iso, now));

const GAP = 2;

/** No border: columns apart by GAP spaces, as gh prints its lists. */
const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};
/** The narrowest a shortened column gets (its title is cut too, when nothing else can give). */
const MIN_SHORTENED = 5;
/** A column is cut narrower than this only when no other may be left out (dropFirst). */
const LEGIBLE = 8;
/** The same for event types, whose first 8 characters may be alike (`product.`, `producti`). */
const LEGIBLE_EVENT = 12;

/**
 * A table of sanitised cells. On a terminal: borderless columns (cli-table3,
 * loaded only then) under a bold header, fitted to the terminal's width. In a
 * pipe: tab-separated rows that `cut` and `awk` read.
 */
export async function renderTable(head: string[], rows: string[][], colors: Colors, options: TableOptions = {}): Promise<string> {
  const cells = rows.map((row) => row.map((cell) => sanitize(cell).replace(/\t/g, ' ')));
  if (options.plain) return cells.map((row) => `${row.join('\t')}\n`).join('');
  const widths = options.widths ?? [];
  const whole = new Set(options.whole ?? [0]);
  const urls = new Set(options.urls ?? []);
  const valuesWidth = head.map((_title, i) => Math.max(0, ...cells.map((row) => displayWidth(row[i] ?? ''))));
  // cli-table3 draws an empty column one character wide.
  const natural = head.map((title, i) => Math.max(1, displayWidth(title), valuesWidth[i]!));
  const firstPage = widths.length === 0;
  head.forEach((_title, i) => {
    if (firstPage) widths[i] = natural[i]!;
    else if (whole.has(i) && widths[i] !== DROPPED) widths[i] = Math.max(widths[i]!, natural[i]!);
  });
  if (firstPage && options.maxWidth) fitToWidth(widths, { cells, valuesWidth, natural, whole, urls }, options.maxWidth, options);
  // Cells are cut here, where each column's way of cutting is known; cli-table3 then finds every cell fitting.
  const middle = new Set(options.middle ?? []);
  const cut = (text: string, i: number) => {
    if (displayWidth(text) <= widths[i]!) return text;
    if (urls.has(i)) return shortenUrl(text, widths[i]!);
    return middle.has(i) ? cutMiddle(text, widths[i]!) : cutEnd(text, widths[i]!);
  };
  const shown = head.map((_title, i) => i).filter((i) => widths[i] !== DROPPED);
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: shown.map((i) => colors.bold(cutEnd(head[i]!, widths[i]!))),
    colWidths: shown.map((i) => widths[i]!),
    wordWrap: false,
    truncate: '…',
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of cells) table.push(shown.map((i) => cut(row[i] ?? '', i)));
  const lines = table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd());
  return `${(options.withHead === false ? lines.slice(1) : lines).join('\n')}\n`;
}

/** The width of a column left out (dropFirst): kept in the shared widths so that later pages leave it out too. */
const DROPPED = -1;

const totalWidth = (widths: number[]) => {
  const shown = widths.filter((width) => width !== DROPPED);
  return shown.reduce((sum, width) => sum + width, 0) + GAP * (shown.length - 1);
};

/** Narrows the widest shortenable column, one character at a time, until the row fits or none is above its floor. */
function narrowColumns(widths: number[], whole: Set<number>, maxWidth: number, floors: number[]): void {
  let total = totalWidth(widths);
  while (total > maxWidth) {
    let widest = -1;
    widths.forEach((width, i) => {
      if (!whole.has(i) && width !== DROPPED && width > floors[i]! && (widest < 0 || width > widths[widest]!)) widest = i;
    });
    if (widest < 0) return;
    widths[widest]! -= 1;
    total -= 1;
  }
}

/** Shares the width left over among the shortenable columns, in proportion to their widths. */
function spread(widths: number[], whole: Set<number>, maxWidth: number): void {
  const open = widths.map((_width, i) => i).filter((i) => !whole.has(i) && widths[i] !== DROPPED);
  const spare = maxWidth - totalWidth(widths);
  const base = open.reduce((sum, i) => sum + widths[i]!, 0);
  if (spare <= 0 || base === 0) return;
  for (const i of open) widths[i]! += Math.floor((spare * widths[i]!) / base);
}

/**
 * The widths of a table's columns fitted to `maxWidth`: first a column that
 * may be left out and reads the same on every row goes; then columns are cut
 * to no fewer than 8 characters (an event type: 12; a URL: its host's start,
 * its port and its path's end) while one may still be left out, and when
 * cutting is not enough, the next in `dropFirst` is left out; once none may
 * be, they are cut to 5. A streamed list's later pages keep these widths: the
 * room the terminal has to spare goes to the columns cut first.
 */
function fitToWidth(
  widths: number[],
  table: { cells: string[][]; valuesWidth: number[]; natural: number[]; whole: Set<number>; urls: Set<number> },
  maxWidth: number,
  options: TableOptions,
): void {
  const { cells, valuesWidth, natural, whole, urls } = table;
  const wholeOrReluctant = new Set([...whole, ...(options.reluctant ?? [])]);
  // Cut to no fewer than 8 characters (a URL: its host's start, its port and its path's end) while a column may
  // still be left out (a column whose values are shorter keeps them, only its title is cut); once none may, to 5.
  const events = new Set(options.events ?? []);
  const legible = valuesWidth.map((width, i) => {
    if (urls.has(i)) return Math.max(MIN_SHORTENED, ...cells.map((row) => urlKeptWidth(row[i] ?? '')));
    return Math.max(MIN_SHORTENED, Math.min(events.has(i) ? LEGIBLE_EVENT : LEGIBLE, width));
  });
  const least = widths.map(() => MIN_SHORTENED);
  const fitDownTo = (floors: number[]) => {
    narrowColumns(widths, wholeOrReluctant, maxWidth, floors);
    narrowColumns(widths, whole, maxWidth, floors);
  };
  // A column that may be left out and whose values are all alike tells no row from another: it goes before anything
  // is cut (a URL above all).
  const dropFirst = options.dropFirst ?? [];
  const alike = (i: number) => cells.length > 1 && cells.every((row) => row[i] === cells[0]![i]);
  for (const i of dropFirst.filter(alike)) if (totalWidth(widths) > maxWidth) widths[i] = DROPPED;
  const toDrop = dropFirst.filter((i) => widths[i] !== DROPPED);
  fitDownTo(legible);
  while (totalWidth(widths) > maxWidth && toDrop.length > 0) {
    // One column fewer, and the others start again from their whole widths.
    const next = toDrop.shift();
    widths.forEach((width, i) => {
      widths[i] = width === DROPPED || i === next ? DROPPED : natural[i]!;
    });
    fitDownTo(legible);
  }
  fitDownTo(least);
  // A streamed list's later pages keep these widths: room the terminal has to spare goes to the columns cut first.
  if (options.widths) spread(widths, wholeOrReluctant, maxWidth);
}
