import { ApiClient, type Credentials, type TokenCache } from '../api/client.js';
import { AuthError } from '../api/errors.js';
import { defaultTransport, proxyForDisplay, type Transport } from '../api/transport.js';
import { ConfigStore, type Profile } from '../config/store.js';
import { isLoopbackHost, mappedIpv4, proxyCredentials, proxySettings, redactUserinfo } from '../net.js';
import { shellWord } from '../render/text.js';
import { colorsFor, type Colors } from '../render/colors.js';
import { withSpinner } from '../render/spinner.js';
import { quoted } from '../render/text.js';
import { laidOut } from '../render/wrap.js';
import type { Io } from './deps.js';
import type { Interrupts } from './interrupt.js';
import type { Prompter } from './prompter.js';

import { DEFAULT_BASE_URL, DEFAULT_TIMEOUT_S } from './defaults.js';
import { usageError } from './errors.js';
import type { GlobalOptions } from './globals.js';
import { maxAnswerBytes, requestTimeoutGivenMs } from './parse.js';
import { pastedSecret } from './secret.js';

export { DEFAULT_BASE_URL };

/** Everything a command's run function works with; tests build it with fakes. */
export interface CommandDeps extends Io {
  api: ApiClient;
  config: ConfigStore;
  profileName: string;
  /** Where the credentials come from, for messages: a profile, or the environment. */
  credentialSource: 'profile' | 'env' | 'none';
  colors: Colors;
  errColors: Colors;
  json: boolean;
  canPrompt: boolean;
  prompter: Prompter;
  /** How this run is stopped: work to undo at Ctrl-C, whether the reader of stdout went away. */
  interrupts: Interrupts;
  /** This machine's clock: for what it measures itself (elapsed time, its token's expiry, its caches). */
  now: () => number;
  /** The service's clock (its `Date` header): every time read against the service's own times ("3 minutes ago"). */
  serviceNow: () => number;
  /** A client for other credentials (login proves them before storing). */
  apiFor(baseUrl: string, credentials: Credentials): ApiClient;
  /** The client id in use, from the environment or the profile. */
  clientId: string | undefined;
  /** An authentication failure retold with what was used, where each came from, and the command that fixes it. */
  explainAuthFailure?: (error: AuthError) => AuthError;
}

interface AuthFacts {
  profile: string;
  profileSource: string;
  baseUrl: string;
  baseUrlSource: string;
  credentialSource: CommandDeps['credentialSource'];
  clientId: string | undefined;
}

export function explainAuthFailure(error: AuthError, facts: AuthFacts): AuthError {
  // Those that say already what to do (another address, a login that failed) stand as they are.
  if (error.hint) return error;
  // "(from the default)" says nothing: a default is named as one.
  const told = (value: string, source: string, asDefault: string) => `${value} (${source === 'the default' ? asDefault : `from ${source}`})`;
  const address = told(facts.baseUrl, facts.baseUrlSource, 'the default address');
  const profile = `profile ${told(facts.profile, facts.profileSource, 'the default profile')}`;
  const login = [
    'whsvc login',
    facts.profile === 'default' ? '' : `--profile ${shellWord(facts.profile)}`,
    facts.baseUrlSource === '--base-url' ? `--base-url ${shellWord(facts.baseUrl)}` : '',
    `--client-id ${facts.clientId === undefined ? 'ID' : shellWord(facts.clientId)}`,
  ]
    .filter(Boolean)
    .join(' ');
  // The base URL was checked (checkBaseUrl) before any request could fail.
  const loopback = isLoopbackHost(new URL(facts.baseUrl).hostname);
  // A command in a hint ends its line, its reasons before it: a line pasted whole runs the command and nothing else.
  const restarted = loopback ? 'a sandbox started again without --data-dir has new client secrets: take them from its start-up output' : undefined;
  if (facts.credentialSource === 'none') {
    return new AuthError(
      `not logged in: nothing to send to ${address}: ${profile} holds no credentials, and WHSVC_CLIENT_ID/WHSVC_CLIENT_SECRET are not set`,
      error.status,
      error.code,
      `set WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET, or log in${loopback ? ' (a sandbox prints its client id and secret when it starts)' : ''}: ${login}`,
    );
  }
  if (facts.credentialSource === 'env') {
    return new AuthError(
      `${error.message} (client ${facts.clientId} from WHSVC_CLIENT_ID/WHSVC_CLIENT_SECRET, at ${address})`,
      error.status,
      error.code,
      `check the values of WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET (they take the place of any profile)${restarted ? `; ${restarted}` : ''}`,
    );
  }
  return new AuthError(
    `${error.message} (client ${facts.clientId} of ${profile}, at ${address})`,
    error.status,
    error.code,
    `log in again${restarted ? ` (${restarted})` : ''}: ${login}`,
  );
}

/** A profile name is printed in messages: one with control characters (which would drive the terminal) is refused, shown escaped. */
function checkProfileName(name: string, source: string | undefined): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) {
    throw usageError(
      `the profile name ${quoted(name)}${source ? ` (from ${source})` : ''} holds control characters`,
      'profile names are letters, digits, dots, dashes and the like',
    );
  }
}

