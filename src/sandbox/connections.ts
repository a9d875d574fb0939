import { readFileSync } from 'node:fs';
import { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';
import { isLoopbackHost, type ProxySettings } from '../net.js';

/** The process's limit of open files (its soft limit), where the system tells it (Linux); undefined elsewhere. */
export function openFileLimit(limits: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  try {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(limits());
    if (!match) return undefined;
    return match[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** The most sends in flight at once the sandbox takes by itself, whatever the file limit. */
export const MOST_CONNECTIONS = 256;

/**
 * The sends in flight at once when --max-connections is not given: a
 * quarter of the file limit, at most MOST_CONNECTIONS. The other three quarters are for
 * what else holds a descriptor: the API's own clients, the store, and the
 * idle connections each origin keeps for a few seconds.
 */
export function defaultMaxConnections(fileLimit = openFileLimit()): number {
  if (fileLimit === undefined) return MOST_CONNECTIONS;
  return Math.max(8, Math.min(MOST_CONNECTIONS, Math.floor(fileLimit / 4)));
}

/**
 * The connections every delivery goes through: one pool per origin, so
 * webhooks at the same host:port share its connections (kept alive 4 s, then
 * closed; a pool with none left is dropped). The deliverer bounds how many are
 * in flight (maxConnections) and each webhook's share. With proxies set in the
 * environment, deliveries to other hosts go through them, as the CLI's
 * requests do (api/transport.ts), and this machine is reached directly.
 */
export function deliveryConnections(policy: { maxConnections: number; timeoutMs: number }, proxies?: ProxySettings): Dispatcher {
  const options = { connections: policy.maxConnections, keepAliveTimeout: 4_000, connect: { timeout: policy.timeoutMs } };
  // Through a proxy undici connects with its own function: the connect timeout is given to it by name.
  return proxies ? new ProxiedButThisMachine({ ...options, ...proxies, connectTimeout: policy.timeoutMs }) : new Agent(options);
}

/**
 * EnvHttpProxyAgent, but loopback (every 127.0.0.0/8 address, which NO_PROXY cannot name) always direct: two pools
 * behind one dispatcher. Not a subclass of either: undici's close() and destroy() without a callback call themselves
 * again with one, so an override that calls super's promise form calls itself for good (stopping a sandbox run with
 * a proxy set overflowed the stack).
 */
class ProxiedButThisMachine extends Dispatcher {
  readonly #proxied: EnvHttpProxyAgent;
  readonly #direct: Agent;

  constructor(options: EnvHttpProxyAgent.Options) {
    super();
    this.#proxied = new EnvHttpProxyAgent(options);
    const { httpProxy: _http, httpsProxy: _https, noProxy: _none, connectTimeout: _proxied, ...agentOptions } = options;
    this.#direct = new Agent(agentOptions);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const direct = isLoopbackHost(new URL(String(options.origin)).hostname);
    return (direct ? this.#direct : this.#proxied).dispatch(options, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    return settle(Promise.all([this.#proxied.close(), this.#direct.close()]), callback);
  }

  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
    const error = typeof first === 'function' ? null : (first ?? null);
    return settle(Promise.all([this.#proxied.destroy(error), this.#direct.destroy(error)]), typeof first === 'function' ? first : second);
  }
}

/** Dispatcher's two forms: the promise of `both`, or, given a callback, the callback once `both` is done. */
function settle(both: Promise<unknown>, callback?: () => void): Promise<void> | void {
  const done = both.then(() => undefined);
  if (!callback) return done;
  void done.then(callback);
}
