import { describe, expect, it } from 'vitest';
import { codeWords, compactTime, noAnswer, relativeTime } from '../../../src/render/words.js';
import { cutWords, displayWidth, shortenUrl, shortId, shortList } from '../../../src/render/width.js';

const PROD = 'https://hooks.prod.example.com/api/v2/webhooks/erp/invoices';
const STAGING = 'https://hooks.staging.example.com/api/v2/webhooks/erp/invoices';

describe('a URL shortened: its scheme and host whole, its path loses its middle', () => {
  it('keeps whole segments from the end of the path first, then from its start', () => {
    expect(shortenUrl(PROD, 100)).toBe(PROD);
    expect(shortenUrl(PROD, 50)).toBe('https://hooks.prod.example.com/api/…/erp/invoices');
    expect(shortenUrl(PROD, 45)).toBe('https://hooks.prod.example.com/…/erp/invoices');
    expect(shortenUrl(PROD, 41)).toBe('https://hooks.prod.example.com/…/invoices');
    // Too narrow for `/…/` and the last segment: `…/` and it, then the path goes whole, never a segment cut in two.
    expect(shortenUrl(STAGING, 43)).toBe('https://hooks.staging.example.com…/invoices');
    expect(shortenUrl(PROD, 35)).toBe('https://hooks.prod.example.com/…');
    expect(shortenUrl('http://127.0.0.1:9401/api/v2/webhooks/erp/orders', 38)).toBe('http://127.0.0.1:9401/api/…/erp/orders');
  });

  it('a production and a staging endpoint read apart at every width that holds their hosts', () => {
    for (let width = 35; width <= 70; width++) {
      const [prod, staging] = [shortenUrl(PROD, width), shortenUrl(STAGING, width)];
      expect(displayWidth(prod), `${width}`).toBeLessThanOrEqual(width);
      expect(prod.startsWith('https://hooks.prod.example.com'), `${width}: ${prod}`).toBe(true);
      expect(staging.startsWith('https://hooks.staging.example.com'), `${width}: ${staging}`).toBe(true);
    }
  });

  it('narrower than scheme and host, `https://` goes; only a host wider than the room is shortened, as an id is (its start and its end kept)', () => {
    expect(shortenUrl(PROD, 31)).toBe('hooks.prod.example.com/…');
    // The host whole before `/…`: what tells the rows apart.
    expect(shortenUrl(PROD, 22)).toBe('hooks.prod.example.com');
    expect(shortenUrl(PROD, 20)).toBe('hooks.pro…xample.com');
    expect(shortenUrl('https://hooks.production.example-company.com', 20)).toBe('hooks.pro…ompany.com');
    // Without `https://` (a column whose https URLs drop theirs): whole where it fits, else as above.
    expect(shortenUrl('https://127.0.0.1:9401/hooks', 60, false)).toBe('127.0.0.1:9401/hooks');
    expect(shortenUrl(PROD, 31, false)).toBe('hooks.prod.example.com/…');
    expect(shortenUrl('not a url at all, just text', 12)).toBe('not a…t text');
  });

  it('`http://` (sent unencrypted) always shows, at every width, in a column whose https URLs drop theirs too', () => {
    const plain = PROD.replace('https://', 'http://');
    expect(shortenUrl('http://127.0.0.1:9401/hooks', 60, false)).toBe('http://127.0.0.1:9401/hooks');
    expect(shortenUrl(plain, 80, false)).toBe(plain);
    expect(shortenUrl(plain, 40, false)).toBe('http://hooks.prod.example.com/…/invoices');
    expect(shortenUrl(plain, 29)).toBe('http://hooks.prod.example.com');
    expect(shortenUrl(plain, 20)).toBe('http://hooks.…le.com');
    for (let width = 10; width <= 60; width++) {
      const shown = shortenUrl(plain, width, width % 2 === 0);
      expect(shown.startsWith('http://'), `${width}: ${shown}`).toBe(true);
      expect(displayWidth(shown), `${width}: ${shown}`).toBeLessThanOrEqual(width);
    }
  });
});

describe('words are never cut in two', () => {
  it('text is cut between words, or where a word ends', () => {
    expect(cutWords('production_order.completed', 12)).toBe('production_…');
    expect(cutWords('sales_order.created', 12)).toBe('sales_order…');
    expect(cutWords("A product's master data changed.", 20)).toBe("A product's master…");
    expect(cutWords('invoice.paid', 12)).toBe('invoice.paid');
    // One word wider than the room alone is cut at its end.
    expect(cutWords('supercalifragilistic', 8)).toBe('superca…');
  });

  it('a list keeps whole items and counts the rest', () => {
    expect(shortList(['webhooks:read', 'webhooks:write'], 28, ' ')).toBe('webhooks:read webhooks:write');
    expect(shortList(['webhooks:read', 'webhooks:write'], 20, ' ')).toBe('webhooks:read +1');
    expect(shortList(['invoice.paid', 'sales_order.created', 'production_order.completed'], 36)).toBe('invoice.paid, sales_order.created +1');
    expect(shortList(['invoice.paid', 'sales_order.created', 'production_order.completed'], 16)).toBe('invoice.paid +2');
  });

  it('an id has one short form, its start and its end', () => {
    expect(shortId('dlv_eb21e83a2f0dc702c917aaee')).toBe('dlv_eb…aaee');
    expect(shortId('wh_c83aff767de74af5b1f8e3ad')).toBe('wh_c83…e3ad');
    expect(shortId('dlv_1')).toBe('dlv_1');
  });
});

describe('relative times, long and compact', () => {
  const now = Date.UTC(2025, 0, 15, 12, 0, 0);
  const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();
  it.each([
    [0, 'now', 'now'],
    [15, '15 seconds ago', '15s ago'],
    [7, '7 seconds ago', '7s ago'],
    [170, '3 minutes ago', '3m ago'],
    [2 * 3600, '2 hours ago', '2h ago'],
    [3 * 86_400, '3 days ago', '3d ago'],
    [300 * 86_400, '10 months ago', '10mo ago'],
    [800 * 86_400, '2 years ago', '2y ago'],
    [-45, 'in 45 seconds', 'in 45s'],
  ])('%i s ago: %s, compact %s', (seconds, long, compact) => {
    expect(relativeTime(ago(seconds), now)).toBe(long);
    expect(compactTime(ago(seconds), now)).toBe(compact);
    expect(displayWidth(compactTime(ago(seconds), now))).toBeLessThanOrEqual(8);
  });

  it('text that is no time is shown as it is', () => {
    expect(compactTime('no token', now)).toBe('no token');
    expect(relativeTime('-', now)).toBe('-');
  });
});

describe('no answer: one term', () => {
  it('said once, with why when it is known', () => {
    expect(noAnswer()).toBe('no answer');
    expect(noAnswer(null)).toBe('no answer');
    expect(noAnswer('connection refused')).toBe('no answer: connection refused');
    expect(noAnswer('no answer within 10 s')).toBe('no answer within 10 s');
  });

  it('as a code: the status, no answer, or - while under way', () => {
    expect(codeWords(503, 'failed')).toBe('503');
    expect(codeWords(undefined, 'failed')).toBe('no answer');
    expect(codeWords(undefined, 'pending')).toBe('-');
  });
});
