import type { CommandDeps } from '../../cli/context.js';
import { writePages, type Page } from '../../cli/output.js';
import { webhookTable, type Webhook } from './view.js';

export interface ListOptions {
  active?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  all: boolean;
}

export async function run(options: ListOptions, deps: CommandDeps): Promise<number> {
  await writePages<Webhook>(deps, {
    all: options.all,
    firstCursor: options.cursor,
    fetchPage: (cursor) =>
      deps.api.json<Page<Webhook>>('GET', '/v1/webhooks', { query: { limit: options.limit, cursor, active: options.active }, expect: 'page' }),
    renderPage: (items, table) => webhookTable(items, deps.colors, deps.serviceNow(), table),
    empty: 'No webhooks. Create one with: whsvc webhooks create --url URL --events TYPE\n',
    nextCommand: (cursor) =>
      ['whsvc webhooks list', options.active === undefined ? '' : `--active ${options.active}`, options.limit ? `--limit ${options.limit}` : '', `--cursor ${cursor}`]
        .filter(Boolean)
        .join(' '),
  });
  return 0;
}
