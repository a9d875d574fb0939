import { Argument, Option, type Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { apiAction, oneOf } from '../../cli/actions.js';
import { integerIn, resourceId } from '../../cli/parse.js';

/** Defines `deliveries list|show|retry`. */
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
    .description('re-send a failed or pending attempt now')
    .addArgument(new Argument('<delivery-id>', 'delivery id').argParser(resourceId('delivery')))
    .addHelpText('after', examples('whsvc deliveries retry dlv_…'))
    .action(apiAction(() => import('./retry.js'), ([id]) => ({ id: id! })));
}
