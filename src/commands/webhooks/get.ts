import { getWebhook } from '../../api/endpoints.js';
import { Argument, Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { resourceId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';
import { webhookBlock } from './shared/view.js';
import { terminalColumns } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('get')
    .description('one webhook')
    .addArgument(new Argument('<id>', 'webhook id').argParser(resourceId('webhook')))
    .addHelpText('after', examples('whsvc webhooks get wh_…', 'whsvc webhooks get wh_… --json'))
    .action(apiAction((deps, id) => runF({ id }, deps)));

export async function run(options: { id: string }, deps: CommandDeps): Promise<number> {
  const webhook = await getWebhook(deps.api, options.id);
  if (deps.json) printJson(deps, webhook);
  else deps.stdout.write(webhookBlock(webhook, deps.colors, deps.serviceNow(), [], terminalColumns(deps.stdout)));
  return 0;
}
