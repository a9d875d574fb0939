import { Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';
import { laidOut } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('logout')
    .description("forget the profile's credentials and cached token")
    .addHelpText('after', examples('whsvc logout', 'whsvc logout --profile prod'))
    .action(apiAction((deps) => runF({}, deps)));

export async function run(_options: object, deps: CommandDeps): Promise<number> {
  const existed = await deps.config.deleteProfile(deps.profileName);
  if (deps.json) printJson(deps, { profile: deps.profileName, logged_out: existed });
  else
    deps.stderr.write(
      laidOut(
        deps.stderr,
        existed ? `Logged out of profile ${deps.profileName}: credentials and cached token forgotten\n` : `Profile ${deps.profileName} was not logged in\n`,
      ),
    );
  return 0;
}
