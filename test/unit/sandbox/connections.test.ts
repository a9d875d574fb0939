import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { deliveryConnections } from '../../../src/sandbox/connections.js';

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
