import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
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

/** EnvHttpProxyAgent, but loopback (every 127.0.0.0/8 address, which NO_PROXY cannot name) always direct. */
class ProxiedButThisMachine extends EnvHttpProxyAgent {
  readonly #direct: Agent;

  constructor(options: EnvHttpProxyAgent.Options) {
    super(options);
    const { httpProxy: _http, httpsProxy: _https, noProxy: _none, connectTimeout: _proxied, ...agentOptions } = options;
    this.#direct = new Agent(agentOptions);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const direct = isLoopbackHost(new URL(String(options.origin)).hostname);
    return direct ? this.#direct.dispatch(options, handler) : super.dispatch(options, handler);
  }

  override async close(): Promise<void> {
    await Promise.all([super.close(), this.#direct.close()]);
  }

  override async destroy(): Promise<void> {
    await Promise.all([super.destroy(), this.#direct.destroy()]);
  }
}
