import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';

export async function run(_options: object, deps: CommandDeps): Promise<number> {
  const token = await deps.api.token();
  if (deps.json) printJson(deps, { access_token: token.access_token, expires_at: new Date(token.expires_at).toISOString() });
  else deps.stdout.write(`${token.access_token}\n`);
  return 0;
}
