import type { Colors } from './colors.js';
import { sanitize } from './text.js';

/** A borderless table (cli-table3, loaded only when a table is drawn) of sanitised cells, headed in bold. */
export async function renderTable(head: string[], rows: string[][], colors: Colors): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: head.map((h) => colors.bold(h)),
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '',
      'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows) table.push(row.map((cell) => sanitize(cell)));
  return table.toString().split('\n').map((line) => line.trimEnd()).join('\n') + '\n';
}