function checkBaseUrl(value: string, source: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw usageError(
      `the base URL ${JSON.stringify(redactUserinfo(value))} (from ${source}) is not an http(s) URL`,
      'for example --base-url http://127.0.0.1:4010',
    );
  }
  if (url.username !== '' || url.password !== '') {
    // It would be printed in messages and sent nowhere useful: the service authenticates with tokens.
    throw usageError(`the base URL ${redactUserinfo(value)} (from ${source}) must not carry a user name or password (user:pass@)`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    // Credentials and tokens would cross the network in the clear.
    throw usageError(
      `the base URL ${value} (from ${source}) must use https: plain http is only for this machine (localhost, 127.0.0.1, [::1])`,
      `use https://${url.host}${url.pathname === '/' ? '' : url.pathname}`,
    );
  }
  return value;
}

/**
 * An address as one spelling, its origin and path as WHATWG URL reads them: a trailing slash, an upper-case scheme or
 * host, a default port written or not, and `..` in the path are the same address, and so are an IPv4 address and its
 * IPv4-mapped IPv6 form (`[::ffff:127.0.0.1]` is 127.0.0.1). No name is looked up: localhost and 127.0.0.1 stay two.
 */
export function normalAddress(value: string): string {
  try {
    const url = new URL(value);
    url.hostname = mappedIpv4(url.hostname) ?? url.hostname;
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return value;
  }
}

export const sameAddress = (a: string, b: string): boolean => normalAddress(a) === normalAddress(b);

export function resolveCredentials(
  env: NodeJS.ProcessEnv,
  profile: Profile | undefined,
): { credentials?: Credentials; source: CommandDeps['credentialSource'] } {
  if (Boolean(env.WHSVC_CLIENT_ID) !== Boolean(env.WHSVC_CLIENT_SECRET)) {
    const [set, missing] = env.WHSVC_CLIENT_ID ? ['WHSVC_CLIENT_ID', 'WHSVC_CLIENT_SECRET'] : ['WHSVC_CLIENT_SECRET', 'WHSVC_CLIENT_ID'];
    throw usageError(`${set} is set but ${missing} is not: set both, or neither to use the profile`);
  }
  if (env.WHSVC_CLIENT_ID && env.WHSVC_CLIENT_SECRET) {
    return {
      credentials: { clientId: pastedSecret(env.WHSVC_CLIENT_ID), clientSecret: pastedSecret(env.WHSVC_CLIENT_SECRET), scope: env.WHSVC_SCOPE },
      source: 'env',
    };
  }
  if (profile) {
    return { credentials: { clientId: profile.client_id, clientSecret: profile.client_secret, scope: profile.scope }, source: 'profile' };
  }
  return { source: 'none' };
}

/**
 * Every client secret whsvc holds for the profile: WHSVC_CLIENT_SECRET's (as a command reads it) and the profile's,
 * whichever a command would use; none of a config file that cannot be read. For what must not carry one under any
 * name (check-receiver --effects' environment).
 */
export function clientSecretsHeld(env: NodeJS.ProcessEnv, profileName: string): string[] {
  const held = env.WHSVC_CLIENT_SECRET ? [pastedSecret(env.WHSVC_CLIENT_SECRET)] : [];
  try {
    const profile = ConfigStore.of(env).getProfile(profileName);
    if (profile?.client_secret) held.push(profile.client_secret);
  } catch {
    // A config that cannot be read holds no secret this run could use.
  }
  return held;
}

/**
 * What a cached token is good for: a change of client, secret, address or
 * scope makes it stale (so a mistyped or rotated secret is never hidden by a
 * token fetched with the old one). The secret enters only as a 64-bit
 * fingerprint (two FNV-1a hashes): enough to notice a change, and cheaper than
 * loading node:crypto on every command (about 5 ms: docs/benchmarks.md).
 */
export const tokenIdentity = (baseUrl: string, credentials: Credentials | undefined) =>
  `${credentials?.clientId}|${normalAddress(baseUrl)}|${credentials?.scope ?? ''}|${credentials ? fingerprint(credentials.clientSecret) : ''}`;

function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193) >>> 0;
    b = Math.imul(b ^ code, 0x5bd1e995) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/**
 * The credentials a command may use at `baseUrl`. A profile's secret goes only to the address it
 * was proven on at login (as gh binds a token to its host); credentials from the environment are
 * the user's explicit choice for the address given. Without credentials, what "not logged in" says.
 */
function credentialsFor(
  profileName: string,
  profile: ReturnType<ConfigStore['getProfile']>,
  resolved: ReturnType<typeof resolveCredentials>,
  baseUrl: string,
  baseUrlSource: string,
): { credentials: Credentials | undefined; notLoggedIn: string | AuthError } {
  if (resolved.source === 'profile' && profile && !sameAddress(baseUrl, profile.base_url)) {
    return {
      credentials: undefined,
      notLoggedIn: new AuthError(
        `profile ${profileName} logged in to ${profile.base_url} (stored by whsvc login); its credentials are not sent to ${baseUrl} (from ${baseUrlSource})`,
        undefined,
        'other_address',
        `drop ${baseUrlSource}, or to use it there, log in to it under a profile of its own: whsvc login --base-url ${shellWord(baseUrl)} --profile NAME`,
      ),
    };
  }
  return { credentials: resolved.credentials, notLoggedIn: `not logged in (profile ${profileName})` };
}

