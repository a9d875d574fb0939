import type { CommandDeps } from '../../cli/context.js';
import { writePages, type Page } from '../../cli/output.js';
import { deliveryTable, type Delivery } from './view.js';

export interface DeliveriesListOptions {
  webhookId: string;
  status?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  all: boolean;
}

export async function run(options: DeliveriesListOptions, deps: CommandDeps): Promise<number> {
  await writePages<Delivery>(deps, {
    all: options.all,
    firstCursor: options.cursor,
    fetchPage: (cursor) =>
      deps.api.json<Page<Delivery>>('GET', `/v1/webhooks/${encodeURIComponent(options.webhookId)}/deliveries`, {
        query: { limit: options.limit, cursor, status: options.status },
        expect: 'page',
      }),
    renderPage: (items, table) => deliveryTable(items, deps.colors, deps.serviceNow(), table),
    empty: 'No deliveries.\n',
    nextCommand: (cursor) =>
      ['whsvc deliveries list', options.webhookId, options.status ? `--status ${options.status}` : '', options.limit ? `--limit ${options.limit}` : '', `--cursor ${cursor}`]
        .filter(Boolean)
        .join(' '),
  });
  return 0;
}
