import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';
import { webhookBlock, type Webhook } from './view.js';

export async function run(options: { id: string }, deps: CommandDeps): Promise<number> {
  const webhook = await deps.api.json<Webhook>('GET', `/v1/webhooks/${encodeURIComponent(options.id)}`, { expect: 'webhook' });
  if (deps.json) printJson(deps, webhook);
  else deps.stdout.write(webhookBlock(webhook, deps.colors, deps.serviceNow()));
  return 0;
}
