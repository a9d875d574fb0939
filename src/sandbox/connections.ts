import { lookup as systemLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
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
export function deliveryConnections(
  policy: { maxConnections: number; timeoutMs: number },
  proxies?: ProxySettings,
  lookup: LookupFunction = rememberingUnresolved(systemLookup),
): Dispatcher {
  const options = { connections: policy.maxConnections, keepAliveTimeout: 4_000, connect: { timeout: policy.timeoutMs, lookup } };
  // Through a proxy undici connects with its own function: the connect timeout is given to it by name.
  return proxies ? new ProxiedButThisMachine({ ...options, ...proxies, connectTimeout: policy.timeoutMs }) : new Agent(options);
}

/** How long a name that does not exist is answered so without asking again (real time). */
export const UNRESOLVED_MEMORY_MS = 10_000;

/**
 * The lookup errors that are an answer: the name does not exist, or has no address of the family asked for
 * (dns.lookup gives ENOTFOUND for both; ENODATA and EAI_NONAME where the system says so). Any other (EAI_AGAIN: the
 * resolver timed out or could not be reached; EAI_SYSTEM, EMFILE: this process out of something) is a failure of
 * the moment, for the next attempt to ask again.
 */
const DEFINITE_ANSWERS = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME']);

/**
 * The resolver the sends connect through, remembering for UNRESOLVED_MEMORY_MS a name it was told does not exist, as
 * a caching resolver keeps a negative answer: undici connects to an origin one attempt at a time, so the attempts due
 * to a webhook whose name does not exist each waited on the resolver (seconds, behind a slow one) one after another;
 * they now fail at once with the same answer. A name that resolves is asked each time, and so is one whose lookup
 * failed for a reason of the moment: an attempt is never said to fail on a lookup no one made.
 */
export function rememberingUnresolved(lookup: LookupFunction, now: () => number = () => performance.now()): LookupFunction {
  const unresolved = new Map<string, { error: NodeJS.ErrnoException; until: number }>();
  return (hostname, options, callback) => {
    const key = lookupKey(hostname, options);
    const known = unresolved.get(key);
    if (known && known.until > now()) return queueMicrotask(() => callback(copyOf(known.error), '', 0));
    unresolved.delete(key);
    lookup(hostname, options, (error, address, family) => {
      if (error && DEFINITE_ANSWERS.has(error.code ?? '')) unresolved.set(key, { error: copyOf(error), until: now() + UNRESOLVED_MEMORY_MS });
      callback(error, address, family);
    });
  };
}

/** What a lookup's answer depends on: the name (its case aside), the address family and hints asked for, one address or all. */
function lookupKey(hostname: string, options: Parameters<LookupFunction>[1] | number): string {
  const { family = 0, hints = 0, all = false } = typeof options === 'number' ? { family: options } : (options ?? {});
  const familyNumber = family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : Number(family);
  return `${hostname.toLowerCase()} ${familyNumber} ${hints} ${all}`;
}

/** A lookup error of its own for each caller (one caller adding to or changing it changes no other's). */
function copyOf(error: NodeJS.ErrnoException): NodeJS.ErrnoException {
  const { code, errno, syscall, hostname } = error as NodeJS.ErrnoException & { hostname?: string };
  return Object.assign(new Error(error.message), { code, errno, syscall, hostname });
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
