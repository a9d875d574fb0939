import type { LookupOptions } from 'node:dns';
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

  /** rememberingUnresolved over a resolver that fails with `code` every ask but those of `resolving` (name and family), the asks counted. */
  function remembering(code: string, resolving: Array<[string, number]> = []) {
    const asked: string[] = [];
    const lookup = rememberingUnresolved((hostname, options, callback) => {
      asked.push(`${hostname} ${options.family ?? 0}`);
      if (resolving.some(([name, family]) => name === hostname && family === options.family)) return callback(null, '127.0.0.1', 4);
      callback(Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code, syscall: 'getaddrinfo', hostname }), '', 0);
    });
    const ask = (name: string, options: LookupOptions = {}) =>
      new Promise<NodeJS.ErrnoException | null>((resolve) => lookup(name, options, (error) => resolve(error)));
    return { ask, asked };
  }

  it('remembers only an answer that the name does not exist, never a failure of the moment (a time-out, this process out of files)', async () => {
    for (const code of ['ENOTFOUND', 'ENODATA', 'EAI_NONAME']) {
      const { ask, asked } = remembering(code);
      expect((await ask('gone.invalid'))?.code).toBe(code);
      expect((await ask('gone.invalid'))?.code).toBe(code);
      expect(asked, code).toEqual(['gone.invalid 0']);
    }
    for (const code of ['EAI_AGAIN', 'EAI_FAIL', 'EAI_SYSTEM', 'EMFILE', 'ETIMEOUT']) {
      const { ask, asked } = remembering(code);
      expect((await ask('slow.example'))?.code).toBe(code);
      expect((await ask('slow.example'))?.code).toBe(code);
      expect(asked, code).toEqual(['slow.example 0', 'slow.example 0']);
    }
  });

  it('remembers a name per address family asked for: no IPv6 address says nothing of IPv4', async () => {
    const { ask, asked } = remembering('ENOTFOUND', [['v4only.example', 4]]);
    expect((await ask('v4only.example', { family: 6 }))?.code).toBe('ENOTFOUND');
    expect(await ask('v4only.example', { family: 4 })).toBeNull();
    expect((await ask('V4ONLY.example', { family: 6 }))?.code).toBe('ENOTFOUND');
    expect(asked).toEqual(['v4only.example 6', 'v4only.example 4']);
  });

  it('gives each caller an error of its own, as the resolver gave it', async () => {
    const { ask } = remembering('ENOTFOUND');
    const first = (await ask('gone.invalid'))!;
    first.message = 'changed by its first caller';
    const second = (await ask('gone.invalid'))!;
    const third = (await ask('gone.invalid'))!;
    expect(second).not.toBe(third);
    expect(second).not.toBe(first);
    expect({ ...second, message: second.message }).toEqual({
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
      hostname: 'gone.invalid',
      errno: undefined,
      message: 'getaddrinfo ENOTFOUND gone.invalid',
    });
  });
});
