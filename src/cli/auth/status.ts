import { AuthError } from '../../api/errors.js';
import { keyValues, relativeTime } from '../../render/text.js';
import type { CommandDeps } from '../context.js';
import { printJson } from '../output.js';

export async function run(_options: object, deps: CommandDeps): Promise<number> {
  if (deps.credentialSource === 'none') {
    throw new AuthError(`not logged in (profile ${deps.profileName})`);
  }
  const clientId = deps.clientId ?? '';
  // A fresh token: status proves the credentials work now (a cached token may have been revoked).
  const token = await deps.api.token(true);
  const expiresAt = new Date(token.expires_at).toISOString();
  if (deps.json) {
    printJson(deps, {
      profile: deps.profileName,
      source: deps.credentialSource,
      base_url: deps.api.baseUrl,
      client_id: clientId,
      scope: token.scope ?? null,
      token_expires_at: expiresAt,
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
      ],
      deps.colors.dim,
    ),
  );
  return 0;
}
