import { afterEach, describe, expect, it } from 'vitest';
import { run as recover, type RecoverOptions } from '../../../../src/commands/deliveries/recover.js';
import { run as retry } from '../../../../src/commands/deliveries/retry.js';
import { T0, fakeDeps, finishFakeDeps, json, mockCatalog, mockToken, queryOf, rejectionOf } from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const ago = (minutes: number) => new Date(T0 - minutes * 60_000).toISOString();
const attempt = (id: string, delivery: string, status: string, minutes: number, fields: Record<string, unknown> = {}) => ({
  id,
  delivery_id: delivery,
  event: 'invoice.paid',
  status,
  response_code: status === 'delivered' ? 200 : status === 'failed' ? 503 : null,
  attempts: Number(id.slice(-1)),
  created_at: ago(minutes),
  ...fields,
});
const page = (data: unknown[], next: string | null = null) => ({ data, has_more: next !== null, next_cursor: next });

const options = (fields: Partial<RecoverOptions> = {}): RecoverOptions => ({
  status: 'failed',
  webhooks: [],
  events: [],
  dryRun: false,
  yes: true,
  concurrency: 4,
  ...fields,
});

/** A webhook as the interface gives it. */
const hook = (id: string) => ({ id, url: `https://${id}.example/in`, events: ['invoice.paid'] });

/** Two webhooks; wh_1's log on two pages, newest first. */
function mockLog(fake: ReturnType<typeof fakeDeps>) {
  fake.mock.intercept({ path: (p) => p.startsWith('/v1/webhooks?'), method: 'GET' }).reply(json(200, page([hook('wh_1'), hook('wh_2')])));
  fake.mock.intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries?') && !queryOf(p).has('cursor'), method: 'GET' }).reply(
    json(
      200,
      page(
        [
          attempt('dlv_A2', 'dlv_A1', 'delivered', 5), // A: delivered since its failure
          attempt('dlv_B2', 'dlv_B1', 'failed', 6), // B: failed twice: re-sent once, as its newest attempt
          attempt('dlv_A1', 'dlv_A1', 'failed', 30),
        ],
        'c1',
      ),
    ),
  );
  fake.mock
    .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries?') && queryOf(p).get('cursor') === 'c1', method: 'GET' })
    .reply(
      json(
        200,
        page([attempt('dlv_B1', 'dlv_B1', 'failed', 40), attempt('dlv_C1', 'dlv_C1', 'pending', 41), attempt('dlv_D1', 'dlv_D1', 'failed', 300)], 'c2'),
      ),
    );
  fake.mock
    .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_2/deliveries?'), method: 'GET' })
    .reply(json(200, page([attempt('dlv_E1', 'dlv_E1', 'failed', 10, { event: 'sales_order.created' })])));
}

const retried = (fake: ReturnType<typeof fakeDeps>) =>
  fake.requests.filter((r) => r.method === 'POST' && r.url.pathname.endsWith('/retry')).map((r) => r.url.pathname.split('/')[4]);

