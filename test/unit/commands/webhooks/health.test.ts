import { afterEach, describe, expect, it } from 'vitest';
import { run as health } from '../../../../src/commands/webhooks/health.js';
import {
  T0,
  fakeDeps,
  finishFakeDeps,
  json,
  jsonReply,
  mockToken,
  pathOnly,
  queryOf,
  type FakeDeps,
  type FakeDepsOptions,
} from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (msBefore: number) => new Date(T0 - msBefore).toISOString();

function hook(id: string, extra: Record<string, unknown> = {}) {
  return { id, url: `https://${id}.example.com/in`, events: ['invoice.paid'], active: true, created_at: at(48 * HOUR), ...extra };
}

/** An attempt record as the sandbox lists it. */
function attempt(id: string, delivery: string | undefined, status: string, code: number | null, minutesAgo: number, number = 1) {
  return {
    id,
    event: 'invoice.paid',
    status,
    response_code: code,
    attempts: number,
    created_at: at(minutesAgo * MINUTE),
    ...(delivery ? { delivery_id: delivery } : {}),
  };
}

/** GET /v1/webhooks answered with these webhooks, in one page. */
function mockWebhooks(fake: FakeDeps, webhooks: unknown[]) {
  fake.mock.intercept({ path: (p) => pathOnly(p) === '/v1/webhooks', method: 'GET' }).reply(json(200, { data: webhooks, has_more: false, next_cursor: null }));
}

/**
 * A webhook's delivery log answered in these pages (page n+1 only for the
 * cursor page n gave); returns the queries it was asked with. A page not
 * asked for stays pending and fails the test, and one asked for but not
 * given is refused by the MockAgent (no network).
 */
function mockLog(fake: FakeDeps, webhookId: string, pages: unknown[][], options: { moreAfterLast?: boolean } = {}) {
  const queries: URLSearchParams[] = [];
  pages.forEach((data, i) => {
    const cursor = i === 0 ? null : `cur_${webhookId}_${i}`;
    const last = i === pages.length - 1;
    fake.mock
      .intercept({ path: (p) => pathOnly(p) === `/v1/webhooks/${webhookId}/deliveries` && queryOf(p).get('cursor') === cursor, method: 'GET' })
      .reply((opts) => {
        queries.push(queryOf(opts.path));
        const more = !last || Boolean(options.moreAfterLast);
        return jsonReply(200, { data, has_more: more, next_cursor: more ? `cur_${webhookId}_${i + 1}` : null });
      });
  });
  return queries;
}

type Row = Record<string, unknown>;
const rowsOf = (fake: FakeDeps): Row[] => JSON.parse(fake.stdout.text).webhooks;

