import type { Page } from '../api/shapes.js';
import { PageWalk } from '../api/log.js';
import type { SharedLayout, TableOptions } from '../render/table.js';
import { countText, shellWord } from '../render/text.js';
import type { CommandDeps } from './context.js';
import type { JsonDocument, Shown } from './json-output.js';
import { laidOut } from '../render/wrap.js';

export type { Page };

/** How a table suits stdout: fitted to a terminal's width, or plain tab-separated rows in a pipe. */
export function tableLayout(stdout: CommandDeps['stdout']): TableOptions {
  return stdout.isTTY ? { maxWidth: stdout.columns || undefined } : { plain: true };
}

/** The note of an empty list: on a terminal, in its place; in a pipe on stderr, since stdout holds rows only (a script must not take it for one). */
export function writeEmptyNote(deps: Pick<CommandDeps, 'stdout' | 'stderr'>, layout: TableOptions, note: string): void {
  const stream = layout.plain ? deps.stderr : deps.stdout;
  stream.write(laidOut(stream, note));
}

/**
 * The one line under every list that showed part of what there is, on stderr: how many it showed, --all, which every
 * list has, and what shows more: the command for the next page last, where nothing of the sentence follows it into a
 * paste (`More than the 20 shown (--all shows every one); the next page: whsvc webhooks list --cursor C`), or a flag
 * (`More than the 20 shown: --limit N shows more, --all every one.`).
 */
export function writeMoreLine(deps: Pick<CommandDeps, 'stderr' | 'errColors'>, shown: number, next: { command: string } | { flag: string }): void {
  const line =
    'command' in next
      ? `More than the ${countText(shown)} shown (--all shows every one); the next page: ${next.command}\n`
      : `More than the ${countText(shown)} shown: ${next.flag} shows more, --all every one.\n`;
  deps.stderr.write(laidOut(deps.stderr, deps.errColors.dim(line), 'command' in next ? [next.command] : []));
}

/** One document of --json, with the secret it carries if any; what became of it (JsonOutput.document). */
export function printJson(deps: Pick<CommandDeps, 'jsonOut'>, value: unknown, secret?: string): Shown {
  return deps.jsonOut.document(value, secret);
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
    /** The list, as the errors of its walk name it (api/log.ts logOf, ACCOUNT_WEBHOOKS). */
    list: string;
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
    if (deps.json) {
      printJson(deps, page);
      return;
    }
    if (page.data.length === 0) emptyNote();
    else deps.stdout.write(await options.renderPage(page.data, layout));
    if (page.has_more && page.next_cursor) writeMoreLine(deps, page.data.length, { command: options.nextCommand(shellWord(page.next_cursor)) });
    return;
  }
  const list = new StreamedList<T>(deps, options.renderPage, options.empty);
  const walk = new PageWalk(options.list, cursor);
  try {
    for (;;) {
      const page = await options.fetchPage(cursor);
      await list.add(page.data);
      const next = walk.next(page);
      if (next === undefined) break;
      cursor = next;
    }
  } catch (error) {
    list.abandon();
    throw error;
  }
  list.end(false);
}

/**
 * A list written as its items arrive, memory flat: with --json one envelope `{ data, has_more, next_cursor: null }`
 * streamed item by item; in human mode a table of each batch, every one under the first one's header and columns;
 * the empty note when nothing came.
 */
export class StreamedList<T> {
  private readonly layout: TableOptions;
  private readonly document: JsonDocument | undefined;
  /** Shared by the batches, so that they line up. */
  private readonly shared: SharedLayout = {};
  private count = 0;

  constructor(
    private readonly deps: Pick<CommandDeps, 'stdout' | 'stderr' | 'json' | 'jsonOut'>,
    private readonly renderPage: (items: T[], table: TableOptions) => string | Promise<string>,
    private readonly empty: string,
  ) {
    this.layout = tableLayout(deps.stdout);
    this.document = deps.json ? deps.jsonOut.stream('data', {}, true) : undefined;
  }

  async add(items: T[]): Promise<void> {
    if (this.document) {
      for (const item of items) this.document.item(item);
    } else if (items.length > 0) {
      this.deps.stdout.write(await this.renderPage(items, { ...this.layout, withHead: this.count === 0, shared: this.shared }));
    }
    this.count += items.length;
  }

  /** `hasMore`: more would have followed (the envelope's has_more); there is no cursor to them. */
  end(hasMore: boolean): void {
    if (this.document) this.document.end({ has_more: hasMore, next_cursor: null });
    else if (this.count === 0) writeEmptyNote(this.deps, this.layout, this.empty);
  }

  /** A list that failed part-way: the JSON envelope, if begun, is cut (JsonDocument.cut), never closed as if whole. */
  abandon(): void {
    this.document?.cut();
  }
}
