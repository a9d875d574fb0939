import type { Dispatcher } from 'undici';

export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | undefined;
  timeoutMs: number;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one HTTP request; rejects with a TransportError on no answer. */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

export class TransportError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** True once the request may have reached the server (so it may have acted). */
    readonly sent: boolean,
    /** The proxy the request went to, credentials left out, when it was the proxy that failed. */
    readonly proxy?: string,
  ) {
    super(message);
  }
}

/** The fetch API, as Node's global fetch and the undici package's own both give it. */
export type FetchFunction = (input: URL, init: RequestInit & { dispatcher?: Dispatcher }) => Promise<Response>;

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

/** fetch wraps the failure (`TypeError: fetch failed`); the cause says what happened. */
function rootOf(error: unknown): ErrorLike {
  let current = error as ErrorLike | undefined;
  while (current?.cause && typeof current.cause === 'object' && current.code === undefined) current = current.cause;
  return current ?? {};
}

/**
 * A failure of fetch as the TransportError the client understands. Anything
 * that is not a network failure (a MockAgent "not matched", a bad argument)
 * is returned unchanged, so that it shows as the bug it is.
 */
export function toTransportError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof TransportError) return error;
  const root = rootOf(error);
  const name = (error as ErrorLike | undefined)?.name ?? root.name;
  if (name === 'TimeoutError' || root.name === 'TimeoutError') {
    return new TransportError(`no answer within ${timeoutMs / 1000} s`, 'ETIMEDOUT', true);
  }
  const code = typeof root.code === 'string' ? root.code : undefined;
  const message = typeof root.message === 'string' ? root.message.split('\n')[0]! : String(error);
  // The Fetch standard's blocked ports (6000, 6665-6669, …): fetch refuses them before connecting.
  if (message === 'bad port') return new TransportError('fetch refuses this port (one of the Fetch standard\'s blocked ports); serve the API on another', 'EBADPORT', false);
  const refusedByProxy = /Proxy response \((\d+)\)/.exec(message);
  if (refusedByProxy) return new TransportError(`the proxy refused the tunnel (HTTP ${refusedByProxy[1]})`, 'EPROXY', false);
  if (code && code in NOT_SENT) return new TransportError(message, NOT_SENT[code]!, false);
  if (code && code in MAYBE_SENT) return new TransportError(message, MAYBE_SENT[code]!, true);
  // TLS refused before anything was sent: an https URL on a plain-http port, or a certificate not trusted.
  if (code && (code.startsWith('ERR_SSL_') || code === 'EPROTO' || CERTIFICATE_PROBLEM.test(code))) {
    return new TransportError(tlsMessage(code, message), 'ETLS', false);
  }
  // Another system error of the socket (EHOSTDOWN, say): a network failure all the same.
  if (code && /^E[A-Z]+$/.test(code)) return new TransportError(message, code, true);
  return root instanceof Error ? root : error;
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

/**
 * Requests through the fetch API. Node's global fetch is undici (the copy
 * bundled with Node), and costs the least to start; the undici package's own
 * fetch is used with a dispatcher of the same package (a proxy agent, a
 * MockAgent), since the two copies' dispatchers are not interchangeable.
 * Redirects are never followed: the token must go only where it was proven.
 */
export function fetchTransport(fetchImpl: FetchFunction, dispatcher?: Dispatcher): Transport {
  return async (req) => {
    try {
      const response = await fetchImpl(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body ?? null,
        redirect: 'manual',
        signal: AbortSignal.timeout(req.timeoutMs),
        ...(dispatcher ? { dispatcher } : {}),
      });
      const text = await response.text();
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      return { status: response.status, headers, text };
    } catch (error) {
      throw toTransportError(error, req.timeoutMs);
    }
  };
}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;

export interface ProxySettings {
  httpProxy?: string | undefined;
  httpsProxy?: string | undefined;
  noProxy?: string | undefined;
}

/** The proxies set in the environment, as curl reads them (the lower-case name first). */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  if (!PROXY_VARIABLES.some((name) => env[name])) return undefined;
  const httpProxy = env.http_proxy || env.HTTP_PROXY || undefined;
  return {
    httpProxy,
    httpsProxy: env.https_proxy || env.HTTPS_PROXY || httpProxy,
    noProxy: env.no_proxy ?? env.NO_PROXY,
  };
}

/** A proxy URL fit to print: no user name or password. */
export function proxyForDisplay(proxy: string): string {
  try {
    const url = new URL(proxy);
    url.username = '';
    url.password = '';
    return url.href.replace(/\/$/, '');
  } catch {
    return '(an unparsable proxy URL)';
  }
}

/**
 * The transport a process uses: the global fetch, or, when a proxy is set,
 * undici's EnvHttpProxyAgent (loaded only then) with undici's fetch. One
 * dispatcher for the whole process, keep-alive, shared by every request.
 */
export function defaultTransport(env: NodeJS.ProcessEnv): Transport {
  const proxies = proxySettings(env);
  if (!proxies) return fetchTransport(globalThis.fetch as FetchFunction);
  let ready: Promise<Transport> | undefined;
  return (req) => {
    ready ??= import('undici').then((loaded) => {
      // undici is CommonJS: bundled, its exports come as the default export.
      const { EnvHttpProxyAgent, fetch } = (loaded.default ?? loaded) as unknown as typeof loaded;
      return proxiedTransport(fetchTransport(fetch as unknown as FetchFunction, new EnvHttpProxyAgent(proxies)), proxies);
    });
    return ready.then((send) => send(req));
  };
}

/** A failure to reach the proxy itself says so, naming the proxy (never its credentials). */
function proxiedTransport(send: Transport, proxies: ProxySettings): Transport {
  return async (req) => {
    try {
      return await send(req);
    } catch (error) {
      if (!(error instanceof TransportError) || error.sent) throw error;
      const proxy = req.url.protocol === 'https:' ? proxies.httpsProxy : proxies.httpProxy;
      if (!proxy || !failedAt(error, proxy)) throw error;
      const shown = proxyForDisplay(proxy);
      throw new TransportError(`cannot reach the proxy ${shown}: ${error.message}`, error.code, false, shown);
    }
  };
}

/** Whether a connection failure names the proxy's port (undici's messages end with host:port). */
function failedAt(error: TransportError, proxy: string): boolean {
  try {
    const url = new URL(proxy);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return error.code === 'EPROXY' || error.message.endsWith(`:${port}`);
  } catch {
    return false;
  }
}
