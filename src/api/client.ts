import { constants } from 'node:buffer';
import { ApiError, AuthError, NetworkError, RequestStopped, answerTooLarge, describeErrorBody, tooLarge } from './errors.js';
import { redactHeaders, redactText, SecretMask } from './redact.js';
import { shapeProblem, type Shape } from './shapes.js';
import { BROKEN_ANSWER_CODE, TransportError } from '../net.js';
import type { Transport, TransportResponse } from './transport.js';
import { exactParse } from '../exact-json.js';
import { bytesText, elapsed } from '../render/words.js';

export interface Credentials {
  clientId: string;
  clientSecret: string;
  scope?: string | undefined;
}

export interface CachedToken {
  access_token: string;
  /** Epoch milliseconds. */
  expires_at: number;
  /** Seconds of validity it was issued with. */
  expires_in: number;
  scope?: string | undefined;
}

export interface TokenCache {
  read(): CachedToken | undefined;
  write(token: CachedToken): void | Promise<void>;
  /** Forgets the cached token (the service refused it). */
  clear(): void | Promise<void>;
}

export interface ApiClientOptions {
  baseUrl: string;
  credentials?: Credentials | undefined;
  tokenCache?: TokenCache | undefined;
  transport: Transport;
  timeoutMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** --debug: each exchange, secrets redacted. */
  debug?: ((text: string) => void) | undefined;
  /** The platform name the command was given (--platform-name): its delivery headers are no credential in --debug. */
  platformName?: string | undefined;
  /** Waits the user should know of (Retry-After). */
  notice?: ((text: string) => void) | undefined;
  userAgent?: string;
  /** The message (or the whole error) when there are no credentials to use (naming the profile, say). */
  notLoggedIn?: string | AuthError;
  /** Other secrets the service's answers must never echo into what is printed: a proxy's credentials. */
  secrets?: readonly string[] | undefined;
  /** The run's secrets (Io.secrets), shared with what else it prints of others' text: this client's own join them. */
  mask?: SecretMask | undefined;
  /** The most of an answer read (--max-answer-size): DEFAULT_MAX_ANSWER_BYTES when not given. */
  maxAnswerBytes?: number | undefined;
}

/**
 * The most of an answer whsvc reads by default: far more than any answer of the interface
 * (a page of 200 attempts with 64 KiB payloads is under 13 MiB), and a bound on memory
 * when a service, a gateway or a proxy answers without end.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 ** 2;

/** What is read of an answer that is not a 2xx: it is read for its message (describeErrorBody), which its head holds. */
const ERROR_HEAD_BYTES = 64 * 1024;

/** The largest --max-answer-size: an answer is read as one string, and Node's strings hold at most about 512 MiB. */
export const LARGEST_MAX_ANSWER_BYTES = 512 * 1024 ** 2;

/**
 * What the transport reads of an answer of the service for a limit of `maxAnswerBytes`: of a 2xx,
 * the limit, within Node's longest string (24 bytes under 512 MiB; a UTF-8 byte makes at most one
 * character, so a body no longer is always one string); of an error, its head.
 */
export const answerLimits = (maxAnswerBytes: number) => ({
  bodyLimit: Math.min(maxAnswerBytes, constants.MAX_STRING_LENGTH),
  errorBodyLimit: ERROR_HEAD_BYTES,
});

/** The answers that ask for a wait (Retry-After): a rate limit, and a service busy or down. */
export type WaitStatus = 429 | 503;

/**
 * The waits after which a request is sent again, unless its call says otherwise: any method but POST is repeated
 * after a 429 or a 503 (a read, a PATCH that sets fields, a DELETE: sent twice, they do what once does); a POST is
 * sent once. The interface promises nothing of either answer: neither says the service did nothing (a gateway may
 * answer so after the service acted), and a POST sent again may act twice (a second webhook, whose secret is lost).
 * An endpoint whose POST is safe to repeat says after which (api/endpoints.ts).
 */
function repeatedAfter(method: string): readonly WaitStatus[] {
  return method === 'POST' ? [] : [429, 503];
}

