import type { Colors } from './colors.js';
import { sanitize } from './text.js';
import { COMPACT_TIME_WIDTH, compactTime, RELATIVE_TIME_WIDTH, relativeTime } from './words.js';
import { cutEnd, cutWords, displayWidth, ID_SHORT_WIDTH, keepsScheme, originOf, shortenUrl, shortIdText, shortList } from './width.js';

/**
 * One column of a table: its title, how its cells fit, and what it gives up on a narrow terminal. Which columns a
 * table shows, and in which form, is decided from the terminal's width and these declared widths, then from the rows:
 * what gave way for room the rows do not need comes back (layoutOf). A streamed table measures no rows: its pages show
 * the same columns at the same width, whatever they list.
 */
export interface Column {
  /** Never cut: a column is at least as wide as its title. */
  title: string;
  /**
   * How its cells fit:
   * - `whole` (the default): never cut (a status, a code, a figure); `width` is the widest value it holds;
   * - `id`: an id, or text ending in one (`3 of dlv_…`), or a delivery's id and its attempt's number (`dlv_… #3`):
   *   whole, or with the id in its one short form (shortId), never another cut; `width` whole, `min` short;
   * - `time`: a time (ISO 8601 in the cells): relative (`15 seconds ago`), or in its compact form (`15s ago`);
   *   text that is no time (`no token`, `-`) is shown as it is;
   * - `url`: a URL whose scheme and host stay whole, its path losing its middle (shortenUrl); where one https row's
   *   must drop `https://` to keep its host, every https row's does, so that the column reads in one form; `http://`
   *   (sent unencrypted) always shows;
   * - `list`: items joined by `separator`, shortened to whole items and a count (`invoice.paid +2`);
   * - `words`: text cut between words (an event type, a description).
   * The last three are flexible: they take the room the others leave, down to `min`.
   */
  kind?: 'whole' | 'id' | 'time' | 'url' | 'list' | 'words';
  /** The width it is given whole (declared: the widest value the service sends, or for a flexible one, the width it
   *  should have before another column gives way). A wider id or whole value widens it. */
  width?: number;
  /** Its compact form's width (id: short; flexible: the narrowest it is cut to); a time's is COMPACT_TIME_WIDTH. */
  min?: number;
  /** The step, in one order with `drop`'s (lowest first), at which it takes its compact form. */
  give?: number;
  /** The step at which it is left out; without it, it never is. */
  drop?: number;
  /** The title of the column it explains or is explained by (a last failure's CODE, LAST FAILED): it is left out with
   *  that column, and comes back with it, never shown alone. */
  dropsWith?: string;
  /** A list's separator (`, ` by default). */
  separator?: string;
  /** The service's now, for a time column. */
  now?: number;
}

/** The layout the pages of a streamed list share: set by the first page, kept by the others. */
export interface SharedLayout {
  layout?: Layout;
}

export interface TableOptions {
  /** False for the pages after the first of a streamed list: rows only. */
  withHead?: boolean;
  /** Shared by the pages of a streamed list (`--all`): the first page decides the columns and their widths, later pages
   *  keep them (a longer value is shortened), so every page lines up under the one header. */
  shared?: SharedLayout;
  /** The terminal's width: the table is fitted into it. */
  maxWidth?: number | undefined;
  /** No terminal: tab-separated rows, no header, nothing shortened, times in ISO 8601, as `gh` prints into a pipe. */
  plain?: boolean;
}

interface Layout {
  /** Per column: its width, or DROPPED. */
  widths: number[];
  /** Per column: whether it is in its compact form. */
  compact: boolean[];
  /** Per URL column: whether its https URLs are shown without `https://` (`hooks.example.com/…`), every one alike. */
  schemeless: boolean[];
}

const DROPPED = -1;
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

const FLEXIBLE = new Set(['url', 'list', 'words']);
const isFlexible = (column: Column) => FLEXIBLE.has(column.kind ?? 'whole');

