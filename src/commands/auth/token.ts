import { Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';

export const command = (runF = run) =>
  new Command('token')
    .description('print a valid access token (for curl)')
    .addHelpText('after', examples('curl -H "Authorization: Bearer $(whsvc auth token)" "$WHSVC_BASE_URL/v1/webhooks"'))
    .action(apiAction((deps) => runF({}, deps)));

export async function run(_options: object, deps: CommandDeps): Promise<number> {
  const token = await deps.api.token();
  if (deps.json) printJson(deps, { access_token: token.access_token, expires_at: new Date(token.expires_at).toISOString() });
  else deps.stdout.write(`${token.access_token}\n`);
  return 0;
}
