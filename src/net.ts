import type { AddressInfo } from 'node:net';
import { BROKEN_ANSWER, elapsed } from './render/words.js';
import { counted, countText } from './render/text.js';

/** The http URL of a listening server's address (IPv6 in brackets). */
export function httpUrl(address: AddressInfo): string {
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/**
 * Hosts plain http may go to, and that no proxy stands in front of: this machine only (a sandbox, its receivers, a
 * local proxy of the service). A URL's hostname, as WHATWG URL gives it: `localhost` and its subdomains (with or
 * without the final dot of a fully qualified name), 127.0.0.0/8 (`127.1` and `0x7f.1` are 127.0.0.1 by then), `[::1]`,
 * and 127.0.0.0/8 mapped into IPv6 (`[::ffff:127.0.0.1]` is `[::ffff:7f00:1]` by then).
 */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return (
    name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name) || mappedIpv4(name)?.startsWith('127.') === true
  );
}

/**
 * The IPv4 address an IPv4-mapped IPv6 hostname stands for, as WHATWG URL gives the hostname (`[::ffff:127.0.0.1]`
 * is `[::ffff:7f00:1]` by then, and so is `[0:0:0:0:0:ffff:7f00:1]`): `127.0.0.1`; undefined for any other hostname.
 */
export function mappedIpv4(hostname: string): string | undefined {
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(hostname);
  if (!mapped) return undefined;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;

/** The proxies of the environment; this machine (isLoopbackHost) is reached directly whatever they say. */
export interface ProxySettings {
  httpProxy?: string | undefined;
  httpsProxy?: string | undefined;
  noProxy?: string | undefined;
}

/** A proxy's address as curl reads it: one without a scheme (`user:pass@host:3128`, `host:3128`, as curl and Go take them) is http. */
const proxyAddress = (value: string | undefined) => (value && !value.includes('://') ? `http://${value}` : value || undefined);

/** The proxies set in the environment, as curl reads them (the lower-case name first). */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  if (!PROXY_VARIABLES.some((name) => env[name])) return undefined;
  const httpProxy = proxyAddress(env.http_proxy || env.HTTP_PROXY);
  return {
    httpProxy,
    httpsProxy: proxyAddress(env.https_proxy || env.HTTPS_PROXY) ?? httpProxy,
    noProxy: env.no_proxy ?? env.NO_PROXY,
  };
}

/**
 * The proxies' credentials, as secrets a server's text must never show: the password, `user:password` and that pair
 * in base64 (a Basic Proxy-Authorization, as a gateway may quote it); a user name without a password is the credential.
 */
export function proxyCredentials(proxies: ProxySettings | undefined): string[] {
  const decoded = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  return [proxies?.httpProxy, proxies?.httpsProxy].flatMap((proxy) => {
    const url = proxy === undefined ? null : URL.parse(proxy);
    if (!url || url.username === '') return [];
    const [user, password] = [decoded(url.username), decoded(url.password)];
    if (password === '') return [user];
    return [password, `${user}:${password}`, Buffer.from(`${user}:${password}`).toString('base64')];
  });
}

/**
 * Where a request to `url` connects, and the Host header it carries. A plain
 * http `*.localhost` name (or `localhost.`, the name fully qualified, which
 * resolvers may not know) counts as this machine (so credentials may go there
 * unencrypted) only because whsvc itself sends it to 127.0.0.1: the system
 * resolver could answer otherwise. Any other URL goes where it says.
 */
export function connectionFor(url: URL): { origin: string; host?: string } {
  if (url.protocol !== 'http:' || !/\.localhost\.?$|^localhost\.$/.test(url.hostname)) return { origin: url.origin };
  return { origin: `http://127.0.0.1:${url.port || '80'}`, host: url.host };
}

export const MAX_URL_LENGTH = 2048;

// Characters that change how a URL reads without changing where it goes:
// bidirectional controls, zero-width spaces and joiners, the word joiner and
// invisible operators, the byte order mark, the soft hyphen.
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** 169.254.0.0/16 or fe80::/10 (also inside an IPv6 address): where cloud metadata services answer. */
function isLinkLocal(hostname: string): boolean {
  if (/^169\.254\.\d{1,3}\.\d{1,3}$/.test(hostname)) return true;
  if (!hostname.startsWith('[')) return false;
  const address = hostname.slice(1, -1).toLowerCase();
  if (/^fe[89ab][0-9a-f]?:/.test(address)) return true;
  // An IPv4 address inside IPv6: mapped (::ffff:0:0/96), compatible (::/96) or NAT64 (64:ff9b::/96).
  const embedded = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(address);
  return embedded !== null && parseInt(embedded[1]!, 16) >> 8 === 169 && (parseInt(embedded[1]!, 16) & 0xff) === 254;
}

