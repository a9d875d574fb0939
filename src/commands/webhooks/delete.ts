import { Argument, Command } from '@commander-js/extra-typings';
import { deleteWebhook, getWebhook } from '../../api/endpoints.js';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { resourceId } from '../../cli/parse.js';
import { sanitize } from '../../render/text.js';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode, NO_PROMPT, usageError } from '../../cli/errors.js';
import { printJson } from '../../cli/output.js';

export const command = (runF = run) =>
  new Command('delete')
    .description('delete a webhook (asks on a terminal; --yes otherwise)')
    .addArgument(new Argument('<id>', 'webhook id').argParser(resourceId('webhook')))
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', examples('whsvc webhooks delete wh_…', 'whsvc webhooks delete wh_… --yes   # in scripts'))
    .action(
      apiAction((deps, id, o) => {
        if (!o.yes && !deps.canPrompt) throw usageError(`deleting needs confirmation: pass --yes (${NO_PROMPT})`);
        return runF({ id, yes: Boolean(o.yes) }, deps);
      }),
    );

/** Without `yes`, asks first: the caller has made sure it can (the factory refuses that without a terminal). */
export async function run(options: { id: string; yes: boolean }, deps: CommandDeps): Promise<number> {
  if (!options.yes) {
    // No question whose yes would be refused.
    await deps.api.requireScopeFor('DELETE');
    // Name what goes by its URL, which people know it by, not only its id.
    const webhook: { url?: unknown } = await getWebhook(deps.api, options.id);
    const url = typeof webhook.url === 'string' ? ` (${sanitize(webhook.url)})` : '';
    const sure = await deps.prompter.confirm(`Delete webhook ${options.id}${url}? Its deliveries stop at once and its secret is revoked.`, false);
    if (!sure) throw new CliError('not deleted', ExitCode.failure);
  }
  await deleteWebhook(deps.api, options.id);
  if (deps.json) printJson(deps, { id: options.id, deleted: true });
  else deps.stdout.write(`Deleted webhook ${options.id}\n`);
  return 0;
}
