import type { LookupFunction } from 'node:net';
import { type Dispatcher, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { deliveryConnections, rememberingUnresolved, UNRESOLVED_MEMORY_MS } from '../../../src/sandbox/connections.js';

const policy = { maxConnections: 8, timeoutMs: 1_000 };
const proxies = { httpProxy: 'http://127.0.0.1:9', httpsProxy: 'http://127.0.0.1:9' };

describe('the connections of the deliveries, with proxies set', () => {
  it('close() and destroy() end, promise or callback, and close both pools', async () => {
    await expect(deliveryConnections(policy, proxies).close()).resolves.toBeUndefined();
    await expect(deliveryConnections(policy, proxies).destroy()).resolves.toBeUndefined();
    await expect(deliveryConnections(policy, proxies).destroy(new Error('stop'))).resolves.toBeUndefined();
    await new Promise<void>((resolve) => deliveryConnections(policy, proxies).close(resolve));
    await new Promise<void>((resolve) => deliveryConnections(policy, proxies).destroy(null, resolve));
    const closed = deliveryConnections(policy, proxies);
    await closed.close();
    // Both pools refuse a send once closed: the one to this machine and the one through the proxy.
    for (const origin of ['http://127.0.0.1:9', 'http://elsewhere.test']) {
      const refused = new Promise<Error>((resolve) => {
        const handler: Dispatcher.DispatchHandler = { onResponseError: (_controller, error) => resolve(error) };
        closed.dispatch({ origin, path: '/', method: 'GET' }, handler);
      });
      expect((await refused).name, origin).toMatch(/^Client(Closed|Destroyed)Error$/);
    }
  });
});

describe('the names the sends resolve', () => {
  /**
   * A resolver that fails every name (ENOTFOUND) but those `resolving`, the asks counted. With `holdFirst`, the first
   * ask waits until the test lets it go (a resolver timing out), `firstAsked` telling when it came; later asks are
   * answered at once.
   */
  function resolverOf(resolving = new Set<string>(), holdFirst = false) {
    const asked: string[] = [];
    let release = () => {};
    let told = () => {};
    const firstAsked = new Promise<void>((resolve) => (told = resolve));
    const lookup: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      const answer = () =>
        resolving.has(hostname)
          ? callback(null, '127.0.0.1', 4)
          : callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), '', 0);
      if (holdFirst && asked.length === 1) {
        release = answer;
        told();
      } else answer();
    };
    return { lookup, asked, firstAsked, release: () => release() };
  }

  it('attempts to a name that does not resolve: the resolver is asked once, not once per attempt, and each fails as it did', async () => {
    const resolver = resolverOf(new Set(), true);
    const connections = deliveryConnections(policy, undefined, rememberingUnresolved(resolver.lookup));
    const sends = Array.from({ length: 5 }, () =>
      request('https://gone.nonexistent.invalid/hook', { dispatcher: connections, method: 'POST', body: '{}' }).then(
        () => 'answered',
        (error: NodeJS.ErrnoException) => error.code,
      ),
    );
    // undici connects to an origin one attempt at a time: the first waits on the resolver, the others behind it.
    await resolver.firstAsked;
    resolver.release();
    expect(await Promise.all(sends)).toEqual(Array(5).fill('ENOTFOUND'));
    expect(resolver.asked).toEqual(['gone.nonexistent.invalid']);
    await connections.close();
  });

  it('remembers a name that did not resolve for 10 s, and never one that resolved', async () => {
    let now = 0;
    const resolver = resolverOf(new Set(['up.example']));
    const lookup = rememberingUnresolved(resolver.lookup, () => now);
    const answers: Array<string | undefined> = [];
    const ask = (name: string) =>
      new Promise<void>((resolve) =>
        lookup(name, {}, (error) => {
          answers.push(`${name} ${error?.code ?? 'resolved'}`);
          resolve();
        }),
      );
    await ask('gone.invalid');
    await ask('up.example');
    await ask('up.example');
    now = UNRESOLVED_MEMORY_MS - 1;
    await ask('gone.invalid');
    expect(resolver.asked).toEqual(['gone.invalid', 'up.example', 'up.example']);
    now = UNRESOLVED_MEMORY_MS;
    await ask('gone.invalid');
    expect(resolver.asked).toEqual(['gone.invalid', 'up.example', 'up.example', 'gone.invalid']);
    expect(answers).toEqual(['gone.invalid ENOTFOUND', 'up.example resolved', 'up.example resolved', 'gone.invalid ENOTFOUND', 'gone.invalid ENOTFOUND']);
  });
});
