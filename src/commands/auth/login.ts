import type { CachedToken } from '../../api/client.js';
import { Command, Option } from '@commander-js/extra-typings';
import { action } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { sanitize, shellWord } from '../../render/text.js';
import type { CommandDeps } from '../../cli/context.js';
import { sameAddress, tokenIdentity } from '../../cli/context.js';
import { AuthError } from '../../api/errors.js';
import { CliError, ExitCode, NO_PROMPT, usageError } from '../../cli/errors.js';
import { printJson } from '../../cli/output.js';
import { insideWhitespace, pastedSecret } from '../../cli/secret.js';
import { laidOut } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('login')
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
    .action(
      action(async (context, o) => {
        if (o.clientSecret !== undefined) {
          throw usageError(
            'there is no --client-secret: a secret on the command line is visible to other users and kept in shell history',
            'leave it out on a terminal to be asked, masked, or pipe it in: printf %s "$SECRET" | whsvc login --client-id ID --client-secret-stdin',
          );
        }
        const deps = await context.deps();
        return runF(loginOptions({ clientId: o.clientId, clientSecretStdin: Boolean(o.clientSecretStdin), scope: o.scope }, deps.canPrompt), deps);
      }),
    );

export interface LoginOptions {
  clientId?: string | undefined;
  clientSecretStdin: boolean;
  scope?: string | undefined;
}

/** The flags as given; without a terminal to ask on, the client id and a way to read the secret are required. */
function loginOptions(options: LoginOptions, canPrompt: boolean): LoginOptions {
  if (!options.clientId?.trim() && !canPrompt) throw usageError(`--client-id is required (${NO_PROMPT})`);
  if (!options.clientSecretStdin && !canPrompt) {
    throw usageError(`the client secret is needed (${NO_PROMPT})`, 'pipe it in: printf %s "$SECRET" | whsvc login --client-id ID --client-secret-stdin');
  }
  return options;
}

async function readAll(stream: CommandDeps['stdin']): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** Proves the credentials, then stores them; what is missing is asked (loginOptions has made sure it can be). */
export async function run(options: LoginOptions, deps: CommandDeps): Promise<number> {
  // --base-url, else WHSVC_BASE_URL, else the profile's, else the sandbox's.
  const baseUrl = deps.api.baseUrl;
  const clientId = options.clientId?.trim() || (await deps.prompter.input('Client ID', (v) => (v.trim() ? true : 'required'))).trim();
  // A profile holding another client or address is replaced only knowingly: asked first on a terminal, said always.
  const replaced = replacedCredentials(deps, baseUrl, clientId);
  if (replaced && deps.canPrompt) {
    const sure = await deps.prompter.confirm(
      `Profile ${deps.profileName} holds ${replaced}. Replace it with client ${sanitize(clientId)} at ${baseUrl}?`,
      false,
    );
    if (!sure) throw new CliError(`nothing was stored: profile ${deps.profileName} keeps ${replaced}`, ExitCode.failure, keepBoth(clientId));
  }
  let clientSecret: string;
  if (options.clientSecretStdin) {
    clientSecret = pastedSecret(await readAll(deps.stdin));
    if (!clientSecret) throw usageError('--client-secret-stdin: no secret was read from standard input');
  } else {
    clientSecret = pastedSecret(await deps.prompter.password('Client secret'));
    if (!clientSecret) throw usageError('the client secret is empty: it was only spaces');
  }

  const credentials = { clientId, clientSecret, scope: options.scope };
  // Prove the credentials first: a rejected secret stores nothing.
  let token: CachedToken;
  try {
    token = await deps.apiFor(baseUrl, credentials).requestToken();
  } catch (error) {
    if (error instanceof AuthError) {
      const inside = insideWhitespace(clientSecret);
      const hint =
        error.code === 'invalid_scope'
          ? 'ask only for scopes this client has, or leave --scope out to get all of them'
          : inside
            ? `check the client secret: ${inside}`
            : `check the client id and secret for ${baseUrl}`;
      // As an AuthError still: --json's error line keeps the status and code the service answered.
      throw new AuthError(`${error.message}; nothing was stored`, error.status, error.code, hint);
    }
    throw error;
  }
  await deps.config.setProfile(deps.profileName, {
    base_url: baseUrl,
    client_id: clientId,
    client_secret: clientSecret,
    ...(options.scope ? { scope: options.scope } : {}),
  });
  await deps.config.tokenCache(deps.profileName, tokenIdentity(baseUrl, credentials)).write(token);

  if (replaced)
    deps.stderr.write(
      laidOut(deps.stderr, `whsvc: replaced profile ${deps.profileName}, which held ${replaced} (whsvc login --profile NAME keeps a login of its own)\n`),
    );
  if (deps.json) {
    printJson(deps, { profile: deps.profileName, base_url: baseUrl, client_id: clientId, scope: token.scope ?? null });
  } else {
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `${deps.errColors.green('✓')} Logged in to ${baseUrl} as ${clientId} (profile ${deps.profileName}; scope: ${sanitize(token.scope ?? 'not stated')})\n`,
      ),
    );
  }
  return 0;
}

/**
 * What logging in would replace: the profile's credentials when they are another client's or for
 * another address (`client ID at URL`); nothing when there are none, or when the same client logs in
 * again at the same address (a new secret after a sandbox restart, a rotated one).
 */
function replacedCredentials(deps: CommandDeps, baseUrl: string, clientId: string): string | undefined {
  const profile = deps.config.getProfile(deps.profileName);
  if (!profile || (profile.client_id === clientId && sameAddress(profile.base_url, baseUrl))) return undefined;
  return `client ${sanitize(profile.client_id)} at ${sanitize(profile.base_url)}`;
}

/** How to keep both: gh keeps one login per host; whsvc, one per profile. */
const keepBoth = (clientId: string) => `to keep both, log in under a profile of its own: whsvc login --profile NAME --client-id ${shellWord(clientId)}`;
