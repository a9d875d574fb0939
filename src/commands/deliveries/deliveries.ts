import { Argument, Option, type Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { apiAction, collect, oneOf } from '../../cli/actions.js';
import { gracefulInterrupt } from '../../cli/interrupt.js';
import { integerIn, resourceId, timeBound } from '../../cli/parse.js';

/** Sends in flight at once in a bulk re-send; the maximum keeps one run from flooding the service. */
const concurrencyOption = () =>
  new Option('--concurrency <n>', 're-sends in flight at once, 1 to 32').default(8).argParser(integerIn(1, 32));

/** Defines `deliveries list|show|retry|recover`. */
export function register(program: Command): void {
  const deliveries = program
    .command('deliveries')
    .description('the delivery attempt log, and retries')
    .addHelpText('after', examples('whsvc deliveries list wh_… --status failed', 'whsvc deliveries retry dlv_…'));
  deliveries
    .command('list')
    .description("a webhook's delivery attempts, newest first")
    .addArgument(new Argument('<webhook-id>', 'webhook id').argParser(resourceId('webhook')))
    .addOption(new Option('--status <status>', 'delivered, failed or pending').argParser(oneOf(['delivered', 'failed', 'pending'])))
    .addOption(new Option('--limit <n>', 'page size, 1 to 200').argParser(integerIn(1, 200)))
    .option('--cursor <cursor>', 'the page after this cursor')
    .option('--all', 'every page, streamed as it arrives')
    .addHelpText('after', examples('whsvc deliveries list wh_… --status failed', 'whsvc deliveries list wh_… --all --json'))
    .action(
      apiAction(
        () => import('./list.js'),
        ([webhookId], o) => ({ webhookId: webhookId!, status: o.status, limit: o.limit, cursor: o.cursor, all: Boolean(o.all) }),
      ),
    );
  deliveries
    .command('show')
    .description('one attempt, with its payload and signature')
    .addArgument(new Argument('<delivery-id>', 'delivery id').argParser(resourceId('delivery')))
    .addHelpText('after', examples('whsvc deliveries show dlv_…', "whsvc deliveries show dlv_… --json | jq .payload"))
    .action(apiAction(() => import('./show.js'), ([id]) => ({ id: id! })));
  deliveries
    .command('retry')
    .description('re-send failed or pending attempts now (several ids: side by side, with a summary)')
    .addArgument(new Argument('<delivery-id...>', 'delivery ids').argParser(collect(resourceId('delivery'))))
    .addOption(concurrencyOption())
    .addHelpText('after', examples('whsvc deliveries retry dlv_…', 'whsvc deliveries retry dlv_A dlv_B dlv_C --json'))
    .action(
      apiAction(
        () => import('./retry.js'),
        ([ids], o) => ({ ids: ids as unknown as string[], concurrency: o.concurrency, stop: gracefulInterrupt() }),
      ),
    );
  deliveries
    .command('recover')
    .description('after an outage: re-send every failed delivery (of all webhooks, or those named), each once')
    .addOption(new Option('--webhook <id>', 'only this webhook (repeatable)').argParser(collect(resourceId('webhook'))).default([], 'all'))
    .addOption(new Option('--since <when>', 'only deliveries tried since then: 2h, 30m, 3d, or an ISO 8601 time').argParser(timeBound))
    .addOption(new Option('--until <when>', 'only deliveries tried until then (same forms)').argParser(timeBound))
    .addOption(new Option('--event <type>', 'only this event type (repeatable)').argParser(collect((v) => v)).default([], 'all'))
    .addOption(new Option('--status <status>', 'which deliveries: failed, or pending (under way for too long)').argParser(oneOf(['failed', 'pending'])).default('failed'))
    .option('--dry-run', 'list what would be re-sent, and send nothing')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(concurrencyOption())
    .addHelpText(
      'after',
      examples(
        'whsvc deliveries recover --since 2h --dry-run',
        'whsvc deliveries recover --since 2h --yes',
        'whsvc deliveries recover --webhook wh_… --event invoice.paid --since 2026-11-23T08:00:00Z --yes --json',
      ),
    )
    .action(
      apiAction(
        () => import('./recover.js'),
        (_args, o) => ({
          status: o.status,
          webhooks: [...new Set(o.webhook as string[])],
          events: o.event,
          since: o.since,
          until: o.until,
          dryRun: Boolean(o.dryRun),
          yes: Boolean(o.yes),
          concurrency: o.concurrency,
          stop: gracefulInterrupt(),
          argv: process.argv.slice(2),
        }),
      ),
    );
}
