import type { Attempt } from '../../api/shapes.js';
import { listAttempts } from '../../api/endpoints.js';
import { Argument, Command, Option } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { integerIn, oneOf, resourceId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/context.js';
import { writePages } from '../../cli/output.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../protocol/status.js';
import { attemptTable } from './shared/view.js';
import { NewestFirst } from './shared/fate.js';

export const command = (runF = run) =>
  new Command('list')
    .description("a webhook's delivery attempts, newest first")
    .addArgument(new Argument('<webhook-id>', 'webhook id').argParser(resourceId('webhook')))
    .addOption(new Option('--status <status>', 'delivered, failed or pending').argParser(oneOf(DELIVERY_STATUSES)))
    .addOption(new Option('--limit <n>', 'page size, 1 to 200').argParser(integerIn(1, 200)))
    .option('--cursor <cursor>', 'the page after this cursor')
    .option('--all', 'every page, streamed as it arrives')
    .addHelpText('after', examples('whsvc deliveries list wh_… --status failed', 'whsvc deliveries list wh_… --all --json'))
    .action(apiAction((deps, webhookId, o) => runF({ webhookId, status: o.status, limit: o.limit, cursor: o.cursor, all: Boolean(o.all) }, deps)));

export interface DeliveriesListOptions {
  webhookId: string;
  status?: DeliveryStatus | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  all: boolean;
}

export async function run(options: DeliveriesListOptions, deps: CommandDeps): Promise<number> {
  // A delivery's newest attempt says its fate: known only of a log read from its top, with none of its attempts left out.
  const newest = new NewestFirst(options.cursor === undefined && options.status === undefined);
  await writePages<Attempt>(deps, {
    all: options.all,
    firstCursor: options.cursor,
    fetchPage: (cursor) => listAttempts(deps.api, options.webhookId, { limit: options.limit, cursor, status: options.status }),
    renderPage: (items, table) => attemptTable(items, deps.colors, deps.serviceNow(), table, newest),
    empty: 'No deliveries.\n',
    nextCommand: (cursor) =>
      [
        'whsvc deliveries list',
        options.webhookId,
        options.status ? `--status ${options.status}` : '',
        options.limit ? `--limit ${options.limit}` : '',
        `--cursor ${cursor}`,
      ]
        .filter(Boolean)
        .join(' '),
  });
  return 0;
}
