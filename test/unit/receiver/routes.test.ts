import { describe, expect, it } from 'vitest';
import { usageMessage } from '../../../src/cli/errors.js';
import { checkRoutes, describeRoutes, forwardRoute, forwardUrl, routeFor } from '../../../src/receiver/routes.js';
import { redactUserinfo } from '../../../src/net.js';

const routes = (...values: string[]) => values.map(forwardRoute);
const refusal = (...values: string[]) => {
  try {
    checkRoutes(routes(...values));
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe('--forward-to routes: one that an earlier route shadows is refused, naming it', () => {
  it('a pattern whose every event type an earlier pattern takes', () => {
    expect(refusal('invoice.*=http://127.0.0.1:1/', 'invoice.paid=http://127.0.0.1:2/')).toBe(
      '--forward-to invoice.paid=http://127.0.0.1:2/ could never be taken: the earlier route invoice.*=http://127.0.0.1:1/ takes every event type invoice.paid matches',
    );
    expect(refusal('a.*=http://127.0.0.1:1/', 'a.*=http://127.0.0.1:2/')).toMatch(
      /a\.\*=http:\/\/127\.0\.0\.1:2\/ could never be taken: the earlier route a\.\*=/,
    );
    expect(refusal('invoice.*=http://127.0.0.1:1/', 'invoice.p*=http://127.0.0.1:2/')).toMatch(/invoice\.p\*=.* could never be taken/);
    expect(refusal('*.paid=http://127.0.0.1:1/', 'invoice.paid=http://127.0.0.1:2/')).toMatch(/invoice\.paid=.* could never be taken/);
  });

  it('anything after a bare URL or *=URL, which take every delivery', () => {
    expect(refusal('http://127.0.0.1:1/', 'invoice.paid=http://127.0.0.1:2/')).toBe(
      '--forward-to invoice.paid=http://127.0.0.1:2/ could never be taken: the earlier route http://127.0.0.1:1/ takes every delivery',
    );
    expect(refusal('http://127.0.0.1:1/', 'http://127.0.0.1:2/')).toMatch(/^--forward-to http:\/\/127\.0\.0\.1:2\/ could never be taken/);
    expect(refusal('*=http://127.0.0.1:1/', 'http://127.0.0.1:2/')).toMatch(
      /could never be taken: the earlier route http:\/\/127\.0\.0\.1:1\/ takes every delivery/,
    );
    expect(refusal('*=http://127.0.0.1:1/', 'invoice.*=http://127.0.0.1:2/')).toMatch(/could never be taken/);
  });

  it('routes that each take something are kept, in order, and the first that matches takes a delivery', () => {
    const given = routes('invoice.paid=http://127.0.0.1:1/', 'invoice.*=http://127.0.0.1:2/', '*.paid=http://127.0.0.1:3/', 'http://127.0.0.1:4/');
    expect(checkRoutes(given)).toHaveLength(4);
    expect(routes('invoice.p*=http://127.0.0.1:1/', 'invoice.*=http://127.0.0.1:2/').map((r) => r.label)).toEqual(['invoice.p*', 'invoice.*']);
    expect(refusal('invoice.p*=http://127.0.0.1:1/', 'invoice.*=http://127.0.0.1:2/')).toBeUndefined();
    const port = (event: string | undefined) => routeFor(given, event)?.url.port;
    expect([port('invoice.paid'), port('invoice.created'), port('product.paid'), port('product.updated'), port(undefined)]).toEqual(['1', '2', '3', '4', '4']);
    expect(routeFor(routes('invoice.*=http://127.0.0.1:1/'), 'product.updated')).toBeUndefined();
    // *=URL is the bare URL, said another way.
    expect(routes('*=http://127.0.0.1:1/')[0]).toMatchObject({ pattern: null, label: '*' });
  });
});

describe('credentials in a forward URL are never echoed', () => {
  it('in the routes as lines name them', () => {
    expect(describeRoutes(routes('invoice.*=http://user:s3cret@127.0.0.1:1/a', 'https://s3cret@example.com/b'))).toBe(
      'invoice.*=http://***@127.0.0.1:1/a, https://***@example.com/b',
    );
  });

  it('in the usage errors about them', () => {
    const message = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    expect(message(() => checkRoutes(routes('http://u:s3cret@127.0.0.1:1/', 'a.b=http://v:s3cret@127.0.0.1:2/')))).not.toContain('s3cret');
    expect(message(() => forwardUrl('ftp://u:s3cret@example.com/', '--to'))).toBe(
      '--to "ftp://***@example.com/": only http:// and https:// URLs can receive deliveries',
    );
    expect(message(() => forwardUrl('http://u:s3cret@[::1', '--to'))).toBe('--to "http://***@[::1": not a URL');
    // commander echoes the value given to a flag before the parser's reason: masked there too, in a route's URL as well.
    for (const value of ['ftp://u:s3cret@h/x', 'invoice.*=ftp://u:s3cret@h/x', 'u:s3cret@h/x', 'http:u:s3cret@h']) {
      const shown = usageMessage(`error: option '--forward-to <url>' argument '${value}' is invalid. only http:// and https:// URLs can receive deliveries.`);
      expect(shown).not.toContain('s3cret');
      expect(shown).toMatch(/^--forward-to '?.*\*\*\*@h.*'?: only http/);
    }
    expect(message(() => forwardRoute('invoice.*=ftp://u:s3cret@h/x'))).not.toContain('s3cret');
  });
});

describe('a password in a URL is never echoed, whatever it holds', () => {
  it.each([
    ['http://user:TOP/SECRET@127.0.0.1:1/', 'http://***@127.0.0.1:1/'],
    ['http://u:p@ss@bad host/', 'http://***@bad host/'],
    ['https://u:a#b?c@example.com/x', 'https://***@example.com/x'],
    ['user:pass@host:3000', 'user:***@host:3000'],
    ['http://localhost:3000/hooks', 'http://localhost:3000/hooks'],
    ['http://u:SEC@127.0.0.1:1/a@b', 'http://***@b'],
    ['http://us:S3CR@E#T@127.0.0.1:9/fw', 'http://***@127.0.0.1:9/fw'],
    ['http://u:1/x@host/', 'http://***@host/'],
    ['https://u:pw@example.com/hooks', 'https://***@example.com/hooks'],
    ['http://127.0.0.1:1/x?e=a@b.com', 'http://127.0.0.1:1/x?e=a@b.com'],
  ])('%s', (given, shown) => {
    expect(redactUserinfo(given)).toBe(shown);
  });
});