/** A cell's text in the column's form, before any cut to the width. */
function formOf(column: Column, cell: string, compact: boolean): string {
  if (column.kind === 'time') return (compact ? compactTime : relativeTime)(cell, column.now ?? Date.now());
  if (column.kind === 'id' && compact) return shortIdText(cell);
  return cell;
}

/** A cell in at most `width` columns, cut as its kind is; an https URL without `https://` where its column's are (`schemeless`). */
function cutTo(column: Column, text: string, width: number, schemeless: boolean): string {
  if (column.kind === 'url') return shortenUrl(text, width, !schemeless);
  if (displayWidth(text) <= width) return text;
  switch (column.kind) {
    case 'list':
      return shortList(text.split(column.separator ?? ', '), width, column.separator ?? ', ');
    case 'words':
      return cutWords(text, width);
    case 'id': {
      const short = shortIdText(text);
      return displayWidth(short) <= width ? short : cutEnd(short, width);
    }
    default:
      return cutEnd(text, width);
  }
}

const totalWidth = (widths: number[]) => {
  const shown = widths.filter((width) => width !== DROPPED);
  return shown.reduce((sum, width) => sum + width, 0) + GAP * Math.max(0, shown.length - 1);
};

/** The width a URL column keeps its hosts whole in: a host, and `/…` after it; a URL shorter than that whole. */
const hostsWidth = (cells: string[][], i: number) =>
  Math.max(0, ...cells.map((row) => Math.min(displayWidth(row[i] ?? ''), displayWidth(originOf(row[i] ?? '')) + 2)));

/**
 * A URL column too narrow for its hosts takes the room of an id shown whole: the id's short form still tells rows
 * apart, a host cut at its end may not (`https://hooks.production.example-compa…`).
 */
function keepHosts(columns: Column[], cells: string[][], widths: number[], compact: boolean[], declared: (i: number, compact: boolean) => number): void {
  columns.forEach((column, i) => {
    if (column.kind !== 'url' || widths[i] === DROPPED) return;
    const need = hostsWidth(cells, i);
    columns.forEach((other, j) => {
      if (widths[i]! >= need || other.kind !== 'id' || other.give === undefined || compact[j] || widths[j] === DROPPED) return;
      const short = declared(j, true);
      if (short >= widths[j]!) return;
      const whole = Math.max(displayWidth(column.title), ...cells.map((row) => displayWidth(row[i] ?? '')));
      widths[i] = Math.min(whole, widths[i]! + widths[j]! - short);
      widths[j] = short;
      compact[j] = true;
    });
  });
}

/** A column and those that go with it (dropsWith): left out together, back together. */
const partnersOf = (columns: Column[], i: number) => [i, ...columns.flatMap((column, j) => (column.dropsWith === columns[i]!.title && j !== i ? [j] : []))];

interface Step {
  rank: number;
  i: number;
  kind: 'give' | 'drop';
}

/**
 * Step by step in the order of `give` and `drop` (lowest first), a column takes its compact form or is left out, until
 * the declared widths fit `maxWidth`: the steps taken.
 */
function takeSteps(columns: Column[], widths: number[], compact: boolean[], maxWidth: number, declared: (i: number, compact: boolean) => number): Step[] {
  const steps = columns
    .flatMap((column, i) => [
      ...(column.give !== undefined ? [{ rank: column.give, i, kind: 'give' as const }] : []),
      ...(column.drop !== undefined ? [{ rank: column.drop, i, kind: 'drop' as const }] : []),
    ])
    .sort((a, b) => a.rank - b.rank);
  const taken: Step[] = [];
  for (const step of steps) {
    if (totalWidth(widths) <= maxWidth) break;
    if (widths[step.i] === DROPPED) continue;
    taken.push(step);
    if (step.kind === 'drop') for (const j of partnersOf(columns, step.i)) widths[j] = DROPPED;
    else {
      compact[step.i] = true;
      widths[step.i] = declared(step.i, true);
    }
  }
  return taken;
}