/** With --debug: which proxies undici goes through, from the environment (without their user names and passwords). */
function sayProxy(io: Io, errColors: Colors): void {
  const proxies = proxySettings(io.env);
  if (!proxies) return;
  const shown = (proxy: string | undefined) => (proxy ? proxyForDisplay(proxy) : 'none');
  io.stderr.write(
    errColors.dim(
      `proxy (undici EnvHttpProxyAgent): http ${shown(proxies.httpProxy)}, https ${shown(proxies.httpsProxy)}, no proxy for ${proxies.noProxy || 'nothing'}\n`,
    ),
  );
}

/** What a run gives the dependencies beyond its streams: its prompter, its interrupts and its clock. */
export interface RunParts {
  prompter: Prompter;
  interrupts: Interrupts;
  now: () => number;
  /** The command's --platform-name, for one that takes it: --debug shows its delivery headers (no credential). */
  platformName?: string | undefined;
}

export async function buildDeps(globals: GlobalOptions, io: Io, run: RunParts, transport: Transport = defaultTransport(io.env)): Promise<CommandDeps> {
  const { platformName, ...parts } = run;
  checkProfileName(globals.profile, globals.profileSource);
  const config = ConfigStore.of(io.env);
  const profile = config.getProfile(globals.profile);
  const resolved = resolveCredentials(io.env, profile);
  const { source } = resolved;
  const baseUrlSource = globals.baseUrl !== undefined ? (globals.baseUrlSource ?? '--base-url') : profile ? `profile ${globals.profile}` : 'the default';
  const baseUrl = checkBaseUrl(globals.baseUrl ?? profile?.base_url ?? DEFAULT_BASE_URL, baseUrlSource);
  const requestTimeoutMs = requestTimeoutGivenMs(globals, io.env) ?? DEFAULT_TIMEOUT_S * 1000;
  const answerLimit = maxAnswerBytes(globals, io.env);
  const { credentials, notLoggedIn } = credentialsFor(globals.profile, profile, resolved, baseUrl, baseUrlSource);
  const identity = tokenIdentity(baseUrl, credentials);
  const cacheName = source === 'env' ? `env:${credentials!.clientId}` : globals.profile;
  const [colors, errColors] = await Promise.all([colorsFor(io.stdout, io.env, !globals.color), colorsFor(io.stderr, io.env, !globals.color)]);
  if (globals.debug) sayProxy(io, errColors);
  // Progress only where someone watches: a terminal on stderr, and no --debug output to tangle with.
  const showProgress = Boolean(io.stderr.isTTY) && !globals.debug;
  const sendWithProgress: Transport = showProgress
    ? (request) => (request.quiet ? transport(request) : withSpinner(io.stderr, `waiting for ${request.url.host}…`, () => transport(request)))
    : transport;
  const proxySecrets = proxyCredentials(proxySettings(io.env));
  const apiFor = (base: string, creds: Credentials | undefined, tokenCache?: TokenCache) =>
    new ApiClient({
      baseUrl: base,
      credentials: creds,
      tokenCache,
      transport: sendWithProgress,
      timeoutMs: requestTimeoutMs,
      maxAnswerBytes: answerLimit,
      userAgent: `whsvc/${WHSVC_VERSION}`,
      notLoggedIn,
      secrets: proxySecrets,
      mask: io.secrets,
      debug: globals.debug ? (text) => io.stderr.write(errColors.dim(text)) : undefined,
      platformName,
      // On a terminal, from the start of a wiped line: a progress line or spinner may be drawn there; it redraws below.
      notice: (text) => io.stderr.write(`${io.stderr.isTTY ? '\r\u001b[2K' : ''}${laidOut(io.stderr, `${errColors.yellow('!')} ${text}`)}\n`),
    });
  const api = apiFor(baseUrl, credentials, credentials ? config.tokenCache(cacheName, identity) : undefined);
  return {
    ...io,
    api,
    config,
    profileName: globals.profile,
    credentialSource: source,
    colors,
    errColors,
    json: globals.json,
    canPrompt: globals.input && Boolean(io.stdin.isTTY) && Boolean(io.stderr.isTTY),
    ...parts,
    serviceNow: () => api.serviceClock.now(),
    apiFor: (base, creds) => apiFor(base, creds),
    clientId: credentials?.clientId,
    explainAuthFailure: (error) =>
      explainAuthFailure(error, {
        profile: globals.profile,
        profileSource: globals.profileSource ?? 'the default',
        baseUrl,
        baseUrlSource,
        credentialSource: source,
        clientId: credentials?.clientId,
      }),
  };
}
