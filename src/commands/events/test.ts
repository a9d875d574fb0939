import { getWebhook, sendTestEvent } from '../../api/endpoints.js';
import { Argument, Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { resourceId } from '../../cli/parse.js';
import { checkEventTypes } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { sanitize } from '../../render/text.js';
import { reportSentAttempt } from '../deliveries/shared/view.js';
import { laidOut } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('test')
    .description('send a sample event to a webhook now (exit 1 if the endpoint did not accept it)')
    .addArgument(new Argument('<webhook-id>', 'webhook id').argParser(resourceId('webhook')))
    .option('--event <type>', 'event type to simulate (default invoice.paid)')
    .addHelpText('after', examples('whsvc test wh_…', 'whsvc test wh_… --event sales_order.created'))
    .action(apiAction((deps, webhookId, o) => runF({ webhookId, event: o.event }, deps)));

export async function run(options: { webhookId: string; event?: string | undefined }, deps: CommandDeps): Promise<number> {
  if (options.event) {
    await checkEventTypes(deps, [options.event], '--event');
    // The test send goes out all the same; the real events of that type will not, which is worth knowing.
    const webhook = await getWebhook(deps.api, options.webhookId);
    if (Array.isArray(webhook.events) && !webhook.events.includes(options.event)) {
      deps.stderr.write(
        laidOut(
          deps.stderr,
          `whsvc: webhook ${sanitize(options.webhookId)} is not subscribed to ${options.event}: this test is sent to it, real ${options.event} events are not (add it with \`whsvc webhooks update ${sanitize(options.webhookId)} --add-events ${options.event}\`)\n`,
        ),
      );
    }
  }
  const attempt = await sendTestEvent(deps.api, options.webhookId, options.event);
  return reportSentAttempt(deps, attempt, 'test event', true);
}
