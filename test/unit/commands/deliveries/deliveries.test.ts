import { afterEach, describe, expect, it } from 'vitest';
import { run as list } from '../../../../src/commands/deliveries/list.js';
import { run as show } from '../../../../src/commands/deliveries/show.js';
import { run as retry } from '../../../../src/commands/deliveries/retry.js';
import { run as testCommand } from '../../../../src/commands/events/test.js';
import { SHOW_PAGES } from '../../../../src/commands/deliveries/shared/fate.js';
import { clockTime } from '../../../../src/render/words.js';
import { T0, fakeDeps, finishFakeDeps, json, jsonReply, mockCatalog, mockToken, pathOnly, queryOf, rejectionOf } from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const PAYLOAD = {
  id: 'evt_0001',
  event: 'invoice.paid',
  data: { invoice_id: 'inv_42', amount: { amount: 12900, currency: 'EUR' }, paid_at: '2025-01-15T11:58:00Z' },
};
const SIGNATURE = 'sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

function delivery(fields: Record<string, unknown> = {}) {
  return {
    id: 'dlv_1',
    webhook_id: 'wh_1',
    event: 'invoice.paid',
    status: 'delivered',
    response_code: 200,
    attempts: 1,
    signature: SIGNATURE,
    payload: PAYLOAD,
    created_at: new Date(T0 - 300_000).toISOString(),
    ...fields,
  };
}

