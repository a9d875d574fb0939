import type { Dispatcher } from 'undici';
import { exchange } from '../exchange.js';
import { connectionFor, isLoopbackHost, type ProxySettings, proxySettings, TransportError, toTransportError } from '../net.js';

export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
  timeoutMs: number;
  /** Bytes of the answer's body read: past them the answer is its head (`cut`), and its connection is closed. */
  bodyLimit: number;
  /** The bodyLimit of an answer that is not a 2xx, when lower (an error is read for its message). */
  errorBodyLimit?: number | undefined;
  /** Ends the request wherever it is, rejected with the signal's reason: its answer is no longer wanted. */
  signal?: AbortSignal | undefined;
  /** A request the user did not ask for (a progress line's poll): no spinner is drawn while it waits. */
  quiet?: boolean | undefined;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** `text` is only the answer's head: the answer went on past the request's bodyLimit, and the rest was not read. */
  cut?: boolean | undefined;
}

/** Sends one HTTP request; rejects with a TransportError on no answer. */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/**
 * Requests through undici's Dispatcher API (`exchange`, with a handler of
 * ours), on the given dispatcher: the process's one Agent (keep-alive, shared
 * by every request), a proxy agent, or a test's MockAgent. Redirects are never
 * followed: the token goes only where it was proven.
 */
export function undiciTransport(dispatcher: Dispatcher | (() => Promise<Dispatcher>)): Transport {
  const ready = typeof dispatcher === 'function' ? dispatcher : () => Promise.resolve(dispatcher);
  return async (req) => {
    try {
      const target = await ready();
      const { origin, host } = connectionFor(req.url);
      const answer = await exchange(
        target,
        {
          origin,
          path: req.url.pathname + req.url.search,
          method: req.method as Dispatcher.HttpMethod,
          headers: host ? { ...req.headers, host } : req.headers,
          body: req.body ?? null,
        },
        { timeoutMs: req.timeoutMs, bodyLimit: req.bodyLimit, errorBodyLimit: req.errorBodyLimit, signal: req.signal },
      );
      // The text made when read (exchange.ts): an answer refused for its size is never decoded.
      return {
        status: answer.statusCode,
        headers: { ...answer.headers },
        cut: answer.cut,
        get text() {
          return answer.body;
        },
      };
    } catch (error) {
      throw toTransportError(error, req.timeoutMs);
    }
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
 * The transport a process uses: one undici Agent, created at the first
 * request. When a proxy is set, requests to other hosts go through one
 * EnvHttpProxyAgent (loaded only then), and this machine (isLoopbackHost) is
 * still reached directly, as gh, stripe and Go's HTTP client do: NO_PROXY has
 * no way to name all of 127.0.0.0/8.
 */
export function defaultTransport(env: NodeJS.ProcessEnv): Transport {
  // The promise is kept, not the Agent: requests that start while undici's module loads (a load's first deliveries)
  // all wait for the one Agent, where each made its own, with a pool of connections of its own.
  let agent: Promise<Dispatcher> | undefined;
  const direct = undiciTransport(() => (agent ??= import('undici/lib/dispatcher/agent.js').then((loaded) => new loaded.default())));
  const proxies = proxySettings(env);
  if (!proxies) return direct;
  let proxyAgent: Promise<Dispatcher> | undefined;
  // The whole package here: its proxy agents use the Dispatcher API that undici's index installs (connect, for CONNECT tunnels).
  const throughProxy = proxiedTransport(
    undiciTransport(
      () =>
        (proxyAgent ??= import('undici').then((loaded) => {
          // undici is CommonJS: bundled, its exports come as the default export.
          const { EnvHttpProxyAgent } = (loaded.default ?? loaded) as unknown as typeof loaded;
          try {
            return new EnvHttpProxyAgent(proxies);
          } catch (error) {
            throw unusableProxy(proxies, error);
          }
        })),
    ),
    proxies,
  );
  return (req) => (isLoopbackHost(req.url.hostname) ? direct(req) : throughProxy(req));
}

/** A failure to reach the proxy itself says so, naming the proxy (never its credentials). */
function proxiedTransport(send: Transport, proxies: ProxySettings): Transport {
  return async (req) => {
    try {
      return await send(req);
    } catch (error) {
      if (!(error instanceof TransportError) || error.sent || error.proxy !== undefined) throw error;
      const proxy = req.url.protocol === 'https:' ? proxies.httpsProxy : proxies.httpProxy;
      if (!proxy || !failedAt(error, proxy)) throw error;
      const shown = proxyForDisplay(proxy);
      throw new TransportError(`cannot reach the proxy ${shown}: ${error.message}`, error.code, false, shown);
    }
  };
}

/** Proxies undici cannot go through (`ftp://`, or no URL at all): one line naming them, without their credentials. */
function unusableProxy(proxies: ProxySettings, error: unknown): TransportError {
  const shown = [...new Set([proxies.httpsProxy, proxies.httpProxy].filter((proxy) => proxy !== undefined).map(proxyForDisplay))].join(' or ');
  const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new TransportError(`cannot use the proxy ${shown}: ${why}`, 'EPROXY', false, shown);
}

/** Whether a connection failure names the proxy's port (undici's messages end with host:port). */
function failedAt(error: TransportError, proxy: string): boolean {
  try {
    const url = new URL(proxy);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return error.code === 'EPROXY' || (error.detail ?? error.message).endsWith(`:${port}`);
  } catch {
    return false;
  }
}