describe('webhooks health: the figures', () => {
  it('counts deliveries, not attempts: a delivery is in the state of its newest attempt; the streak passes over pending ones', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockWebhooks(fake, [hook('wh_1')]);
    // Newest first, over two pages: d5 in flight, d4 and d3 failed (d3 on its second attempt; d4 with its retry due), d2 delivered
    // on its second attempt.
    const queries = mockLog(fake, 'wh_1', [
      [
        attempt('a7', 'd5', 'pending', null, 1),
        { ...attempt('a6', 'd4', 'failed', 503, 2), next_attempt_at: at(-MINUTE) },
        attempt('a5', 'd3', 'failed', null, 3, 2),
      ],
      [attempt('a4', 'd2', 'delivered', 200, 4, 2), attempt('a3', 'd3', 'failed', 500, 5), attempt('a1', 'd2', 'failed', 500, 7)],
    ]);
    expect(await health({ ids: [] }, fake.deps)).toBe(1);
    expect(JSON.parse(fake.stdout.text)).toEqual({
      since: at(24 * HOUR),
      fail_under: 0.95,
      webhooks: [
        {
          id: 'wh_1',
          url: 'https://wh_1.example.com/in',
          active: true,
          deliveries: 4,
          delivered: 1,
          failed: 2,
          retry_due: 1,
          pending: 1,
          delivered_share: 0.25,
          failed_share: 0.5,
          pending_share: 0.25,
          last_delivered_at: at(4 * MINUTE),
          last_failed_at: at(2 * MINUTE),
          last_failure_code: 503,
          failing_streak: 2,
          healthy: false,
          health: 'unhealthy',
        },
      ],
    });
    // The biggest pages, the second after the first's cursor.
    expect(queries.map((q) => [q.get('limit'), q.get('cursor')])).toEqual([
      ['200', null],
      ['200', 'cur_wh_1_1'],
    ]);
    expect(fake.stderr.text).toBe('whsvc: 1 webhook is unhealthy: wh_1 (its newest 2 deliveries failed; 25% delivered, under 95%)\n');
  });

  it('a webhook deleted while the others are read is left out with a note, not the end of the report', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockWebhooks(fake, [hook('wh_a'), hook('wh_gone')]);
    mockLog(fake, 'wh_a', [[attempt('a1', 'a1', 'delivered', 200, 5)]]);
    fake.mock
      .intercept({ path: (p) => pathOnly(p) === '/v1/webhooks/wh_gone/deliveries', method: 'GET' })
      .reply(json(404, { error: { code: 'not_found', message: 'no such webhook' } }));
    expect(await health({ ids: [] }, fake.deps)).toBe(0);
    expect(rowsOf(fake).map((r) => r.id)).toEqual(['wh_a']);
    expect(fake.stderr.text).toContain('webhook wh_gone was deleted while its log was read: left out');
  });

  it('a service that names no delivery: each attempt is a delivery of its own', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockWebhooks(fake, [hook('wh_1')]);
    mockLog(fake, 'wh_1', [
      [attempt('a3', undefined, 'delivered', 200, 1), attempt('a2', undefined, 'failed', 500, 2), attempt('a1', undefined, 'failed', 500, 3)],
    ]);
    await health({ ids: [], failUnder: 0 }, fake.deps);
    expect(rowsOf(fake)[0]).toMatchObject({ deliveries: 3, delivered: 1, failed: 2, failing_streak: 0, healthy: true, last_failure_code: 500 });
  });

  it('stops reading the log at --since; a delivery counts when its newest attempt is inside the window', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockWebhooks(fake, [hook('wh_1')]);
    // d2's first attempt is older than the window, its retry inside it: d2 counts, delivered. d1 is outside.
    // The page says more follow: they are older still, and never asked for.
    mockLog(
      fake,
      'wh_1',
      [
        [
          attempt('a4', 'd3', 'failed', 500, 30),
          attempt('a3', 'd2', 'delivered', 200, 50, 2),
          attempt('a2', 'd2', 'failed', 500, 70),
          attempt('a1', 'd1', 'failed', 500, 90),
        ],
      ],
      { moreAfterLast: true },
    );
    await health({ ids: [], since: { ago: HOUR } }, fake.deps);
    const parsed = JSON.parse(fake.stdout.text);
    expect(parsed.since).toBe(at(HOUR));
    expect(parsed.webhooks[0]).toMatchObject({
      deliveries: 2,
      delivered: 1,
      failed: 1,
      failing_streak: 1,
      last_failed_at: at(30 * MINUTE),
      last_delivered_at: at(50 * MINUTE),
    });
  });

  it('an ISO --since is the window start as given', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockWebhooks(fake, [hook('wh_1')]);
    mockLog(fake, 'wh_1', [[attempt('a2', 'd2', 'delivered', 200, 10), attempt('a1', 'd1', 'delivered', 200, 20)]], { moreAfterLast: true });
    await health({ ids: [], since: { at: T0 - 15 * MINUTE } }, fake.deps);
    expect(rowsOf(fake)[0]).toMatchObject({ deliveries: 1, delivered_share: 1 });
  });

  it('no deliveries in the window: shares null, no data (not unhealthy: exit 0), never below --fail-under', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockWebhooks(fake, [hook('wh_1')]);
    mockLog(fake, 'wh_1', [[]]);
    expect(await health({ ids: [], failUnder: 99 }, fake.deps)).toBe(0);
    expect(rowsOf(fake)[0]).toEqual({
      id: 'wh_1',
      url: 'https://wh_1.example.com/in',
      active: true,
      deliveries: 0,
      delivered: 0,
      failed: 0,
      retry_due: 0,
      pending: 0,
      delivered_share: null,
      failed_share: null,
      pending_share: null,
      last_delivered_at: null,
      last_failed_at: null,
      last_failure_code: null,
      failing_streak: 0,
      healthy: true,
      health: 'no_data',
    });
    expect(fake.stderr.text).toBe('');
  });
});

