import type { CommandDeps } from '../context.js';
import { printJson } from '../output.js';
import { deliveryBlock, type Delivery } from './view.js';

export async function run(options: { id: string }, deps: CommandDeps): Promise<number> {
  const attempt = await deps.api.json<Delivery>('POST', `/v1/webhooks/webhook-deliveries/${encodeURIComponent(options.id)}/retry`);
  if (deps.json) printJson(deps, attempt);
  else deps.stdout.write(deliveryBlock(attempt, deps.colors, deps.now()));
  // Like `test`: the request went through, but the endpoint did not take the delivery.
  return attempt.status === 'failed' ? 1 : 0;
}
