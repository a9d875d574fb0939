import { sanitize } from '../../render/text.js';
import type { CommandDeps } from '../../cli/context.js';
import { tokenIdentity } from '../../cli/context.js';
import { AuthError } from '../../api/errors.js';
import { NO_PROMPT, usageError } from '../../cli/errors.js';
import { printJson } from '../../cli/output.js';

export interface LoginOptions {
  clientId?: string | undefined;
  clientSecretStdin: boolean;
  scope?: string | undefined;
}

async function readAll(stream: CommandDeps['stdin']): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

export async function run(options: LoginOptions, deps: CommandDeps): Promise<number> {
  // --base-url, else WHSVC_BASE_URL, else the profile's, else the sandbox's.
  const baseUrl = deps.api.baseUrl;
  let clientId = options.clientId;
  if (!clientId) {
    if (!deps.canPrompt) throw usageError(`--client-id is required (${NO_PROMPT})`);
    clientId = (await deps.prompter.input('Client ID', (v) => (v.trim() ? true : 'required'))).trim();
  }
  let clientSecret: string;
  if (options.clientSecretStdin) {
    clientSecret = (await readAll(deps.stdin)).replace(/\r?\n$/, '');
    if (!clientSecret) throw usageError('--client-secret-stdin: nothing was read from standard input');
  } else if (deps.canPrompt) {
    clientSecret = await deps.prompter.password('Client secret');
  } else {
    throw usageError(`the client secret is needed (${NO_PROMPT})`, 'pipe it in: printf %s "$SECRET" | whsvc login --client-id ID --client-secret-stdin');
  }

  const credentials = { clientId, clientSecret, scope: options.scope };
  // Prove the credentials first: a rejected secret stores nothing.
  let token;
  try {
    token = await deps.apiFor(baseUrl, credentials).requestToken();
  } catch (error) {
    if (error instanceof AuthError) {
      const hint =
        error.code === 'invalid_scope'
          ? 'ask only for scopes this client has, or leave --scope out to get all of them'
          : `check the client id and secret for ${baseUrl}`;
      // As an AuthError still: --json's error line keeps the status and code the service answered.
      throw new AuthError(`${error.message}; nothing was stored`, error.status, error.code, hint);
    }
    throw error;
  }
  await deps.config.setProfile(deps.profileName, { base_url: baseUrl, client_id: clientId, client_secret: clientSecret, ...(options.scope ? { scope: options.scope } : {}) });
  await deps.config.tokenCache(deps.profileName, tokenIdentity(baseUrl, credentials)).write(token);

  if (deps.json) {
    printJson(deps, { profile: deps.profileName, base_url: baseUrl, client_id: clientId, scope: token.scope ?? null });
  } else {
    deps.stderr.write(
      `${deps.errColors.green('✓')} Logged in to ${baseUrl} as ${clientId} (profile ${deps.profileName}; scope: ${sanitize(token.scope ?? 'not stated')})\n`,
    );
  }
  return 0;
}
