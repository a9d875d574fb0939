import { getAttempt } from '../../api/endpoints.js';
import { Argument, Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { resourceId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';
import { attemptBlock } from './shared/view.js';
import { fateOfAttempt } from './shared/fate.js';
import { terminalColumns } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('show')
    .description("one attempt, its delivery's fate and payload")
    .addArgument(new Argument('<delivery-id>', 'delivery id').argParser(resourceId('delivery')))
    .addHelpText('after', examples('whsvc deliveries show dlv_…', 'whsvc deliveries show dlv_… --json | jq .payload'))
    .action(apiAction((deps, id) => runF({ id }, deps)));

/**
 * The attempt as the service returned it; for a person, with its delivery's fate read from the log above it (the
 * attempts made since: one of them may have delivered it). --json prints the answer alone, as it came.
 */
export async function run(options: { id: string }, deps: CommandDeps): Promise<number> {
  const attempt = await getAttempt(deps.api, options.id);
  if (deps.json) printJson(deps, attempt);
  else deps.stdout.write(attemptBlock(attempt, deps.colors, deps.serviceNow(), await fateOfAttempt(deps.api, attempt), terminalColumns(deps.stdout)));
  return 0;
}
