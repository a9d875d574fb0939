import { getAttempt } from '../../api/endpoints.js';
import { Argument, Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { resourceId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';
import { attemptBlock } from './shared/view.js';
import { terminalColumns } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('show')
    .description('one attempt, with its payload and signature')
    .addArgument(new Argument('<delivery-id>', 'delivery id').argParser(resourceId('delivery')))
    .addHelpText('after', examples('whsvc deliveries show dlv_…', 'whsvc deliveries show dlv_… --json | jq .payload'))
    .action(apiAction((deps, id) => runF({ id }, deps)));

export async function run(options: { id: string }, deps: CommandDeps): Promise<number> {
  const attempt = await getAttempt(deps.api, options.id);
  if (deps.json) printJson(deps, attempt);
  else deps.stdout.write(attemptBlock(attempt, deps.colors, deps.serviceNow(), terminalColumns(deps.stdout)));
  return 0;
}