describe('deliveries recover', () => {
  it('re-sends each failed delivery once, as its newest attempt; skips the delivered, the pending, other events and what is older than --since', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockLog(fake);
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_B2/retry', method: 'POST' })
      .reply(json(200, { ...attempt('dlv_B3', 'dlv_B1', 'delivered', 0), webhook_id: 'wh_1' }));
    const code = await recover(options({ since: { ago: 120 * 60_000 }, events: ['invoice.paid'] }), fake.deps);
    expect(code).toBe(0);
    expect(retried(fake)).toEqual(['dlv_B2']);
    // The walk stopped at dlv_D1, older than --since: the page after c2 was never asked for.
    expect(fake.requests.some((r) => r.url.searchParams.get('cursor') === 'c2')).toBe(false);
    const out = JSON.parse(fake.stdout.text);
    expect(out.summary).toEqual({ selected: 1, resent: 1, delivered: 1, failed: 0, pending: 0, already_delivered: 0, errors: 0 });
    expect(out.deliveries).toEqual([
      {
        delivery_id: 'dlv_B1',
        retried_attempt_id: 'dlv_B2',
        webhook_id: 'wh_1',
        event: 'invoice.paid',
        outcome: 'delivered',
        attempt_id: 'dlv_B3',
        response_code: 200,
        error: null,
      },
    ]);
    expect(out.interrupted).toBe(false);
  });

  it('a 409 is "already delivered", a 500 on one retry is an error of that delivery and the run goes on: exit 1', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries?'), method: 'GET' })
      .reply(json(200, page([attempt('dlv_X1', 'dlv_X1', 'failed', 1), attempt('dlv_Y1', 'dlv_Y1', 'failed', 2), attempt('dlv_Z1', 'dlv_Z1', 'failed', 3)])));
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_X1/retry', method: 'POST' })
      .reply(json(409, { error: { code: 'already_delivered', message: 'delivered already' } }));
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_Y1/retry', method: 'POST' })
      .reply(json(500, { error: { code: 'internal_error', message: 'boom' } }));
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_Z1/retry', method: 'POST' }).reply(json(200, attempt('dlv_Z2', 'dlv_Z1', 'failed', 0)));
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, hook('wh_1')));
    const code = await recover(options({ webhooks: ['wh_1'] }), fake.deps);
    expect(code).toBe(1);
    expect(fake.stdout.text).toContain('Re-sent 1 delivery: 0 delivered, 1 failed again, 1 already delivered, 1 error.');
    expect(fake.stdout.text).toContain('Failed again, by reason: 1 answered 503\n');
    expect(fake.stdout.text).toContain('Errors, by reason: 1 HTTP 500 internal_error\n');
    expect(fake.stdout.text).toContain('Still failing: dlv_Z1\n');
    expect(fake.stdout.text).toContain('Errors: dlv_Y1\n');
    expect(fake.stdout.text).toContain('Why one failed: whsvc deliveries diagnose dlv_Z1\n');
    expect(fake.stdout.text).toContain('List them: whsvc deliveries list wh_1 --status failed');
    // A line per delivery only with --verbose: a run over a thousand failures is read from its summary.
    expect(fake.stderr.text).not.toContain('dlv_Y1');
    expect(fake.stderr.text).not.toContain('dlv_Z1');
  });

  it('--verbose: a line on stderr for each delivery that did not get through, with its reason', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_Y1/retry', method: 'POST' })
      .reply(json(500, { error: { code: 'internal_error', message: 'boom' } }));
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_Z1/retry', method: 'POST' }).reply(json(200, attempt('dlv_Z2', 'dlv_Z1', 'failed', 0)));
    expect(await retry({ ids: ['dlv_Y1', 'dlv_Z1'], concurrency: 1, verbose: true }, fake.deps)).toBe(1);
    expect(fake.stderr.text).toMatch(/error dlv_Y1: not re-sent: boom \(HTTP 500 internal_error\)\n/);
    expect(fake.stderr.text).toMatch(/failed dlv_Z1: failed again \(answered 503\)\n/);
  });

  it('a rate-limited run says the wait once, not once a wait, and counts the waits in the summary', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    for (const id of ['dlv_1', 'dlv_2', 'dlv_3']) {
      fake.mock.intercept({ path: `/v1/webhooks/webhook-deliveries/${id}/retry`, method: 'POST' }).reply(json(429, {}, { 'retry-after': '1' }));
      fake.mock.intercept({ path: `/v1/webhooks/webhook-deliveries/${id}/retry`, method: 'POST' }).reply(json(200, attempt(`${id}x2`, id, 'delivered', 0)));
    }
    const api = fake.client({ sleep: () => Promise.resolve() });
    expect(await retry({ ids: ['dlv_1', 'dlv_2', 'dlv_3'], concurrency: 1 }, { ...fake.deps, api })).toBe(0);
    expect(fake.stderr.text.match(/429/g)).toHaveLength(1);
    expect(fake.stderr.text).toContain('whsvc: the service answered 429: re-sends wait as it asks (Retry-After), each time it does\n');
    expect(fake.stdout.text).toContain('Waited 3 times as the service asked (HTTP 429, Retry-After).\n');
  });

  it('--dry-run lists what would be re-sent and sends nothing', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockLog(fake);
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries?') && queryOf(p).get('cursor') === 'c2', method: 'GET' })
      .reply(json(200, page([])));
    const code = await recover(options({ dryRun: true, yes: false }), fake.deps);
    expect(code).toBe(0);
    expect(retried(fake)).toEqual([]);
    const out = JSON.parse(fake.stdout.text);
    expect(out.dry_run).toBe(true);
    expect(out.deliveries.map((d: { delivery_id: string }) => d.delivery_id)).toEqual(['dlv_B1', 'dlv_D1', 'dlv_E1']);
    expect(out.summary).toEqual({ selected: 3, webhooks: 2 });
  });

  it('a stop before anything is taken re-sends nothing and exits 130 with how to resume', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries?'), method: 'GET' })
      .reply(json(200, page([attempt('dlv_X1', 'dlv_X1', 'failed', 1)])));
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, hook('wh_1')));
    const stop = new AbortController();
    stop.abort();
    const argv = ['deliveries', 'recover', '--webhook', 'wh_1', '--since', '2h'];
    const code = await recover(options({ webhooks: ['wh_1'], since: { ago: 2 * 3_600_000 }, stop: stop.signal, argv }), fake.deps);
    expect(code).toBe(130);
    expect(retried(fake)).toEqual([]);
    // The window as the times it meant: resumed later, it reads the same deliveries.
    expect(fake.stderr.text).toContain(
      `run \`whsvc deliveries recover --webhook wh_1 --since ${new Date(T0 - 2 * 3_600_000).toISOString()} --until ${new Date(T0).toISOString()} --yes\` again to resume`,
    );
  });
});

