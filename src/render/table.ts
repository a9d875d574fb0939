import type { Colors } from './colors.js';
import { sanitize } from './text.js';

export interface TableOptions {
  /** False for the pages after the first of a streamed list: rows only. */
  withHead?: boolean;
  /**
   * Column widths shared by the pages of a streamed list: each page widens
   * them as its cells need and never narrows them, so later pages line up
   * with earlier ones (and no cell is ever cut).
   */
  widths?: number[];
}

/** A borderless table (cli-table3, loaded only when a table is drawn) of sanitised cells, headed in bold. */
export async function renderTable(head: string[], rows: string[][], colors: Colors, options: TableOptions = {}): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const cells = rows.map((row) => row.map((cell) => sanitize(cell)));
  const widths = options.widths ?? [];
  head.forEach((title, i) => {
    widths[i] = Math.max(widths[i] ?? 0, title.length, ...cells.map((row) => row[i]?.length ?? 0));
  });
  const table = new Table({
    head: head.map((h) => colors.bold(h)),
    colWidths: [...widths],
    wordWrap: false,
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '',
      'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of cells) table.push(row);
  const lines = table.toString().split('\n').map((line) => line.trimEnd());
  return `${(options.withHead === false ? lines.slice(1) : lines).join('\n')}\n`;
}