describe('deliveries show', () => {
  it('prints the attempt, its signature and the payload as indented JSON', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1', method: 'GET' }).reply(json(200, delivery()));
    const code = await show({ id: 'dlv_1' }, fake.deps);
    expect(code).toBe(0);
    const out = fake.stdout.text;
    expect(out).toMatch(/^id\s+dlv_1$/m);
    expect(out).toMatch(/^status\s+delivered$/m);
    expect(out).toMatch(/^response\s+200$/m);
    expect(out).toMatch(new RegExp(`^signature\\s+${SIGNATURE}$`, 'm'));
    expect(out).toContain(JSON.stringify(PAYLOAD, null, 2));
    expect(out).toMatch(/^created\s+5 minutes ago/m);
  });

  it.each([0, null])('an attempt with no answer (response_code %s) says so', async (code) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_2', method: 'GET' })
      .reply(json(200, delivery({ id: 'dlv_2', status: 'failed', response_code: code })));
    await show({ id: 'dlv_2' }, fake.deps);
    expect(fake.stdout.text).toMatch(/^response\s+no answer$/m);
  });

  it.each([0, null])('a test send with no answer (response_code %s) says why once, when the service says', async (code) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const body = delivery({ status: 'failed', response_code: code, failure_reason: 'no answer within 10 s' });
    fake.mock.intercept({ path: '/v1/webhooks/wh_1/test', method: 'POST' }).reply(json(200, body));
    expect(await testCommand({ webhookId: 'wh_1' }, fake.deps)).toBe(1);
    expect(fake.stderr.text).toMatch(/^whsvc: the endpoint did not accept the test event \(no answer within 10 s\)$/m);
  });

  it('--json prints exactly what the service returned', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    const body = delivery({ future: { x: 1 } });
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1', method: 'GET' }).reply(json(200, body));
    await show({ id: 'dlv_1' }, fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual(body);
  });

  describe("the delivery's fate, read from the log above the attempt", () => {
    const at = (s: number) => new Date(T0 - 600_000 + s * 1000).toISOString();
    const item = (id: string, attempts: number, status: string, s: number, next_attempt_at: string | null = null) => ({
      id,
      event: 'invoice.paid',
      status,
      response_code: status === 'delivered' ? 200 : 500,
      attempts,
      created_at: at(s),
      delivery_id: 'dlv_A',
      next_attempt_at,
    });
    const shown = async (asked: Record<string, unknown>, log: unknown[][]) => {
      const fake = fakeDeps();
      mockToken(fake.mock);
      fake.mock.intercept({ path: `/v1/webhooks/webhook-deliveries/${asked.id}`, method: 'GET' }).reply(json(200, delivery(asked)));
      const cursors: Array<string | null> = [];
      log.forEach((page, n) => {
        fake.mock
          .intercept({ path: (p) => pathOnly(p) === '/v1/webhooks/wh_1/deliveries' && queryOf(p).get('cursor') === (n === 0 ? null : `c${n}`), method: 'GET' })
          .reply((opts) => {
            cursors.push(queryOf(opts.path).get('cursor'));
            return jsonReply(200, { data: page, has_more: n < log.length - 1, next_cursor: n < log.length - 1 ? `c${n + 1}` : null });
          });
      });
      expect(await show({ id: String(asked.id) }, fake.deps)).toBe(0);
      return { out: fake.stdout.text, pages: cursors.length };
    };

    it('an earlier attempt of a delivery a later one delivered: its own status, and the fate naming the attempt and its time', async () => {
      const log = [[item('dlv_C', 3, 'delivered', 20), item('dlv_Z', 1, 'failed', 15), item('dlv_B', 2, 'failed', 10), item('dlv_A', 1, 'failed', 0)]];
      const { out } = await shown({ ...item('dlv_A', 1, 'failed', 0), webhook_id: 'wh_1' }, log);
      expect(out).toMatch(/^status\s+failed$/m);
      expect(out).toMatch(new RegExp(`^fate\\s+delivered by attempt 3 at ${clockTime(at(20), T0)}$`, 'm'));
      expect(out).toMatch(/^delivery\s+dlv_A #1$/m);
    });

    it('the newest attempt of a delivery whose retries ran out says so on its status line', async () => {
      const log = [[item('dlv_C', 3, 'failed', 20, null), item('dlv_B', 2, 'failed', 10), item('dlv_A', 1, 'failed', 0)]];
      const newest = await shown({ ...item('dlv_C', 3, 'failed', 20, null), webhook_id: 'wh_1' }, log);
      expect(newest.out).toMatch(/^status\s+failed · no more retries$/m);
      expect(newest.out).not.toMatch(/^fate/m);
      const earlier = await shown({ ...item('dlv_B', 2, 'failed', 10), webhook_id: 'wh_1' }, log);
      expect(earlier.out).toMatch(/^status\s+failed$/m);
      expect(earlier.out).toMatch(/^fate\s+failed · no more retries$/m);
    });

    it('with a retry due, or delivered, the attempt alone tells it: no log is read', async () => {
      const due = await shown({ ...item('dlv_A', 1, 'failed', 0, at(30)), webhook_id: 'wh_1' }, []);
      expect(due.out).toMatch(new RegExp(`^status\\s+failed · retry due ${clockTime(at(30), T0)}$`, 'm'));
      expect(due.pages).toBe(0);
    });

    it('a service that names no delivery: the fate is not known, said why, and no log is read', async () => {
      const { out, pages } = await shown({ id: 'dlv_2', status: 'failed', response_code: 500 }, []);
      expect(out).toMatch(/^fate\s+not known: the service does not say which delivery the attempt belongs to$/m);
      expect(out).toMatch(/^attempt\s+1$/m);
      expect(pages).toBe(0);
    });

    it(`reads at most ${SHOW_PAGES} pages above the attempt, and says so`, async () => {
      const others = Array.from({ length: 200 }, (_, i) => ({ ...item(`dlv_o${i}`, 1, 'failed', 100), delivery_id: `dlv_o${i}` }));
      const { out, pages } = await shown(
        { ...item('dlv_A', 1, 'failed', 0), webhook_id: 'wh_1' },
        Array.from({ length: SHOW_PAGES + 1 }, () => others),
      );
      expect(pages).toBe(SHOW_PAGES + 1);
      expect(out).toMatch(/^fate\s+not known: its webhook has more than 2,000 attempts since this one, not read$/m);
    });
  });

  it('404 is passed on', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_x', method: 'GET' }).reply(json(404, { error: { code: 'not_found', message: 'nope' } }));
    await expect(show({ id: 'dlv_x' }, fake.deps)).rejects.toMatchObject({ status: 404 });
  });
});

describe('deliveries retry', () => {
  it('POSTs the retry and shows the new attempt', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1/retry', method: 'POST' }).reply(json(201, delivery({ id: 'dlv_9', attempts: 3 })));
    await retry({ ids: ['dlv_1'], concurrency: 8 }, fake.deps);
    expect(fake.stdout.text).toMatch(/^id\s+dlv_9$/m);
    expect(fake.stdout.text).toMatch(/^attempt\s+3$/m);
  });

  it('409 (already delivered) is passed on', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1/retry', method: 'POST' })
      .reply(json(409, { error: { code: 'already_delivered', message: 'delivery dlv_1 was delivered' } }));
    const error = await rejectionOf(retry({ ids: ['dlv_1'], concurrency: 8 }, fake.deps));
    expect(error).toMatchObject({ status: 409, code: 'already_delivered' });
  });
});

