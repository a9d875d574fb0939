import { checkEventTypes } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { reportSentAttempt, type Delivery } from '../deliveries/view.js';

export async function run(options: { webhookId: string; event?: string | undefined }, deps: CommandDeps): Promise<number> {
  if (options.event) await checkEventTypes(deps, [options.event], '--event');
  const delivery = await deps.api.json<Delivery>('POST', `/v1/webhooks/${encodeURIComponent(options.webhookId)}/test`, {
    body: options.event ? { event: options.event } : {},
    expect: 'delivery',
  });
  return reportSentAttempt(deps, delivery, 'test event', true);
}
