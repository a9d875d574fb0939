import { Option, type Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { apiAction } from '../../cli/actions.js';
import { usageError } from '../../cli/errors.js';
import * as loginVerb from './login.js';
import * as logoutVerb from './logout.js';
import * as listVerb from './list.js';
import * as statusVerb from './status.js';
import * as tokenVerb from './token.js';

/** Defines `login`, `logout`, `auth list`, `auth status` and `auth token`. */
export function register(program: Command): void {
  program
    .command('login')
    .description('store credentials in a profile, after proving them with a token request')
    .option('--client-id <id>', 'the API client id (asked when missing on a terminal)')
    .option('--client-secret-stdin', 'read the client secret from standard input (it never goes on the command line)')
    .option('--scope <scopes>', 'space-separated scopes to request (default: all the client has)')
    // Not an option: there only to say where the secret goes instead (its value is never echoed).
    .addOption(new Option('--client-secret <secret>').hideHelp())
    .addHelpText(
      'after',
      examples(
        'whsvc login --client-id sbx_demo_readwrite            # asks for the secret, masked',
        'printf %s "$SECRET" | whsvc login --client-id ID --client-secret-stdin',
        'whsvc login --profile prod --base-url https://api.example.com --client-id ID',
      ),
    )
    .hook('preAction', (command) => {
      if (command.opts().clientSecret !== undefined) {
        throw usageError(
          'there is no --client-secret: a secret on the command line is visible to other users and kept in shell history',
          'pipe it in: printf %s "$SECRET" | whsvc login --client-id ID --client-secret-stdin (or leave it out on a terminal to be asked, masked)',
        );
      }
    })
    .action(
      apiAction(
        loginVerb,
        (_args, o) => ({ clientId: o.clientId, clientSecretStdin: Boolean(o.clientSecretStdin), scope: o.scope }),
      ),
    );

  program
    .command('logout')
    .description("forget the profile's credentials and cached token")
    .addHelpText('after', examples('whsvc logout', 'whsvc logout --profile prod'))
    .action(apiAction(logoutVerb, () => ({})));

  const auth = program
    .command('auth')
    .description('credentials and tokens')
    .addHelpText('after', examples('whsvc auth list', 'whsvc auth status --check'));
  auth
    .command('list')
    .description('every profile: base URL, client id, scope and token expiry; the one in use marked *')
    .addHelpText('after', examples('whsvc auth list', "whsvc auth list --json | jq -r '.profiles[].name'"))
    .action(apiAction(listVerb, () => ({})));
  auth
    .command('status')
    .description('profile, base URL, client id, granted scope and token expiry; never a secret')
    .option('--check', 'prove the credentials now with a new token, instead of showing the cached one')
    .addHelpText('after', examples('whsvc auth status', 'whsvc auth status --check --json   # in CI: exit 3 when the credentials no longer work'))
    .action(apiAction(statusVerb, (_args, o) => ({ check: Boolean(o.check) })));
  auth
    .command('token')
    .description('print a valid access token (for curl)')
    .addHelpText('after', examples('curl -H "Authorization: Bearer $(whsvc auth token)" "$WHSVC_BASE_URL/v1/webhooks"'))
    .action(apiAction(tokenVerb, () => ({})));
}
