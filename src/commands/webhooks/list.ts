import type { Webhook } from '../../api/shapes.js';
import { listWebhooks } from '../../api/endpoints.js';
import { ACCOUNT_WEBHOOKS } from '../../api/log.js';
import { Command, Option } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { integerIn, oneOf } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/context.js';
import { writePages } from '../../cli/output.js';
import { webhookTable } from './shared/view.js';

export const command = (runF = run) =>
  new Command('list')
    .description('one page of webhooks, or every page with --all')
    .addOption(new Option('--active <bool>', 'only active (true) or paused (false) webhooks').argParser(oneOf(['true', 'false'])))
    .addOption(new Option('--limit <n>', 'page size, 1 to 200').argParser(integerIn(1, 200)))
    .option('--cursor <cursor>', 'the page after this cursor (printed with a page that has more)')
    .option('--all', 'every page, streamed as it arrives')
    .addHelpText('after', examples('whsvc webhooks list --active true', "whsvc webhooks list --all --json | jq -r '.data[].url'"))
    .action(
      apiAction((deps, o) =>
        runF({ active: o.active === undefined ? undefined : o.active === 'true', limit: o.limit, cursor: o.cursor, all: Boolean(o.all) }, deps),
      ),
    );

export interface ListOptions {
  active?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  all: boolean;
}

export async function run(options: ListOptions, deps: CommandDeps): Promise<number> {
  await writePages<Webhook>(deps, {
    all: options.all,
    list: ACCOUNT_WEBHOOKS,
    firstCursor: options.cursor,
    fetchPage: (cursor) => listWebhooks(deps.api, { limit: options.limit, cursor, active: options.active }),
    renderPage: (items, table) => webhookTable(items, deps.colors, deps.serviceNow(), table),
    empty: 'No webhooks. Create one with: whsvc webhooks create --url URL --events TYPE\n',
    nextCommand: (cursor) =>
      [
        'whsvc webhooks list',
        options.active === undefined ? '' : `--active ${options.active}`,
        options.limit ? `--limit ${options.limit}` : '',
        `--cursor ${cursor}`,
      ]
        .filter(Boolean)
        .join(' '),
  });
  return 0;
}
