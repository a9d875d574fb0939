import { Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { renderTable, type Column } from '../../render/table.js';
import { tokenIdentity, type CommandDeps } from '../../cli/context.js';
import { printJson, tableLayout, writeEmptyNote } from '../../cli/output.js';
import { laidOut } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('list')
    .description('every profile: base URL, client id, scope and token expiry; the one in use marked *')
    .addHelpText('after', examples('whsvc auth list', "whsvc auth list --json | jq -r '.profiles[].name'"))
    .action(apiAction((deps) => runF({}, deps)));

/** Every profile with its address, client and cached token; never a secret or a token. */
export async function run(_options: object, deps: CommandDeps): Promise<number> {
  const envCredentials = deps.credentialSource === 'env';
  const profiles = deps.config.listProfiles().map(({ name, profile }) => {
    const identity = tokenIdentity(profile.base_url, { clientId: profile.client_id, clientSecret: profile.client_secret, scope: profile.scope });
    const token = deps.config.tokenCache(name, identity).read();
    return {
      name,
      // With credentials from the environment in use, no profile is.
      active: name === deps.profileName && !envCredentials,
      base_url: profile.base_url,
      client_id: profile.client_id,
      // What the service granted, when a token says; else what login asked for (null: all the client has).
      scope: token?.scope ?? profile.scope ?? null,
      token_expires_at: token ? new Date(token.expires_at).toISOString() : null,
    };
  });
  if (deps.json) {
    printJson(deps, { profiles, env_credentials: envCredentials });
    return 0;
  }
  const layout = tableLayout(deps.stdout);
  if (profiles.length === 0) {
    writeEmptyNote(deps, layout, 'No profiles. Log in with: whsvc login\n');
  } else {
    const rows = profiles.map((p) => [
      p.active ? '*' : '',
      p.name,
      p.base_url,
      p.client_id,
      p.scope ?? 'all granted',
      p.token_expires_at === null ? 'no token' : p.token_expires_at,
    ]);
    // By width, the rows never changing it: the scope list keeps its whole scopes and counts the rest
    // (`webhooks:read +1`), the expiry takes its compact form (`in 55m`), the client id its short form; narrower, the
    // scope, the expiry and the client id are left out. The profile and the base URL's scheme and host stay whole.
    const columns: Column[] = [
      { title: '', width: 1 },
      { title: 'PROFILE', width: 16 },
      { title: 'BASE URL', kind: 'url', width: 28, min: 22, give: 2 },
      { title: 'CLIENT ID', kind: 'id', width: 18, give: 4, drop: 6 },
      { title: 'SCOPE', kind: 'list', separator: ' ', width: 28, min: 16, give: 0, drop: 3 },
      { title: 'TOKEN EXPIRES', kind: 'time', now: deps.now(), give: 1, drop: 5 },
    ];
    deps.stdout.write(await renderTable(columns, rows, deps.colors, layout));
  }
  if (envCredentials) {
    deps.stderr.write(
      laidOut(deps.stderr, `${deps.errColors.yellow('!')} WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET are set: commands use them, not a profile\n`),
    );
  }
  return 0;
}