/** At most this many waits on 429/503 per request, each at most MAX_RETRY_AFTER_S. */
export const MAX_RETRY_AFTER_WAITS = 3;
export const MAX_RETRY_AFTER_S = 30;
/** A GET whose connection was reset is tried this many more times. */
export const GET_RESET_RETRIES = 2;

/** A token an Authorization header can carry: visible ASCII, as RFC 6750's b64token (CR LF or a space would break the header). */
const SENDABLE_TOKEN = /^[\x21-\x7e]+$/;

/** The token endpoint (the interface's section 5): the client's own, called before any other. */
const TOKEN_PATH = '/v1/oauth/token';

/** The scope each endpoint needs (as the interface lists them), for 403s whose body does not say. */
export function scopeFor(method: string): string {
  return method === 'GET' ? 'webhooks:read' : 'webhooks:write';
}

export type Query = Record<string, string | number | boolean | undefined>;

/**
 * The service's clock, as its answers' `Date` headers tell it: times in the
 * log are the service's, so "3 minutes ago" is counted from its now, not the
 * laptop's (a sandbox whose clock was moved, or a machine whose clock is off).
 * A `Date` header counts whole seconds, so an offset under two seconds is
 * within what it can tell and read as none.
 */
export class ServiceClock {
  private offset = 0;
  private heard = false;

  constructor(private readonly localNow: () => number = Date.now) {}

  /** Whether the service has answered yet (with a date or without). */
  get known(): boolean {
    return this.heard;
  }

  note(dateHeader: string | string[] | undefined, receivedAt: number): void {
    this.heard = true;
    const value = Array.isArray(dateHeader) ? dateHeader[0] : dateHeader;
    const date = value === undefined ? Number.NaN : Date.parse(value);
    // A service that sends no date: this machine's clock is all there is.
    if (Number.isNaN(date)) return;
    // The header's second began at `date`; the middle of it is the best guess of the service's now.
    const offset = date + 500 - receivedAt;
    this.offset = Math.abs(offset) < 2000 ? 0 : offset;
  }

  now(): number {
    return this.localNow() + this.offset;
  }
}

export interface CallOptions {
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Ends a wait for a Retry-After with RequestStopped, before the request is sent (a bulk run told to stop). */
  stop?: AbortSignal | undefined;
  /** What a 404 means for what was asked (where to find the right id): the ApiError's hint, given where the call is made. */
  notFoundHint?: string | undefined;
  /** This call's limit in place of --request-timeout: Infinity for work that takes as long as it takes (a clock jump). */
  timeoutMs?: number | undefined;
  /** The answers after which it is sent again, once the wait they ask for is over: repeatedAfter(method) unless given. */
  repeatAfter?: readonly WaitStatus[] | undefined;
  /** This call's most read of a 2xx, lower than the client's (reads in parallel that share a bound): past it, answerTooLarge. */
  maxAnswerBytes?: number | undefined;
  /**
   * A question the user did not ask (a progress line's poll), ended wherever it is when this signal aborts (its answer
   * no longer wanted: RequestStopped). It never waits and is never told of: not sent while a wait a 429 or 503 asked
   * for is in force (RequestStopped), not sent again after one (its ApiError at once), no spinner; it never renews the
   * token either (RequestStopped where it would: expired, or refused with a 401), leaving that to the foreground.
   */
  background?: AbortSignal | undefined;
}

/** A request sent as it is given (`whsvc api`): its body as bytes or text, and headers of the caller's. */
export interface SendOptions extends Pick<CallOptions, 'query' | 'stop' | 'timeoutMs' | 'repeatAfter' | 'maxAnswerBytes' | 'background'> {
  body?: string | Uint8Array | undefined;
  headers?: Record<string, string> | undefined;
}