/** Three webhooks: wh_a 1 of 2 delivered (the newest), wh_b failing twice in a row, wh_c 19 of 20 delivered, wh_d nothing. */
function mockFleet(fake: FakeDeps) {
  mockWebhooks(fake, [hook('wh_c'), hook('wh_d', { active: false }), hook('wh_a'), hook('wh_b')]);
  mockLog(fake, 'wh_a', [[attempt('a2', 'a2', 'delivered', 200, 1), attempt('a1', 'a1', 'failed', 500, 2)]]);
  mockLog(fake, 'wh_b', [[attempt('b3', 'b3', 'failed', 503, 1), attempt('b2', 'b2', 'failed', null, 2), attempt('b1', 'b1', 'delivered', 200, 3)]]);
  mockLog(fake, 'wh_c', [
    [...Array.from({ length: 19 }, (_, i) => attempt(`c${i + 2}`, `c${i + 2}`, 'delivered', 204, i + 1)), attempt('c1', 'c1', 'failed', 410, 30)],
  ]);
  mockLog(fake, 'wh_d', [[]]);
}

describe('webhooks health: order, threshold, output', () => {
  it('sorts worst first: failing streak, then delivered share, no deliveries last', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockFleet(fake);
    expect(await health({ ids: [], failUnder: 0 }, fake.deps)).toBe(1);
    expect(fake.stderr.text).toBe('whsvc: 1 webhook is unhealthy: wh_b (its newest 2 deliveries failed)\n');
    expect(rowsOf(fake).map((r) => [r.id, r.failing_streak, r.delivered_share, r.healthy])).toEqual([
      ['wh_b', 2, 1 / 3, false],
      ['wh_a', 0, 0.5, true],
      ['wh_c', 0, 0.95, true],
      ['wh_d', 0, null, true],
    ]);
  });

  it('--fail-under: those below are unhealthy too, exit 1, one stderr line naming each and why; exactly at the threshold is not below', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockFleet(fake);
    expect(await health({ ids: [], failUnder: 95 }, fake.deps)).toBe(1);
    const parsed = JSON.parse(fake.stdout.text);
    expect(parsed.fail_under).toBe(0.95);
    expect(parsed.webhooks.map((r: Row) => [r.id, r.healthy])).toEqual([
      ['wh_b', false],
      ['wh_a', false],
      ['wh_c', true],
      ['wh_d', true],
    ]);
    expect(fake.stderr.text).toBe(
      'whsvc: 2 webhooks are unhealthy:\n  wh_b: its newest 2 deliveries failed; 33.3% delivered, under 95%\n  wh_a: 50% delivered, under 95%\n',
    );
  });

  it.each<[string, FakeDepsOptions, string]>([
    ['--json', { json: true }, ''],
    ['a terminal', { stdoutTTY: true, stdoutColumns: 132 }, ' (the table above)'],
    ['a pipe', {}, ' (in the rows on stdout)'],
  ])('many unhealthy, with %s: the closing line names the worst three and counts the rest, saying where they are', async (_, options, where) => {
    const fake = fakeDeps(options);
    mockToken(fake.mock);
    const ids = ['wh_1', 'wh_2', 'wh_3', 'wh_4', 'wh_5'];
    mockWebhooks(
      fake,
      ids.map((id) => hook(id)),
    );
    for (const [i, id] of ids.entries()) {
      // wh_1 fails most in a row, wh_5 least: worst first is the order of the ids.
      mockLog(fake, id, [Array.from({ length: 6 - i }, (_, n) => attempt(`${id}_${n}`, `${id}_${n}`, 'failed', 500, n + 1))]);
    }
    expect(await health({ ids: [], failUnder: 0 }, fake.deps)).toBe(1);
    if (options.json) expect(rowsOf(fake)).toHaveLength(5);
    expect(fake.stderr.text).toBe(
      'whsvc: 5 webhooks are unhealthy, the worst 3:\n' +
        `  wh_1: its newest 6 deliveries failed\n  wh_2: its newest 5 deliveries failed\n  wh_3: its newest 4 deliveries failed\n  and 2 more${where}\n`,
    );
  });

  it('--fail-under that nobody is below: only a failing streak is unhealthy', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockFleet(fake);
    expect(await health({ ids: [], failUnder: 33 }, fake.deps)).toBe(1);
    expect(fake.stderr.text).toBe('whsvc: 1 webhook is unhealthy: wh_b (its newest 2 deliveries failed)\n');
  });

  it('every webhook shown healthy: exit 0, nothing on stderr', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockWebhooks(fake, [hook('wh_1'), hook('wh_2')]);
    mockLog(fake, 'wh_1', [[attempt('a2', 'd2', 'delivered', 200, 1), attempt('a1', 'd1', 'failed', 500, 2)]]);
    mockLog(fake, 'wh_2', [[]]);
    expect(await health({ ids: [], failUnder: 50 }, fake.deps)).toBe(0);
    expect(fake.stderr.text).toBe('');
  });

  it('in a pipe: tab-separated rows, worst first, shares as in --json, ISO times, - for none, the verdict last', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockFleet(fake);
    expect(await health({ ids: [], failUnder: 50 }, fake.deps)).toBe(1);
    expect(fake.stdout.text).toBe(
      [
        ['wh_b', 'https://wh_b.example.com/in', 'active', '3', String(1 / 3), String(2 / 3), '0', '2', at(3 * MINUTE), at(MINUTE), '503', 'unhealthy'],
        ['wh_a', 'https://wh_a.example.com/in', 'active', '2', '0.5', '0.5', '0', '0', at(MINUTE), at(2 * MINUTE), '500', 'healthy'],
        ['wh_c', 'https://wh_c.example.com/in', 'active', '20', '0.95', '0.05', '0', '0', at(MINUTE), at(30 * MINUTE), '410', 'healthy'],
        ['wh_d', 'https://wh_d.example.com/in', 'paused', '0', '-', '-', '-', '0', '-', '-', '-', 'no data'],
      ]
        .map((row) => `${row.join('\t')}\n`)
        .join(''),
    );
    expect(fake.stderr.text).toBe('whsvc: 1 webhook is unhealthy: wh_b (its newest 2 deliveries failed; 33.3% delivered, under 50%)\n');
  });

  it('on a terminal: the verdict in words (HEALTH), shares of the deliveries, relative times; the unhealthy in red, failures got over in yellow', async () => {
    const fake = fakeDeps({ stdoutTTY: true, stdoutColumns: 160, env: { FORCE_COLOR: '1' } });
    mockToken(fake.mock);
    mockFleet(fake);
    await health({ ids: [], failUnder: 0 }, fake.deps);
    const lines = fake.stdout.text.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    // eslint-disable-next-line no-control-regex
    const plain = lines.map((line) => line.replace(/\u001b\[\d+m/g, ''));
    // Beside rows this narrow, every column (the failed and pending shares too: issue 44).
    expect(plain[0]).toMatch(/^ID\s+URL\s+STATUS\s+HEALTH\s+DELIVERED\s+FAILED\s+PENDING\s+FAILING STREAK\s+LAST DELIVERED\s+LAST FAILED\s+CODE$/);
    expect(plain[1]).toMatch(/^wh_b\s+https:\/\/wh_b\.example\.com\/in\s+active\s+unhealthy\s+33\.3% of 3\s+\S+\s+\S+\s+2\s+3 minutes ago\s+1m ago\s+503$/);
    expect(plain[3]).toMatch(/^wh_c\s+\S+\s+active\s+healthy\s+95% of 20\s+\S+\s+\S+\s+0\s+1 minute ago\s+30m ago\s+410$/);
    expect(plain[4]).toMatch(/^wh_d\s+\S+\s+paused\s+no data\s+-\s+-\s+-\s+0\s+-\s+-\s+-$/);
    expect(lines[1]).toBe(`\u001b[31m${plain[1]}\u001b[39m`);
    expect(lines[2]).toBe(`\u001b[33m${plain[2]}\u001b[39m`);
    expect(lines[4]).toBe(plain[4]);
  });

  it('on a narrow terminal columns are left out by the width, those the rows leave room for kept; titles, figures and the verdict stay whole', async () => {
    const fake = fakeDeps({ stdoutTTY: true, stdoutColumns: 100 });
    mockToken(fake.mock);
    mockFleet(fake);
    await health({ ids: [] }, fake.deps);
    // eslint-disable-next-line no-control-regex
    const lines = fake.stdout.text
      .trimEnd()
      .split('\n')
      .map((line) => line.replace(/\u001b\[\d+m/g, ''));
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    // At 100 the URL (which endpoint is unhealthy), the failing streak and the code; the last delivered time and the
    // failed and pending shares go; the status and the last failure's time, which the widest rows would leave out, fit
    // beside these.
    expect(lines[0]).toMatch(/^ID\s+URL\s+STATUS\s+HEALTH\s+DELIVERED\s+FAILING STREAK\s+LAST FAILED\s+CODE$/);
    expect(lines[1]).toMatch(/^wh_b\s+https:\/\/wh_b\.example\.com\/in\s+active\s+unhealthy\s+33\.3% of 3\s+2\s+1m ago\s+503$/);
  });

  it('a partial share is never shown as 100% or 0%', async () => {
    const fake = fakeDeps({ stdoutTTY: true, stdoutColumns: 160, env: { NO_COLOR: '1' } });
    mockToken(fake.mock);
    mockWebhooks(fake, [hook('wh_1')]);
    mockLog(fake, 'wh_1', [
      [...Array.from({ length: 1999 }, (_, i) => attempt(`a${i + 1}`, `a${i + 1}`, 'delivered', 200, 1)), attempt('a0', 'a0', 'failed', 500, 2)],
    ]);
    await health({ ids: [] }, fake.deps);
    expect(fake.stdout.text.split('\n')[1]).toMatch(/\s+healthy\s+99\.9% of 2,000\s/);
  });

  it('no webhooks: a note (on stderr in a pipe), and {webhooks: []} with --json', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockWebhooks(fake, []);
    expect(await health({ ids: [] }, fake.deps)).toBe(0);
    expect(fake.stdout.text).toBe('');
    expect(fake.stderr.text).toMatch(/^No webhooks\./);
    const jsonFake = fakeDeps({ json: true });
    mockToken(jsonFake.mock);
    mockWebhooks(jsonFake, []);
    await health({ ids: [] }, jsonFake.deps);
    expect(JSON.parse(jsonFake.stdout.text)).toEqual({ since: at(24 * HOUR), fail_under: 0.95, webhooks: [] });
  });
});

describe('webhooks health <ids…>', () => {
  it('reads each webhook given (once, even if given twice) and only their logs', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_2', method: 'GET' }).reply(json(200, hook('wh_2')));
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, hook('wh_1')));
    mockLog(fake, 'wh_1', [[attempt('a1', 'a1', 'delivered', 200, 1)]]);
    mockLog(fake, 'wh_2', [[attempt('b1', 'b1', 'failed', 500, 1)]]);
    await health({ ids: ['wh_2', 'wh_1', 'wh_2'] }, fake.deps);
    expect(rowsOf(fake).map((r) => r.id)).toEqual(['wh_2', 'wh_1']);
  });

  it('an unknown id is the 404, before any log is read', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, hook('wh_1')));
    fake.mock.intercept({ path: '/v1/webhooks/wh_nope', method: 'GET' }).reply(json(404, { error: { code: 'not_found', message: 'no webhook wh_nope' } }));
    await expect(health({ ids: ['wh_1', 'wh_nope'] }, fake.deps)).rejects.toMatchObject({ status: 404 });
    expect(fake.stdout.text).toBe('');
  });
});
