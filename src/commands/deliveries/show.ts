import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';
import { deliveryBlock, type Delivery } from './view.js';

export async function run(options: { id: string }, deps: CommandDeps): Promise<number> {
  const delivery = await deps.api.json<Delivery>('GET', `/v1/webhooks/webhook-deliveries/${encodeURIComponent(options.id)}`, { expect: 'delivery' });
  if (deps.json) printJson(deps, delivery);
  else deps.stdout.write(deliveryBlock(delivery, deps.colors, deps.serviceNow()));
  return 0;
}
