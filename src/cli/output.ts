import type { Page } from '../api/shapes.js';
import { PageWalk } from '../api/log.js';
import type { SharedLayout, TableOptions } from '../render/table.js';
import { shellWord } from '../render/text.js';
import type { CommandDeps } from './context.js';
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
      const command = options.nextCommand(shellWord(page.next_cursor));
      deps.stderr.write(laidOut(deps.stderr, deps.errColors.dim(`More on the next page: ${command}\n`), [command]));
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
