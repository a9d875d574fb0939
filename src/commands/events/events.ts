import { Argument, type Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { apiAction } from '../../cli/actions.js';
import { resourceId } from '../../cli/parse.js';
import * as listVerb from './list.js';
import * as testVerb from './test.js';

/** Defines `events` and `test`. */
export function register(program: Command): void {
  program
    .command('events')
    .description('the event-type catalog, grouped by module')
    .addHelpText('after', examples('whsvc events', "whsvc events --json | jq -r '.data[].type'"))
    .action(apiAction(listVerb, () => ({})));

  program
    .command('test')
    .description('send a sample event to a webhook now (exit 1 if the endpoint did not accept it)')
    .addArgument(new Argument('<webhook-id>', 'webhook id').argParser(resourceId('webhook')))
    .option('--event <type>', 'event type to simulate (default invoice.paid)')
    .addHelpText('after', examples('whsvc test wh_…', 'whsvc test wh_… --event sales_order.created'))
    .action(apiAction(testVerb, ([webhookId], o) => ({ webhookId: webhookId!, event: o.event })));
}
