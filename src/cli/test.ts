import { checkEventTypes } from './catalog.js';
import type { CommandDeps } from './context.js';
import { deliveryBlock, type Delivery } from './deliveries/view.js';
import { printJson } from './output.js';

export async function run(options: { webhookId: string; event?: string | undefined }, deps: CommandDeps): Promise<number> {
  if (options.event) await checkEventTypes(deps, [options.event], '--event');
  const delivery = await deps.api.json<Delivery>('POST', `/v1/webhooks/${encodeURIComponent(options.webhookId)}/test`, {
    body: options.event ? { event: options.event } : {},
  });
  if (deps.json) printJson(deps, delivery);
  else deps.stdout.write(deliveryBlock(delivery, deps.colors, deps.now()));
  return delivery.status === 'failed' ? 1 : 0;
}
