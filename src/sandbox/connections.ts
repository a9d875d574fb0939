import { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';
import { isLoopbackHost, type ProxySettings } from '../net.js';

// Moved to one home below the sandbox, for listen too; kept importable from here.
export { defaultMaxConnections, MOST_CONNECTIONS } from '../open-files.js';

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