/** A wait, cut short by `stop`: the request it held back is not sent. */
function unlessStopped(wait: Promise<void>, stop: AbortSignal | undefined): Promise<void> {
  if (!stop) return wait;
  if (stop.aborted) return Promise.reject(new RequestStopped());
  return new Promise((resolve, reject) => {
    const onStop = () => reject(new RequestStopped());
    stop.addEventListener('abort', onStop, { once: true });
    wait.then(() => {
      stop.removeEventListener('abort', onStop);
      resolve();
    }, reject);
  });
}

/**
 * The service's HTTP client: OAuth client credentials with a cached token,
 * one refresh on 401, Retry-After on 429/503 for what may be sent again
 * (repeatedAfter), and bounded repeats of reads only after a reset. It knows
 * nothing of the terminal.
 */
export class ApiClient {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private memoryToken: CachedToken | undefined;
  /** The wait a 429 or 503 asked for, shared: while it lasts, no request of this client is sent. */
  private pause: Promise<void> | undefined;
  private pauseEnds = 0;
  private tokenRequest: Promise<CachedToken> | undefined;
  /** Waits on 429/503 before a request gives up; a bulk command that must get through raises it. */
  retryAfterWaits = MAX_RETRY_AFTER_WAITS;
  /** Told of each wait a 429 or 503 asked for, in place of the notice line: a bulk command shows it in its progress line. */
  onWait: ((seconds: number, status: number) => void) | undefined;
  /** The service's now, from its answers (the times in its log are on this clock). */
  readonly serviceClock: ServiceClock;
  /** The secrets this client sends or holds, masked in every error and --debug line it makes of the service's answers. */
  private readonly secrets: SecretMask;

  /** The most of a 2xx read (--max-answer-size): past it the answer is an error (answerTooLarge). */
  readonly maxAnswerBytes: number;

