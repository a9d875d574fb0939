import type { Page } from '../api/shapes.js';
import { PageWalk } from '../api/log.js';
import type { SharedLayout, TableOptions } from '../render/table.js';
import { shellWord } from '../render/text.js';
import type { CommandDeps } from './context.js';

export type { Page };

/** How a table suits stdout: fitted to a terminal's width, or plain tab-separated rows in a pipe. */
export function tableLayout(stdout: CommandDeps['stdout']): TableOptions {
  return stdout.isTTY ? { maxWidth: stdout.columns || undefined } : { plain: true };
}

/** The note of an empty list: on a terminal, in its place; in a pipe on stderr, since stdout holds rows only (a script must not take it for one). */
export function writeEmptyNote(deps: Pick<CommandDeps, 'stdout' | 'stderr'>, layout: TableOptions, note: string): void {
  (layout.plain ? deps.stderr : deps.stdout).write(note);
}

/**
 * Where a command's --json output goes, as values: printed as JSON text, or,
 * with --jq, each JSON text through the filter (jq.ts JqJson). A command
 * hands it values and never writes JSON text to stdout itself, so that --jq
 * gets what the command meant, not text to take apart again.
 */
export interface JsonOutput {
  /** One whole document: an object, a page, a summary. */
  document(value: unknown): void;
  /** A document that is already JSON text (the service's own bytes, every digit kept: `whsvc api`). */
  text(json: string): void;
  /** One line of an NDJSON stream (listen, tail, replay), printed at once. */
  line(value: unknown): void;
  /** One document written as it goes, `{ head…, "<key>": [items…], tail… }` (JsonDocumentStream). */
  stream(key: string, head?: Record<string, unknown>, pretty?: boolean): JsonDocument;
}

/** A document written as it goes: begun with the first item, ended whatever happens. */
export interface JsonDocument {
  readonly count: number;
  /** Whether anything was written. */
  readonly started: boolean;
  item(value: unknown): void;
  end(tail: Record<string, unknown>): void;
}

/** --json's output as text on stdout: documents indented, lines compact. */
export class PrintedJson implements JsonOutput {
  constructor(private readonly out: { write(chunk: string): unknown }) {}

  document(value: unknown): void {
    this.out.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  text(json: string): void {
    this.out.write(json.endsWith('\n') ? json : `${json}\n`);
  }

  line(value: unknown): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }

  stream(key: string, head: Record<string, unknown> = {}, pretty = false): JsonDocument {
    return new JsonDocumentStream(this.out, key, head, pretty);
  }
}

/**
 * One JSON document written as it goes, `{ head…, "<key>": [items…], tail… }`:
 * begun with the first item (or at the end), so that a run that fails before
 * any leaves stdout empty, and ended whatever happens, so that stdout is one
 * whole document. Compact (an item a line) or `pretty`, as printJson writes.
 */
class JsonDocumentStream implements JsonDocument {
  private begun = false;
  count = 0;

  constructor(
    private readonly out: { write(chunk: string): unknown },
    private readonly key: string,
    private readonly head: Record<string, unknown>,
    private readonly pretty: boolean,
  ) {}

  get started(): boolean {
    return this.begun;
  }

  item(value: unknown): void {
    this.begin();
    this.out.write(`${this.count === 0 ? '' : ','}\n${this.pretty ? `    ${JSON.stringify(value, null, 2).replace(/\n/g, '\n    ')}` : JSON.stringify(value)}`);
    this.count += 1;
  }

  end(tail: Record<string, unknown>): void {
    this.begin();
    const fields = Object.entries(tail).map(([name, value]) => `,${this.field(name, value)}`);
    this.out.write(`${this.count === 0 ? '' : this.pretty ? '\n  ' : '\n'}]${fields.join('')}${this.pretty ? '\n' : ''}}\n`);
  }

  private begin(): void {
    if (this.begun) return;
    this.begun = true;
    const fields = Object.entries(this.head).map(([name, value]) => `${this.field(name, value)},`);
    this.out.write(`{${fields.join('')}${this.pretty ? `\n  ${JSON.stringify(this.key)}: [` : `${JSON.stringify(this.key)}:[`}`);
  }

  private field(name: string, value: unknown): string {
    return this.pretty
      ? `\n  ${JSON.stringify(name)}: ${JSON.stringify(value, null, 2).replace(/\n/g, '\n  ')}`
      : `${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
}

export function printJson(deps: Pick<CommandDeps, 'jsonOut'>, value: unknown): void {
  deps.jsonOut.document(value);
}

/**
 * One page, or every page with `all`, written as each page arrives so that
 * memory stays flat: in JSON one envelope `{ data, has_more: false,
 * next_cursor: null }` is streamed item by item; in human mode each page is
 * rendered as it comes, and a page that has more ends with a hint on stderr.
 */
export async function writePages<T>(
  deps: Pick<CommandDeps, 'stdout' | 'stderr' | 'json' | 'errColors' | 'jsonOut'>,
  options: {
    all: boolean;
    firstCursor?: string | undefined;
    fetchPage: (cursor: string | undefined) => Promise<Page<T>>;
    /** Renders one page; `table` carries the head switch and the layout the pages share. */
    renderPage: (items: T[], table: TableOptions) => string | Promise<string>;
    empty: string;
    nextCommand: (cursor: string) => string;
  },
): Promise<void> {
  let cursor = options.firstCursor;
  const layout = tableLayout(deps.stdout);
  const emptyNote = () => writeEmptyNote(deps, layout, options.empty);
  if (!options.all) {
    const page = await options.fetchPage(cursor);
    if (deps.json) return printJson(deps, page);
    if (page.data.length === 0) emptyNote();
    else deps.stdout.write(await options.renderPage(page.data, layout));
    if (page.has_more && page.next_cursor) {
      deps.stderr.write(deps.errColors.dim(`More on the next page: ${options.nextCommand(shellWord(page.next_cursor))}\n`));
    }
    return;
  }
  let first = true;
  let count = 0;
  // Shared by the pages, so that they line up.
  const shared: SharedLayout = {};
  const document = deps.json ? deps.jsonOut.stream('data', {}, true) : undefined;
  const walk = new PageWalk(cursor);
  for (;;) {
    const page = await options.fetchPage(cursor);
    if (document) {
      for (const item of page.data) document.item(item);
    } else if (page.data.length > 0) {
      deps.stdout.write(await options.renderPage(page.data, { ...layout, withHead: first, shared }));
      count += page.data.length;
      first = false;
    }
    const next = walk.next(page);
    if (next === undefined) break;
    cursor = next;
  }
  if (document) document.end({ has_more: false, next_cursor: null });
  else if (count === 0) emptyNote();
}