/**
 * A webhook endpoint: an absolute https URL, or http to a loopback host (the
 * sandbox's receivers run locally), in its normalised form, so that what is
 * stored, shown and sent to is one and the same string. The sandbox refuses
 * the rest with 400; the CLI refuses them before sending (exit 2, or asks again).
 */
export function webhookUrl(value: unknown): { href: string } | { problem: string } {
  const problem = (why: string) => ({ problem: why });
  if (typeof value !== 'string' || value.trim() === '') return problem('is required and must be a string');
  // URL parsing drops tabs and newlines silently; a URL that holds them would print as something else.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f-\u009f]/.test(value)) return problem('must not contain spaces or control characters');
  if (!value.isWellFormed()) return problem('must be well-formed Unicode (it holds a lone surrogate)');
  if (INVISIBLE.test(value)) return problem('must not contain invisible or bidirectional characters (zero-width spaces, direction marks)');
  if (value.length > MAX_URL_LENGTH) return problem(`must be at most ${counted(MAX_URL_LENGTH, 'character')}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return problem('must be an absolute URL such as https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return problem(`scheme ${url.protocol.replace(':', '')} is not supported; use https`);
  // The parser forgives `https:/host/x` and `https:///host/x`; a URL that only parses by forgiveness is a typo.
  if (!/^https?:\/\/[^/\\]/i.test(value)) return problem('must be written scheme://host/path, such as https://example.com/webhooks');
  if (url.username !== '' || url.password !== '') return problem('must not carry a user name or password (user:pass@); the signature authenticates deliveries');
  if (isLinkLocal(url.hostname)) return problem(`${url.hostname} is a link-local address (169.254.0.0/16, fe80::/10), refused`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return problem('must use https (http is accepted only for localhost and 127.0.0.1)');
  if (url.href.length > MAX_URL_LENGTH) return problem(`must be at most ${counted(MAX_URL_LENGTH, 'character')}`);
  return { href: url.href };
}

/**
 * A URL for messages: a user name or password in it (`user:pass@`) shown as
 * `***@`, also where the parser forgives the slashes (`http:user:pass@host`)
 * or they were left out (`user:pass@host` reads as the scheme `user:`). A URL
 * that parses, with no `@` past its user name and password, shows its host and
 * path whole; one that does not parse, or that holds another `@` (a password
 * with `@`, `#` or `/` in it, which the parser cuts elsewhere), hides
 * everything up to its last `@`: more than it needs to, never less.
 */
export function redactUserinfo(value: string): string {
  const at = value.indexOf('@');
  if (at < 0) return value;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const userinfo = url !== undefined && (url.username !== '' || url.password !== '');
  // No user name nor password, and the @ only in its query or fragment (`?email=a@b.com`): nothing to hide.
  const queryOrFragment = value.search(/[?#]/);
  if (url && !userinfo && queryOrFragment >= 0 && at > queryOrFragment) return value;
  // One @, the one before the host: only what stands before it is hidden.
  if (userinfo && at === value.lastIndexOf('@')) return value.replace(/^([a-z][a-z0-9+.-]*:[/\\]*)[^@]*@/i, '$1***@');
  return value.replace(/^([a-z][a-z0-9+.-]*:[/\\]*)[\s\S]*@/i, '$1***@');
}

export class TransportError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** True once the request may have reached the server (so it may have acted). */
    readonly sent: boolean,
    /** The proxy the request went to, credentials left out, when it was the proxy that failed. */
    readonly proxy?: string,
    /** The system's own words (`connect ECONNREFUSED 127.0.0.1:3128`), naming the address that failed. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** Why a server was not reached, in the words whsvc says it in everywhere: its own requests, forwards, and the sandbox's log. */
const PLAIN_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
};

/** The code of the TransportError of an answer that breaks HTTP (its words begin BROKEN_ANSWER, render/words.ts). */
export const BROKEN_ANSWER_CODE = 'EBADANSWER';

/**
 * Failures of this process before a connection was made, in words (no file descriptor, no memory, no local port
 * left): never the other end's. The sandbox sends such a delivery again rather than count it the endpoint's failure.
 */
const LOCAL_FAILURES: Record<string, string> = {
  EMFILE: 'too many open files (EMFILE): the process is at its file limit',
  ENFILE: 'too many open files on this machine (ENFILE)',
  ENOBUFS: 'no buffer space (ENOBUFS)',
  ENOMEM: 'out of memory (ENOMEM)',
  EADDRNOTAVAIL: 'no local port left to connect from (EADDRNOTAVAIL)',
};

/** The words of a failure of this process's own (LOCAL_FAILURES) in `error` or what it wraps, if it is one. */
export function localFailure(error: unknown): string | undefined {
  let current = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 5; depth++, current = current.cause as typeof current) {
    if (typeof current.code === 'string' && current.code in LOCAL_FAILURES) return LOCAL_FAILURES[current.code];
  }
  return undefined;
}

/**
 * An answer that had begun (its status and headers came) and was not finished: the connection closed or was reset
 * in the middle of its body. Made by exchange.ts, which alone knows how much of the body came.
 */
export class AnswerCutShort extends Error {
  constructor(
    /** What undici said: UND_ERR_SOCKET (the other side closed), ECONNRESET, … */
    readonly lost: Error,
    /** Bytes of the body that came. */
    readonly received: number,
    /** The bytes its Content-Length announced, if it gave one. */
    readonly announced: number | undefined,
  ) {
    super(`the answer was cut short: ${lost.message}`);
  }
}

/** An answer whose status line's code is no HTTP status (outside 100–599: `000`, `099`, `600`). Made by exchange.ts. */
export class StatusNotHttp extends Error {
  constructor(readonly statusCode: number) {
    super(`the status code ${statusCode} is not an HTTP status`);
  }
}

/** Whether `statusCode` is an HTTP status (100–599): what an answer's status line must carry. */
export const isHttpStatus = (statusCode: number) => Number.isInteger(statusCode) && statusCode >= 100 && statusCode <= 599;

/** Node's default --max-http-header-size, which undici follows: an answer's headers past it are not read. */
const MOST_HEADER_BYTES = '16 KiB';

/** What broke, for an answer that breaks HTTP (undici's errors and llhttp's HPE_ codes); undefined for anything else. */
function brokenAnswer(error: unknown, root: ErrorLike, code: string | undefined, message: string): string | undefined {
  if (error instanceof AnswerCutShort) {
    const lost = rootOf(error.lost).code;
    const how = lost === 'ECONNRESET' || lost === 'EPIPE' ? 'was reset' : 'closed';
    return error.announced !== undefined && error.received < error.announced
      ? `the connection ${how} after ${countText(error.received)} of the ${countText(error.announced)} bytes its Content-Length announced`
      : `the connection ${how} in the middle of it, after ${countText(error.received)} bytes of its body`;
  }
  if (error instanceof StatusNotHttp) {
    return `its status line's code is not an HTTP status (${String(error.statusCode).padStart(3, '0')}, outside 100–599)`;
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW' || code === 'HPE_HEADER_OVERFLOW') return `its headers pass ${MOST_HEADER_BYTES}, more than whsvc reads`;
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'its body is not as long as its Content-Length says';
  if (root.name !== 'HTTPParserError' && !code?.startsWith('HPE_')) return undefined;
  // llhttp's reason, as undici words it: `Response does not match the HTTP/1.1 protocol (Invalid header token)`.
  const reason = /\(([^)]*)\)\s*$/.exec(message)?.[1] ?? code ?? message;
  if (reason.startsWith('Expected HTTP/') || code === 'HPE_INVALID_CONSTANT') return 'not HTTP: it does not begin with an HTTP/1.1 status line';
  return `not HTTP/1.1 (${reason.charAt(0).toLowerCase()}${reason.slice(1)})`;
}

/** Failures before the request can have left this process (no connection was made): the service cannot have acted. */
const NOT_SENT: Record<string, string> = {
  ECONNREFUSED: 'ECONNREFUSED',
  ENOTFOUND: 'ENOTFOUND',
  EAI_AGAIN: 'EAI_AGAIN',
  EHOSTUNREACH: 'EHOSTUNREACH',
  ENETUNREACH: 'ENETUNREACH',
  EADDRNOTAVAIL: 'EADDRNOTAVAIL',
  UND_ERR_CONNECT_TIMEOUT: 'ETIMEDOUT',
};

/** Failures once the connection was up: the request may have reached the service. */
const MAYBE_SENT: Record<string, string> = {
  ECONNRESET: 'ECONNRESET',
  EPIPE: 'EPIPE',
  ETIMEDOUT: 'ETIMEDOUT',
  UND_ERR_SOCKET: 'ECONNRESET',
  UND_ERR_CLOSED: 'ECONNRESET',
  UND_ERR_HEADERS_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_BODY_TIMEOUT: 'ETIMEDOUT',
};

type ErrorLike = { name?: unknown; code?: unknown; message?: unknown; cause?: ErrorLike; port?: unknown };

/** The failure itself, or what it wraps (`TypeError: fetch failed` wraps what happened in its cause). */
function rootOf(error: unknown): ErrorLike {
  let current = error as ErrorLike | undefined;
  while (current?.cause && typeof current.cause === 'object' && current.code === undefined) current = current.cause;
  return current ?? {};
}

/**
 * A failure of undici as the TransportError the client understands. Anything
 * that is not a network failure (a MockAgent "not matched", a bad argument)
 * is returned unchanged, so that it shows as the bug it is.
 */
export function toTransportError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof TransportError) return error;
  const root = rootOf(error);
  const name = (error as ErrorLike | undefined)?.name ?? root.name;
  if (name === 'TimeoutError' || root.name === 'TimeoutError') {
    return new TransportError(`no answer within ${elapsed(timeoutMs)}`, 'ETIMEDOUT', true);
  }
  const code = typeof root.code === 'string' ? root.code : undefined;
  const message = typeof root.message === 'string' ? root.message.split('\n')[0]! : String(error);
  const broken = brokenAnswer(error, root, code, message);
  if (broken !== undefined) return new TransportError(`${BROKEN_ANSWER}: ${broken}`, BROKEN_ANSWER_CODE, true, undefined, message);
  const local = localFailure(error);
  if (local !== undefined) return new TransportError(local, code ?? 'ELOCAL', false, undefined, message);
  const refusedByProxy = /Proxy response \((\d+)\)/.exec(message);
  if (refusedByProxy) return new TransportError(`the proxy refused the tunnel (HTTP ${refusedByProxy[1]})`, 'EPROXY', false);
  if (code && code in NOT_SENT) return new TransportError(plainWords(NOT_SENT[code]!, message, timeoutMs), NOT_SENT[code]!, false, undefined, message);
  if (code && code in MAYBE_SENT) return new TransportError(plainWords(MAYBE_SENT[code]!, message, timeoutMs), MAYBE_SENT[code]!, true, undefined, message);
  // TLS refused before anything was sent: an https URL on a plain-http port, or a certificate not trusted.
  if (code && (code.startsWith('ERR_SSL_') || code === 'EPROTO' || CERTIFICATE_PROBLEM.test(code))) {
    return new TransportError(tlsMessage(code, message), 'ETLS', false);
  }
  // Another system error of the socket (EHOSTDOWN, say): a network failure all the same.
  if (code && /^E[A-Z]+$/.test(code)) return new TransportError(message, code, true);
  return root instanceof Error ? root : error;
}

function plainWords(code: string, message: string, timeoutMs: number): string {
  if (code === 'ETIMEDOUT') return `no answer within ${elapsed(timeoutMs)}`;
  return PLAIN_WORDS[code] ?? message;
}

/** OpenSSL's verification failures as Node names them: CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE, ERR_TLS_CERT_ALTNAME_INVALID, … */
const CERTIFICATE_PROBLEM = /CERT|SIGNATURE|^UNABLE_TO_/;

function tlsMessage(code: string, message: string): string {
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') {
    return 'the TLS handshake failed: the port answers plain http, not https';
  }
  if (CERTIFICATE_PROBLEM.test(code)) {
    return `the server's certificate is not trusted (${code}); a private CA goes in NODE_EXTRA_CA_CERTS`;
  }
  return `the TLS handshake failed (${code}): ${message.replace(/^.*routines:/, '')}`;
}