/**
 * The kinds whose whole form a column takes back where there is room: an id shown short, a flexible column's width (a
 * time keeps its compact form: it says as much).
 */
const TAKEN_BACK = new Set(['id', ...FLEXIBLE]);

interface Measures {
  /** A column's width in a form. */
  sized: (i: number, compact: boolean) => number;
  /** Whether its rows hold nothing. */
  blank: (i: number) => boolean;
  /** The least it needs beside a column that comes back (a URL column: its hosts whole). */
  least: (i: number) => number;
  /** Whether the table is streamed: measured by its declared widths alone. */
  streamed: boolean;
}

/**
 * The steps taken undone where the room is there after all, the last taken (the column the table holds dearest)
 * first, up to the first that does not fit: a column left out comes back (unless its rows hold nothing), an id is whole
 * again. Measured `by` a streamed table's declared widths (its later pages must fit too), another's rows. A streamed
 * table goes on past one that does not fit: an id shortened for a column that had to go anyway is whole again where
 * the room that column left holds it (the flexible columns take all the room left, measured by no rows).
 */
function undoSteps(columns: Column[], widths: number[], compact: boolean[], taken: Step[], maxWidth: number, by: Measures): void {
  for (const { i, kind } of [...taken].reverse()) {
    if (kind === 'give' && (widths[i] === DROPPED || !TAKEN_BACK.has(columns[i]!.kind ?? 'whole'))) continue;
    if (kind === 'drop' && by.blank(i)) continue;
    const form = kind === 'give' ? false : compact[i]!;
    const back = kind === 'drop' ? partnersOf(columns, i) : [i];
    const tried = widths.map((width, j) =>
      back.includes(j) ? by.sized(j, j === i ? form : compact[j]!) : width === DROPPED ? width : Math.max(width, by.least(j)),
    );
    // One that does not fit keeps the steps before it too (each gave way for it), but in a streamed table.
    if (totalWidth(tried) > maxWidth) {
      if (by.streamed) continue;
      return;
    }
    for (const j of back) widths[j] = tried[j]!;
    compact[i] = form;
  }
}

/**
 * Which columns show, in which form and how wide: first every column whole; then, step by step in the order of `give`
 * and `drop` (lowest first), a column takes its compact form or is left out, until the declared widths fit the
 * terminal. Only then are the rows measured: a column whose values are narrower than declared is narrower (unless the
 * table is streamed, whose later pages must fit), and a step the rows turn out not to need is undone (undoSteps:
 * a streamed table's by its declared widths alone); the flexible columns share the room left, up to their values'
 * width.
 */
