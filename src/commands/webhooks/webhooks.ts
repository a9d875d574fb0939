import { Argument, Option, type Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { apiAction, collect, list, oneOf } from '../../cli/actions.js';
import { integerIn, percentage, resourceId, timeBound } from '../../cli/parse.js';
import * as listVerb from './list.js';
import * as getVerb from './get.js';
import * as createVerb from './create.js';
import * as updateVerb from './update.js';
import * as deleteVerb from './delete.js';
import * as healthVerb from './health.js';

/** Defines `webhooks list|get|create|update|delete|health`. */
export function register(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('list, create, update and delete webhooks')
    .addHelpText('after', examples('whsvc webhooks list', 'whsvc webhooks create --url https://example.com/hooks --events invoice.paid'));
  webhooks
    .command('list')
    .description('one page of webhooks, or every page with --all')
    .addOption(new Option('--active <bool>', 'only active (true) or paused (false) webhooks').argParser(oneOf(['true', 'false'])))
    .addOption(new Option('--limit <n>', 'page size, 1 to 200').argParser(integerIn(1, 200)))
    .option('--cursor <cursor>', 'the page after this cursor (printed with a page that has more)')
    .option('--all', 'every page, streamed as it arrives')
    .addHelpText('after', examples('whsvc webhooks list --active true', 'whsvc webhooks list --all --json | jq -r \'.data[].url\''))
    .action(
      apiAction(
        listVerb,
        (_args, o) => ({ active: o.active === undefined ? undefined : o.active === 'true', limit: o.limit, cursor: o.cursor, all: Boolean(o.all) }),
      ),
    );
  webhooks
    .command('get')
    .description('one webhook')
    .addArgument(new Argument('<id>', 'webhook id').argParser(resourceId('webhook')))
    .addHelpText('after', examples('whsvc webhooks get wh_…', 'whsvc webhooks get wh_… --json'))
    .action(apiAction(getVerb, ([id]) => ({ id: id! })));
  webhooks
    .command('create')
    .description('create a webhook; its signing secret is shown once')
    .option('--url <url>', 'the https endpoint (asked when missing on a terminal)')
    .addOption(new Option('--events <types>', 'comma-separated event types (a checklist when missing on a terminal)').argParser(list))
    .option('--inactive', 'create it paused')
    .option('--secret-file <path>', 'write the signing secret to this file (mode 0600) instead of showing it')
    .option('--force', 'let --secret-file overwrite an existing file')
    .addHelpText(
      'after',
      examples(
        'whsvc webhooks create --url https://example.com/hooks --events invoice.paid,sales_order.created',
        'whsvc webhooks create --url https://example.com/hooks --events invoice.paid --secret-file ./whsec.txt',
      ),
    )
    .action(
      apiAction(
        createVerb,
        (_args, o) => ({ url: o.url, events: o.events, inactive: Boolean(o.inactive), secretFile: o.secretFile, force: Boolean(o.force) }),
      ),
    );
  webhooks
    .command('update')
    .description('change only what is given')
    .addArgument(new Argument('<id>', 'webhook id').argParser(resourceId('webhook')))
    .option('--url <url>', 'new endpoint')
    .addOption(new Option('--events <types>', 'replace the event list').argParser(list))
    .addOption(new Option('--add-events <types>', 'add to the current event list').argParser(list))
    .addOption(new Option('--remove-events <types>', 'remove from the current event list').argParser(list))
    .addOption(new Option('--active', 'resume deliveries').conflicts('inactive'))
    .addOption(new Option('--inactive', 'pause deliveries').conflicts('active'))
    .addHelpText('after', examples('whsvc webhooks update wh_… --add-events invoice.paid', 'whsvc webhooks update wh_… --inactive          # pause deliveries'))
    .action(
      apiAction(
        updateVerb,
        ([id], o) => ({
          id: id!,
          url: o.url,
          events: o.events,
          addEvents: o.addEvents,
          removeEvents: o.removeEvents,
          active: o.active ? true : o.inactive ? false : undefined,
        }),
      ),
    );
  webhooks
    .command('delete')
    .description('delete a webhook (asks on a terminal; --yes otherwise)')
    .addArgument(new Argument('<id>', 'webhook id').argParser(resourceId('webhook')))
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', examples('whsvc webhooks delete wh_…', 'whsvc webhooks delete wh_… --yes   # in scripts'))
    .action(apiAction(deleteVerb, ([id], o) => ({ id: id!, yes: Boolean(o.yes) })));
  webhooks
    .command('health')
    .description('delivered share, failures and last outcomes per webhook, worst first; exit 1 when any is unhealthy')
    .addArgument(new Argument('[ids...]', 'webhook ids (default: every webhook)').argParser(collect(resourceId('webhook'))))
    .addOption(new Option('--since <time>', 'the window: a duration back from now (30m, 2h, 3d) or an ISO 8601 time; default 24h').argParser(timeBound))
    .addOption(new Option('--fail-under <pct>', 'a webhook that delivered less than this percentage (95 or 95%) is unhealthy too').argParser(percentage))
    .addHelpText(
      'after',
      examples(
        'whsvc webhooks health',
        'whsvc webhooks health wh_… --since 2h',
        'whsvc webhooks health --fail-under 95 --json   # in a cron job or CI: exit 1 when unhealthy',
      ),
    )
    .action(apiAction(healthVerb, ([ids], o) => ({ ids: (ids as unknown as string[] | undefined) ?? [], since: o.since, failUnder: o.failUnder })));
}
