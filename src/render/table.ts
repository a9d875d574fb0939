import type { Colors } from './colors.js';
import { relativeTime, sanitize } from './text.js';

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
  /** Columns never shortened (ids, event types): the first by default. */
  whole?: number[];
  /** No terminal: tab-separated rows, no header, nothing shortened, as `gh` prints into a pipe. */
  plain?: boolean;
}

/** A time in a table: relative on a terminal, ISO 8601 in a pipe (where a script reads it). */
export const tableTime = (iso: string | undefined, now: number, options: TableOptions) => (options.plain ? (iso ?? '') : relativeTime(iso, now));

const GAP = 2;
/** The narrowest a shortened column gets: its title, or this. */
const MIN_SHORTENED = 6;

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
  const natural = head.map((title, i) => Math.max(title.length, ...cells.map((row) => (row[i] ?? '').length)));
  const firstPage = widths.length === 0;
  head.forEach((_title, i) => {
    if (firstPage) widths[i] = natural[i]!;
    else if (whole.has(i)) widths[i] = Math.max(widths[i]!, natural[i]!);
  });
  if (firstPage && options.maxWidth) fit(widths, head, whole, options.maxWidth);
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: head.map((h) => colors.bold(h)),
    colWidths: [...widths],
    wordWrap: false,
    truncate: '…',
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '',
      'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: ' '.repeat(GAP),
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of cells) table.push(row);
  const lines = table.toString().split('\n').map((line) => line.trimEnd());
  return `${(options.withHead === false ? lines.slice(1) : lines).join('\n')}\n`;
}

/** Narrows the widest shortenable column, one character at a time, until the row fits or nothing more can give. */
function fit(widths: number[], head: string[], whole: Set<number>, maxWidth: number): void {
  let total = widths.reduce((sum, width) => sum + width, 0) + GAP * (widths.length - 1);
  while (total > maxWidth) {
    let widest = -1;
    widths.forEach((width, i) => {
      const floor = Math.max(head[i]!.length, MIN_SHORTENED);
      if (!whole.has(i) && width > floor && (widest < 0 || width > widths[widest]!)) widest = i;
    });
    if (widest < 0) return;
    widths[widest]! -= 1;
    total -= 1;
  }
}