  constructor(private readonly options: ApiClientOptions) {
    this.maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    this.secrets = options.mask ?? new SecretMask();
    this.secrets.add(options.credentials?.clientSecret);
    for (const secret of options.secrets ?? []) this.secrets.add(secret);
    this.now = options.now ?? Date.now;
    this.serviceClock = new ServiceClock(this.now);
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /**
   * A secret this client does not send but that the service knows, masked from now on as its own are: a webhook's
   * signing secret once its create answer has arrived (a service may echo it in a later error), one read from a file.
   */
  addSecret(secret: string | undefined): void {
    this.secrets.add(secret);
  }

  /** The cached token while it is still good to use, without asking the service for one. */
  cachedToken(): CachedToken | undefined {
    // Read from the cache once, then kept: a bulk command makes thousands of calls.
    const cached = (this.memoryToken ??= this.options.tokenCache?.read());
    // One no request can carry (cached before tokens were checked) is never offered: a fresh one is asked for.
    if (!cached || !SENDABLE_TOKEN.test(cached.access_token)) return undefined;
    const margin = Math.min(30_000, (cached.expires_in * 1000) / 10);
    return this.now() < cached.expires_at - margin ? cached : undefined;
  }

  /**
   * Refuses, before anything is asked or changed, a `method` the token's granted scope already says the service will
   * refuse (a read-only client deleting): the 403 the service would give, with the scope it needs. A token that states
   * no scope is not judged.
   */
  async requireScopeFor(method: string): Promise<void> {
    const granted = (await this.token()).scope;
    const needed = scopeFor(method);
    if (granted !== undefined && !granted.split(/\s+/).includes(needed)) {
      throw new ApiError(403, 'insufficient_scope', `the token's scope (${granted}) lacks ${needed}`, needed);
    }
  }

  /** A token fresh enough to use: the cached one until shortly before it expires, else a new one. */
  async token(forceNew = false): Promise<CachedToken> {
    if (!forceNew) {
      const cached = this.cachedToken();
      if (cached) return cached;
    }
    // Requests sent side by side (a bulk re-send's workers) share one token request.
    this.tokenRequest ??= (async () => {
      try {
        const token = await this.requestToken();
        this.memoryToken = token;
        await this.options.tokenCache?.write(token);
        return token;
      } finally {
        this.tokenRequest = undefined;
      }
    })();
    return this.tokenRequest;
  }

  /**
   * The token a request in the background carries: the cached one while good. Renewing it can wait and print and
   * cannot be stopped, so it is left to the foreground's next request: one that would be needed is RequestStopped.
   */
  private backgroundToken(): CachedToken {
    const cached = this.cachedToken();
    if (!cached) throw new RequestStopped();
    return cached;
  }

  /** POST /v1/oauth/token with the client credentials (JSON, as the interface gives it). */
  async requestToken(): Promise<CachedToken> {
    const credentials = this.options.credentials;
    if (!credentials) {
      const why = this.options.notLoggedIn ?? 'not logged in';
      throw why instanceof AuthError ? why : new AuthError(why);
    }
    const body = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      ...(credentials.scope ? { scope: credentials.scope } : {}),
    });
    // A second token request gets a second token, and does nothing else: sent again after either wait.
    const response = await this.exchange('POST', TOKEN_PATH, undefined, body, undefined, { resetRetries: false, repeatAfter: [429, 503] });
    if (response.status === 400 || response.status === 401) {
      const { code, message } = this.describe(response);
      throw new AuthError(`the service refused the credentials${code ? ` (${code})` : ''}: ${message ?? `HTTP ${response.status}`}`, response.status, code);
    }
    if (response.status !== 200) throw this.errorFor('POST', TOKEN_PATH, response);
    let parsed: { access_token?: unknown; expires_in?: unknown; scope?: unknown };
    try {
      parsed = JSON.parse(response.text) as typeof parsed;
    } catch {
      throw new ApiError(response.status, undefined, 'the token endpoint answered something that is not JSON');
    }
    if (typeof parsed.access_token !== 'string') throw new ApiError(200, undefined, 'the token endpoint answered without an access_token');
    // Checked before it is cached: a token no request can carry would fail every run until it expired.
    if (!SENDABLE_TOKEN.test(parsed.access_token)) {
      throw new ApiError(200, 'unexpected_answer', 'the token endpoint answered a token that cannot be sent (visible ASCII only)');
    }
    const expiresIn = typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : 300;
    return {
      access_token: parsed.access_token,
      expires_in: expiresIn,
      expires_at: this.now() + expiresIn * 1000,
      scope: typeof parsed.scope === 'string' ? parsed.scope : credentials.scope,
    };
  }

  /** An authenticated API call; resolves with the response of a 2xx, throws ApiError otherwise. */
  async call(method: string, path: string, options: CallOptions = {}): Promise<TransportResponse> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const response = await this.send(method, path, { ...options, body });
    if (response.status < 200 || response.status >= 300) {
      throw this.errorFor(method, path, response, options.notFoundHint, options.background ? [] : options.repeatAfter);
    }
    return response;
  }

  /**
   * An authenticated request whose answer is the caller's to read, whatever
   * its status (`whsvc api`): the token cached, refreshed once on a 401 (a
   * second 401 is an AuthError), waits on 429/503 as repeatedAfter says, as for every call. The body
   * is sent as given, with `headers` beside the client's own.
   */
  async send(method: string, path: string, options: SendOptions = {}): Promise<TransportResponse> {
    let token = options.background ? this.backgroundToken() : await this.token();
    const how = {
      resetRetries: method === 'GET',
      repeatAfter: options.background ? [] : (options.repeatAfter ?? repeatedAfter(method)),
      stop: options.stop,
      background: options.background,
      timeoutMs: options.timeoutMs,
      headers: options.headers,
      maxAnswerBytes: Math.min(options.maxAnswerBytes ?? this.maxAnswerBytes, this.maxAnswerBytes),
    };
    let response = await this.exchange(method, path, options.query, options.body, token.access_token, how);
    if (response.status === 401) {
      if (options.background) throw new RequestStopped();
      // Refused: never offer this token again, even if no fresh one can be had.
      this.memoryToken = undefined;
      await this.options.tokenCache?.clear();
      token = await this.token(true);
      response = await this.exchange(method, path, options.query, options.body, token.access_token, how);
      if (response.status === 401) {
        const { code, message } = this.describe(response);
        throw new AuthError(`the service refused a fresh access token: ${message ?? 'HTTP 401'}`, 401, code);
      }
    }
    return response;
  }

  /** The parsed JSON of a call; with `expect`, an answer of another shape is an ApiError, never a crash further on. */
  async json<T = unknown>(method: string, path: string, options: CallOptions & { expect?: Shape } = {}): Promise<T> {
    const response = await this.call(method, path, options);
    if (response.text === '' && !options.expect) return undefined as T;
    let value: unknown;
    try {
      value = exactParse(response.text);
    } catch {
      throw new ApiError(response.status, undefined, `the service answered ${method} ${path} with something that is not JSON`);
    }
    const problem = options.expect && shapeProblem(value, options.expect);
    if (problem) throw new ApiError(response.status, 'unexpected_answer', `the service answered ${method} ${path} with something that is not ${problem}`);
    return value as T;
  }

  /** The ApiError an answer that is not a 2xx makes: its message from the body, the scope a 403 lacks, a 404's hint. */
  errorFor(method: string, path: string, response: TransportResponse, notFoundHint?: string, repeatAfter = repeatedAfter(method)): ApiError {
    const described = this.describe(response);
    const requiredScope = response.status === 403 ? (described.requiredScope ?? scopeFor(method)) : undefined;
    let message = described.message ?? (described.code ? `the service refused ${method} ${path}` : `the service refused ${method} ${path} without saying why`);
    if (response.status === 429 || response.status === 503) message += `; ${this.gaveUp(response, repeatAfter.includes(response.status))}`;
    return new ApiError(response.status, described.code, message, requiredScope, response.status === 404 ? notFoundHint : undefined);
  }

  /** What an error answer says, every secret in force masked: a token endpoint or gateway may quote the request. */
  private describe(response: TransportResponse): ReturnType<typeof describeErrorBody> {
    return describeErrorBody(response.text, String(response.headers['content-type'] ?? ''), this.secrets.mask);
  }

  /** --debug's text, every secret in force masked (beside the fields and headers redactText and redactHeaders hide). */
  private debug(text: string): void {
    this.options.debug?.(this.secrets.mask(text));
  }

  /** Why a 429 or 503 was not waited out, as the end of its message. */
  private gaveUp(response: TransportResponse, repeatable: boolean): string {
    if (!repeatable) return 'not sent again, since the service may have acted on it all the same';
    const seconds = retryAfterSeconds(response.headers['retry-after'], this.now());
    if (seconds === undefined) return 'it gave no Retry-After: try again later';
    if (seconds > MAX_RETRY_AFTER_S)
      return `it asked to wait ${elapsed(seconds * 1000)} (Retry-After), longer than whsvc waits (${elapsed(MAX_RETRY_AFTER_S * 1000)}): gave up; try again then`;
    return `still busy after ${this.retryAfterWaits} waits as it asked (Retry-After): gave up; try again later`;
  }

  /**
   * Waits as a 429 or 503 asked, and holds back every other request of this
   * client meanwhile (the concurrent workers of a bulk retry): a limit is the
   * service's, not one request's. Requests told to wait no longer than a wait
   * under way join it.
   */
  private pauseFor(seconds: number, status: number): Promise<void> {
    const ends = this.now() + seconds * 1000;
    if (this.pause && ends <= this.pauseEnds) return this.pause;
    this.pauseEnds = ends;
    if (this.onWait) this.onWait(seconds, status);
    else this.options.notice?.(`the service answered ${status}; retrying in ${elapsed(seconds * 1000)} as it asks (Retry-After)`);
    const pause: Promise<void> = this.sleep(seconds * 1000).then(() => {
      if (this.pause === pause) this.pause = undefined;
    });
    this.pause = pause;
    return pause;
  }

  private async exchange(
    method: string,
    path: string,
    query: Query | undefined,
    body: string | Uint8Array | undefined,
    accessToken: string | undefined,
    {
      resetRetries,
      repeatAfter,
      stop,
      timeoutMs = this.options.timeoutMs,
      headers: extra = {},
      maxAnswerBytes = this.maxAnswerBytes,
      background,
    }: {
      /** Whether a reset connection is tried again (a read: it cannot have acted). */
      resetRetries: boolean;
      repeatAfter: readonly WaitStatus[];
      stop?: AbortSignal | undefined;
      timeoutMs?: number | undefined;
      headers?: Record<string, string> | undefined;
      maxAnswerBytes?: number | undefined;
      background?: AbortSignal | undefined;
    },
  ): Promise<TransportResponse> {
    const base = new URL(this.options.baseUrl);
    const url = new URL(this.options.baseUrl.replace(/\/+$/, '') + path);
    // The token goes to the service's address and nowhere else, whatever the path (`@host`, say, would move it).
    if (url.origin !== base.origin) throw new ApiError(0, 'other_address', `${path} is not a path at ${base.origin}: nothing was sent`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const given = Object.fromEntries(Object.entries(extra).map(([name, value]) => [name.toLowerCase(), value]));
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? 'whsvc',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...given,
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
    };
    this.secrets.add(accessToken);
    const shownBody = body === undefined ? undefined : typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
    let waits = 0;
    let resets = 0;
    for (;;) {
      // A longer wait may have replaced the one awaited: wait until none is left.
      while (this.pause) {
        if (background) throw new RequestStopped();
        await unlessStopped(this.pause, stop);
      }
      const started = this.now();
      this.debug(`> ${method} ${url.href}\n${redactHeaders(headers, this.options.platformName)}${shownBody ? `\n\n${redactText(shownBody)}` : ''}\n`);
      let response: TransportResponse;
      try {
        const quietly = background ? { signal: background, quiet: true } : {};
        response = await this.options.transport({ method, url, headers, body, timeoutMs, ...answerLimits(maxAnswerBytes), ...quietly });
      } catch (error) {
        if (background?.aborted) throw new RequestStopped();
        if (!(error instanceof TransportError)) throw error;
        this.debug(`< no answer: ${error.message}\n`);
        if (resetRetries && (error.code === 'ECONNRESET' || error.code === 'EPIPE') && resets < GET_RESET_RETRIES) {
          resets += 1;
          continue;
        }
        throw new NetworkError(this.secrets.mask(networkMessage(error, url)), url.host, error.sent, error.proxy);
      }
      this.serviceClock.note(response.headers.date, this.now());
      const refused = tooLarge(response);
      const shown = refused ? `(longer than ${bytesText(maxAnswerBytes)}: the rest not read)` : response.text;
      this.debug(
        `< ${response.status} (${this.now() - started} ms)\n${redactHeaders(response.headers, this.options.platformName)}${shown ? `\n\n${redactText(shown)}` : ''}\n`,
      );
      if (refused) throw answerTooLarge(method, url.pathname, response.status, maxAnswerBytes);
      if ((response.status === 429 || response.status === 503) && repeatAfter.includes(response.status) && waits < this.retryAfterWaits) {
        const seconds = retryAfterSeconds(response.headers['retry-after'], this.now());
        if (seconds !== undefined && seconds <= MAX_RETRY_AFTER_S) {
          waits += 1;
          await unlessStopped(this.pauseFor(seconds, response.status), stop);
          continue;
        }
      }
      return response;
    }
  }
}

/** How long a 429 or 503 asked the client to wait. */
function retryAfterSeconds(header: string | string[] | undefined, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function networkMessage(error: TransportError, url: URL): string {
  if (error.proxy) return error.message;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `cannot connect to ${url.host}: ${error.message}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host ${url.hostname}`;
    case 'ETIMEDOUT':
      return `${url.host} did not answer: ${error.message}`;
    case 'ECONNRESET':
      return `the connection to ${url.host} was reset`;
    case 'ETLS':
      return `cannot reach ${url.host}: ${error.message}`;
    case BROKEN_ANSWER_CODE:
      return `${url.host} gave a ${error.message}`;
    default:
      return `cannot reach ${url.host}: ${error.message}`;
  }
}