function layoutOf(columns: Column[], cells: string[][], maxWidth: number | undefined, streamed: boolean): Layout {
  // cli-table3 draws an empty column one character wide.
  const title = (i: number) => Math.max(1, displayWidth(columns[i]!.title));
  const measured = (i: number, compact: boolean) => Math.max(0, ...cells.map((row) => displayWidth(formOf(columns[i]!, row[i] ?? '', compact))));
  const declared = (i: number, compact: boolean): number => {
    const column = columns[i]!;
    if (column.kind === 'time') return Math.max(title(i), compact ? COMPACT_TIME_WIDTH : RELATIVE_TIME_WIDTH);
    if (isFlexible(column)) return Math.max(title(i), (compact ? column.min : column.width) ?? column.min ?? column.width ?? 0);
    // An id or a whole value wider than declared widens its column: it is never cut.
    const width = compact ? (column.min ?? (column.kind === 'id' ? ID_SHORT_WIDTH : column.width)) : column.width;
    return Math.max(title(i), width ?? 0, measured(i, compact));
  };
  const natural = (i: number) => Math.max(title(i), measured(i, false));
  const compact = columns.map(() => false);
  const widths = columns.map((_column, i) => declared(i, false));
  const taken = maxWidth === undefined ? [] : takeSteps(columns, widths, compact, maxWidth, declared);
  // The rows measured: a column as wide as its values (or as declared, when later pages must fit too).
  const sized = (i: number, compact: boolean) => {
    if (streamed) return declared(i, compact);
    return isFlexible(columns[i]!) ? Math.min(declared(i, compact), natural(i)) : Math.max(title(i), Math.min(declared(i, compact), measured(i, compact)));
  };
  columns.forEach((column, i) => {
    if (widths[i] === DROPPED) return;
    widths[i] = maxWidth === undefined && isFlexible(column) ? natural(i) : sized(i, compact[i]!);
  });
  if (maxWidth === undefined) return { widths, compact, schemeless: columns.map(() => false) };
  // A column left out whose rows are all blank (no retry's own id) stays out: it would show its title alone.
  const blank = (i: number) => !streamed && cells.every((row) => (row[i] ?? '') === '');
  // What comes back takes no room a URL column needs for its hosts whole.
  const least = (i: number) => (streamed || columns[i]!.kind !== 'url' ? 0 : Math.min(natural(i), hostsWidth(cells, i)));
  undoSteps(columns, widths, compact, taken, maxWidth, { sized, blank, least, streamed });
  // The flexible columns: the room left, to the column that gave way last first (the one the table holds dearest), up
  // to its values' width (a streamed table's: all of it, for the pages to come).
  const flexible = columns.map((_column, i) => i).filter((i) => widths[i] !== DROPPED && isFlexible(columns[i]!));
  const byValue = [...flexible].sort((a, b) => (columns[b]!.give ?? Infinity) - (columns[a]!.give ?? Infinity) || a - b);
  for (const i of byValue) {
    const spare = maxWidth - totalWidth(widths);
    if (spare <= 0) break;
    widths[i]! += streamed ? spare : Math.max(0, Math.min(spare, natural(i) - widths[i]!));
  }
  if (!streamed) keepHosts(columns, cells, widths, compact, declared);
  // Too narrow for the declared widths even with every step taken: the flexible columns are cut down to their titles.
  for (const i of flexible) {
    const excess = totalWidth(widths) - maxWidth;
    if (excess <= 0) break;
    widths[i] = Math.max(title(i), widths[i]! - excess);
  }
  // One form per URL column: where one https row's host needs the room `https://` takes, every https row drops it
  // (`http://` stays on every row: shortenUrl). A streamed table decides from its first page.
  const schemeless = columns.map((column, i) => column.kind === 'url' && widths[i] !== DROPPED && cells.some((row) => !keepsScheme(row[i] ?? '', widths[i]!)));
  return { widths, compact, schemeless };
}

/**
 * A table of sanitised cells. On a terminal: borderless columns (cli-table3,
 * loaded only then) under a bold header, fitted to the terminal's width. In a
 * pipe: tab-separated rows that `cut` and `awk` read, every column whole.
 */
export async function renderTable(columns: Column[], rows: string[][], colors: Colors, options: TableOptions = {}): Promise<string> {
  const cells = rows.map((row) => row.map((cell) => sanitize(cell).replace(/\t/g, ' ')));
  if (options.plain) return cells.map((row) => `${row.join('\t')}\n`).join('');
  const layout = options.shared?.layout ?? layoutOf(columns, cells, options.maxWidth, options.shared !== undefined);
  if (options.shared) options.shared.layout = layout;
  const { widths, compact, schemeless } = layout;
  const shown = columns.map((_column, i) => i).filter((i) => widths[i] !== DROPPED);
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: shown.map((i) => colors.bold(columns[i]!.title)),
    colWidths: shown.map((i) => widths[i]!),
    wordWrap: false,
    truncate: '…',
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  // Cells are cut here, where each column's way of cutting is known; cli-table3 then finds every cell fitting.
  for (const row of cells) table.push(shown.map((i) => cutTo(columns[i]!, formOf(columns[i]!, row[i] ?? '', compact[i]!), widths[i]!, schemeless[i]!)));
  const lines = table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd());
  return `${(options.withHead === false ? lines.slice(1) : lines).join('\n')}\n`;
}
