import { Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { AuthError } from '../../api/errors.js';
import { keyValues } from '../../render/text.js';
import { terminalColumns } from '../../render/wrap.js';
import { relativeTime } from '../../render/words.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson } from '../../cli/output.js';

export const command = (runF = run) =>
  new Command('status')
    .description('profile, base URL, client id, granted scope and token expiry; never a secret')
    .option('--check', 'prove the credentials now with a new token, instead of showing the cached one')
    .addHelpText('after', examples('whsvc auth status', 'whsvc auth status --check --json   # in CI: exit 3 when the credentials no longer work'))
    .action(apiAction((deps, o) => runF({ check: Boolean(o.check) }, deps)));

export async function run(options: { check?: boolean }, deps: CommandDeps): Promise<number> {
  if (deps.credentialSource === 'none') {
    throw new AuthError(`not logged in (profile ${deps.profileName})`);
  }
  const clientId = deps.clientId ?? '';
  // The cached token answers at once, with no request; --check (or no cached token) proves the credentials now.
  const cached = options.check ? undefined : deps.api.cachedToken();
  const token = cached ?? (await deps.api.token(true));
  const expiresAt = new Date(token.expires_at).toISOString();
  if (deps.json) {
    printJson(deps, {
      profile: deps.profileName,
      source: deps.credentialSource,
      base_url: deps.api.baseUrl,
      client_id: clientId,
      scope: token.scope ?? null,
      token_expires_at: expiresAt,
      checked: cached === undefined,
    });
    return 0;
  }
  deps.stdout.write(
    keyValues(
      [
        ['profile', deps.credentialSource === 'env' ? `${deps.profileName} (credentials from WHSVC_CLIENT_ID/WHSVC_CLIENT_SECRET)` : deps.profileName],
        ['base URL', deps.api.baseUrl],
        ['client id', clientId],
        ['scope', token.scope ?? 'not stated'],
        ['token expires', `${relativeTime(expiresAt, deps.now())} (${expiresAt})`],
        ['checked', cached ? 'no: the cached token (--check asks the service now)' : 'yes: the service issued a token just now'],
      ],
      deps.colors.dim,
      terminalColumns(deps.stdout),
    ),
  );
  return 0;
}