describe('deliveries recover: a run that fails before any outcome', () => {
  it('leaves stdout empty with --json (no half document), and the 403 is passed on', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks?'), method: 'GET' })
      .reply(json(403, { error: { code: 'insufficient_scope', message: 'needs webhooks:read', required_scope: 'webhooks:read' } }));
    const error = await rejectionOf(recover(options(), fake.deps));
    expect(error).toMatchObject({ status: 403 });
    expect(fake.stdout.text).toBe('');
  });
});

describe('deliveries recover: the bad day of the run itself', () => {
  it('an unknown --webhook is exit 5 before anything is listed or sent', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_nope', method: 'GET' }).reply(json(404, { error: { code: 'not_found', message: 'no webhook wh_nope' } }));
    const error = await rejectionOf(recover(options({ webhooks: ['wh_nope'], dryRun: true }), fake.deps));
    expect(error).toMatchObject({ status: 404 });
    expect(fake.stdout.text).toBe('');
  });

  it('a webhook deleted while the others are read is skipped with a note; a failure mid-walk still closes the JSON document', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: (p) => p.startsWith('/v1/webhooks?'), method: 'GET' }).reply(json(200, page([hook('wh_1'), hook('wh_gone'), hook('wh_3')])));
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries?'), method: 'GET' })
      .reply(json(200, page([attempt('dlv_X1', 'dlv_X1', 'failed', 1)])));
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_gone/deliveries?'), method: 'GET' })
      .reply(json(404, { error: { code: 'not_found', message: 'gone' } }));
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_3/deliveries?'), method: 'GET' })
      .reply(json(500, { error: { code: 'internal_error', message: 'boom' } }));
    const error = await rejectionOf(recover(options({ dryRun: true }), fake.deps));
    expect(error).toMatchObject({ status: 500 });
    expect(fake.stderr.text).toContain('webhook wh_gone was deleted while its log was read: skipped');
    const out = JSON.parse(fake.stdout.text);
    expect(out.deliveries.map((d: { delivery_id: string }) => d.delivery_id)).toEqual(['dlv_X1']);
    expect(out.error).toContain('boom');
  });

  it('says once when the service gives no delivery_id, and takes each failed attempt as its own delivery', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, hook('wh_1')));
    const bare = (id: string, status: string) => ({ id, event: 'invoice.paid', status, response_code: 503, attempts: 1, created_at: ago(1) });
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries?'), method: 'GET' })
      .reply(json(200, page([bare('a1', 'failed'), bare('a2', 'failed')])));
    await recover(options({ webhooks: ['wh_1'], dryRun: true }), fake.deps);
    expect(JSON.parse(fake.stdout.text).summary.selected).toBe(2);
    expect(fake.stderr.text.match(/does not say which delivery/g)).toHaveLength(1);
  });
});

describe('deliveries retry with several ids', () => {
  it('a stop while a re-send waits out a Retry-After ends the wait: that delivery is not sent, and the run ends at once (130)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1/retry', method: 'POST' }).reply(json(429, {}, { 'retry-after': '30' }));
    // A wait that lasts: only the stop ends it.
    const api = fake.client({ sleep: () => new Promise(() => undefined) });
    const stop = new AbortController();
    const running = retry({ ids: ['dlv_1', 'dlv_2'], concurrency: 1, stop: () => stop.signal }, { ...fake.deps, api });
    while (!fake.requests.some((r) => r.url.pathname.endsWith('/dlv_1/retry'))) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort();
    expect(await running).toBe(130);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.url.pathname.endsWith('/retry'))).toHaveLength(1);
    expect(fake.stdout.text).toContain('Re-sent 0 deliveries');
    expect(fake.stderr.text).toMatch(/stopped: 2 selected deliveries were not re-sent/);
  });

  it('re-sends each id once, side by side, with the summary; exit 1 when one failed again', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1/retry', method: 'POST' })
      .reply(json(200, { ...attempt('dlv_3', 'dlv_1', 'delivered', 0), webhook_id: 'wh_1' }));
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_2/retry', method: 'POST' })
      .reply(json(200, { ...attempt('dlv_4', 'dlv_2', 'failed', 0), webhook_id: 'wh_1' }));
    const code = await retry({ ids: ['dlv_1', 'dlv_2', 'dlv_1'], concurrency: 2 }, fake.deps);
    expect(code).toBe(1);
    const out = JSON.parse(fake.stdout.text);
    expect(out.summary).toMatchObject({ selected: 2, resent: 2, delivered: 1, failed: 1 });
    expect(out.deliveries.map((d: { outcome: string }) => d.outcome).sort()).toEqual(['delivered', 'failed']);
  });
});
