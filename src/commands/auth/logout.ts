import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';

export async function run(_options: object, deps: CommandDeps): Promise<number> {
  const existed = await deps.config.deleteProfile(deps.profileName);
  if (deps.json) printJson(deps, { profile: deps.profileName, logged_out: existed });
  else deps.stderr.write(existed ? `Logged out of profile ${deps.profileName}: credentials and cached token forgotten\n` : `Profile ${deps.profileName} was not logged in\n`);
  return 0;
}