describe('test', () => {
  it('exits 1 when the returned status is failed', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1/test', method: 'POST' }).reply(json(200, delivery({ status: 'failed', response_code: 500 })));
    const code = await testCommand({ webhookId: 'wh_1' }, fake.deps);
    expect(code).toBe(1);
    expect(fake.stdout.text).toMatch(/^status\s+failed$/m);
  });

  it('exits 0 when delivered; --event is checked against the catalog and sent', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const bodies: unknown[] = [];
    fake.mock
      .intercept({ path: '/v1/webhooks/wh_1', method: 'GET' })
      .reply(json(200, { id: 'wh_1', url: 'https://example.com/h', events: ['product.updated'], active: true }));
    fake.mock.intercept({ path: '/v1/webhooks/wh_1/test', method: 'POST' }).reply((opts) => {
      bodies.push(JSON.parse(String(opts.body)));
      return jsonReply(200, delivery({ event: 'product.updated' }));
    });
    const code = await testCommand({ webhookId: 'wh_1', event: 'product.updated' }, fake.deps);
    expect(code).toBe(0);
    expect(bodies).toEqual([{ event: 'product.updated' }]);
  });

  it('an unknown --event: exit 2 before the test request', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const error = await rejectionOf(testCommand({ webhookId: 'wh_1', event: 'invoice.payed' }, fake.deps));
    expect(error).toMatchObject({ exitCode: 2 });
    expect(error.message).toMatch(/did you mean invoice\.paid\?/);
    expect(fake.requests.some((r) => r.url.pathname.endsWith('/test'))).toBe(false);
  });

  it('--json: exit 1 on failed too, with the attempt on stdout', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    const body = delivery({ status: 'failed', response_code: null });
    fake.mock.intercept({ path: '/v1/webhooks/wh_1/test', method: 'POST' }).reply(json(200, body));
    expect(await testCommand({ webhookId: 'wh_1' }, fake.deps)).toBe(1);
    expect(JSON.parse(fake.stdout.text)).toEqual(body);
  });
});

describe("the service's numbers, as it wrote them", () => {
  /** An answer whose numbers a double would change, as raw text. */
  const HUGE = '12345678901234567890123';
  const attemptText = (id: string) =>
    `{"id":"${id}","delivery_id":"${id}","event":"invoice.paid","status":"failed","response_code":${HUGE},"attempts":1e400,"created_at":"${new Date(T0 - 60_000).toISOString()}","payload":{"amount":${HUGE}}}`;
  const pageText = `{"data":[${attemptText('dlv_1')}],"has_more":false,"next_cursor":null}`;

  it('--json prints them as the service wrote them: a 23-digit number and 1e400', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries'), method: 'GET' }).reply(200, pageText);
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1', method: 'GET' }).reply(200, attemptText('dlv_1'));
    await list({ webhookId: 'wh_1', all: false }, fake.deps);
    await show({ id: 'dlv_1' }, fake.deps);
    expect(fake.stdout.text).toContain(`"response_code": ${HUGE}`);
    expect(fake.stdout.text).toContain('"attempts": 1e400');
    expect(fake.stdout.text).toContain(`"amount": ${HUGE}`);
    expect(fake.stdout.text).not.toMatch(/e\+22|"attempts": null/);
  });

  it('tables, rows and a block read them too (the attempt number as written, the code as a number)', async () => {
    for (const stdoutTTY of [true, false]) {
      const fake = fakeDeps({ stdoutTTY, stdoutColumns: 160, env: { NO_COLOR: '1' } });
      mockToken(fake.mock);
      fake.mock.intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries'), method: 'GET' }).reply(200, pageText);
      fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1', method: 'GET' }).reply(200, attemptText('dlv_1'));
      expect(await list({ webhookId: 'wh_1', all: false }, fake.deps)).toBe(0);
      expect(await show({ id: 'dlv_1' }, fake.deps)).toBe(0);
      expect(fake.stdout.text).toContain('1e400');
      expect(fake.stdout.text).toContain('1.2345678901234568e+22');
    }
  });
});
