import type { CommandDeps } from '../../cli/context.js';
import { reportSentAttempt, type Delivery } from './view.js';

export async function run(options: { id: string }, deps: CommandDeps): Promise<number> {
  const attempt = await deps.api.json<Delivery>('POST', `/v1/webhooks/webhook-deliveries/${encodeURIComponent(options.id)}/retry`, { expect: 'delivery' });
  return reportSentAttempt(deps, attempt, 'retry');
}
