import { ManualSandboxClock } from '../../../src/sandbox/clock.js';
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Agent, MockAgent } from 'undici';
import { DEFAULT_POLICY, Deliverer, type DeliveryPolicy } from '../../../src/sandbox/deliverer.js';
import type { AttemptRow, DeliveryRow, WebhookRow } from '../../../src/sandbox/store/rows.js';
import { openStore, type Store } from '../../helpers/store.js';
import { ManualClock, flushPromises } from '../../helpers/manual-clock.js';
import { startReceiver } from '../../helpers/receiver.js';
import { type Breakage, startHostileReceiver } from '../../helpers/hostile-receivers.js';

const ORIGIN = 'http://127.0.0.1:9999';
const HOOK_URL = `${ORIGIN}/hook`;
const ACCOUNT = 'acct_demo';
const SECRET = 'whsec_unit_test_9f8e7d6c5b4a';
const EVENT = 'invoice.paid';
const PAYLOAD = { id: 'inv_0001', event: EVENT, amount: { amount: 12900, currency: 'EUR' } };

/** The signature recomputed independently of src/signing. */
function expectedSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A promise the test resolves when it wants the endpoint to answer. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

let store: Store;
let clock: ManualClock;
let agent: MockAgent;
let deliverer: Deliverer;
let webhook: WebhookRow;
let seen: { attempt: AttemptRow; webhook: WebhookRow }[];
let t0: number;

function makeDeliverer(policy: Partial<DeliveryPolicy> = {}): Deliverer {
  return new Deliverer({
    ...store,
    clock,
    dispatcher: agent,
    policy: { ...DEFAULT_POLICY, retryBaseMs: 1_000, maxDelayMs: 3_600_000, maxAttempts: 4, ...policy },
    onAttempt: (attempt, wh) => seen.push({ attempt, webhook: wh }),
  });
}

function insertWebhook(fields: Partial<WebhookRow> = {}): WebhookRow {
  const iso = new Date(clock.now()).toISOString();
  return store.webhooks.insert({
    id: `wh_${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}`,
    account_id: ACCOUNT,
    url: HOOK_URL,
    events: [EVENT, 'sales_order.created'],
    active: true,
    signing_secret: SECRET,
    created_at: iso,
    updated_at: iso,
    ...fields,
  });
}

function setActive(wh: WebhookRow, active: boolean): void {
  store.webhooks.update({ ...wh, active, updated_at: new Date(clock.now()).toISOString() });
}

/** One interceptor: the next POST /hook is answered `status` (after `wait`, if given). */
function answer(status: number, options: { data?: string; headers?: Record<string, string>; wait?: Promise<void> } = {}): void {
  agent
    .get(ORIGIN)
    .intercept({ path: '/hook', method: 'POST' })
    .reply(async () => {
      if (options.wait) await options.wait;
      return { statusCode: status, data: options.data ?? '', responseOptions: { headers: options.headers ?? {} } };
    });
}

/** Every request the deliverer dispatched (matched by an interceptor or not), in order. */
function sent(): SentRequest[] {
  const calls = agent.getCallHistory()?.calls() ?? [];
  return calls.map((call) => {
    const headers: Record<string, string> = {};
    const raw = call.headers as unknown;
    if (raw && typeof raw === 'object') {
      for (const [name, value] of Object.entries(raw as Record<string, unknown>)) headers[name.toLowerCase()] = String(value);
    }
    const body: unknown = call.body;
    return {
      method: String(call.method),
      path: String(call.path),
      headers,
      body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : String(body),
    };
  });
}

/** The attempts of a webhook, oldest first. */
function attemptsOf(wh: WebhookRow): AttemptRow[] {
  return store.log.listAttempts(wh.id, { limit: 1_000 }).reverse();
}

function delivery(id: string): DeliveryRow {
  const found = store.deliveries.byId(id);
  if (!found) throw new Error(`no delivery ${id}`);
  return found;
}

/** Delivers the test event and lets the first send complete; returns the delivery's id. */
async function deliverOne(): Promise<string> {
  const ids = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
  expect(ids).toHaveLength(1);
  await flushPromises();
  return ids[0]!;
}

beforeEach(() => {
  store = openStore();
  clock = new ManualClock();
  t0 = clock.now();
  agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  seen = [];
  deliverer = makeDeliverer();
  webhook = insertWebhook();
});

afterEach(async () => {
  await deliverer.stop();
  agent.assertNoPendingInterceptors();
  await agent.close();
  store.database.close();
});

describe('Deliverer: a delivered event', () => {
  it('sends one signed POST with the delivery headers and records the attempt as delivered', async () => {
    answer(200, { data: 'thanks' });
    const ids = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    expect(ids).toHaveLength(1);
    const id = ids[0]!;
    expect(id).toMatch(/^dlv_[0-9a-f]{24}$/);
    await flushPromises();

    const requests = sent();
    expect(requests).toHaveLength(1);
    const request = requests[0]!;
    const body = JSON.stringify(PAYLOAD);
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hook');
    expect(request.body).toBe(body);
    expect(JSON.parse(request.body)).toEqual(PAYLOAD);
    expect(request.headers['x-service-signature']).toBe(expectedSignature(SECRET, body));
    expect(request.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request.headers['x-service-event']).toBe(EVENT);
    expect(request.headers['x-service-delivery-id']).toBe(id);
    expect(request.headers['x-service-attempt']).toBe('1');
    expect(request.headers['x-service-attempt-id']).toBe(id);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe(DEFAULT_POLICY.userAgent);

    const attempts = attemptsOf(webhook);
    expect(attempts).toHaveLength(1);
    const attempt = attempts[0]!;
    expect(attempt).toMatchObject({
      id,
      delivery_id: id,
      webhook_id: webhook.id,
      account_id: ACCOUNT,
      event: EVENT,
      attempt: 1,
      status: 'delivered',
      response_code: 200,
      response_body: 'thanks',
      error: null,
      duration_ms: expect.any(Number),
      created_at: new Date(t0).toISOString(),
      body,
      signature: expectedSignature(SECRET, body),
    });
    expect(delivery(id)).toMatchObject({ delivered: true, next_due_at: null, auto_attempts: 1 });

    expect(seen).toHaveLength(1);
    expect(seen[0]!.attempt).toMatchObject({ id, status: 'delivered', response_code: 200 });
    expect(seen[0]!.webhook.id).toBe(webhook.id);

    // Nothing else is ever sent.
    await clock.advance(24 * 3_600_000);
    expect(sent()).toHaveLength(1);
  });

  it('uses the platform name in every header name', async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ platformName: 'Acme' });
    answer(204);
    const id = await deliverOne();
    const request = sent()[0]!;
    expect(request.headers['x-acme-signature']).toBe(expectedSignature(SECRET, JSON.stringify(PAYLOAD)));
    expect(request.headers['x-acme-event']).toBe(EVENT);
    expect(request.headers['x-acme-delivery-id']).toBe(id);
    expect(request.headers['x-acme-attempt']).toBe('1');
    expect(request.headers['x-service-signature']).toBeUndefined();
    expect(attemptsOf(webhook)[0]).toMatchObject({ status: 'delivered', response_code: 204 });
  });

  it('sends only to active webhooks subscribed to the event, one delivery each', async () => {
    const other = insertWebhook({ events: [EVENT] });
    insertWebhook({ events: ['sales_order.created'] }); // not subscribed
    insertWebhook({ active: false }); // paused
    insertWebhook({ account_id: 'acct_other' }); // another account
    answer(200);
    answer(200);
    const ids = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    await flushPromises();
    expect(sent()).toHaveLength(2);
    expect(
      sent()
        .map((r) => r.headers['x-service-delivery-id'])
        .sort(),
    ).toEqual([...ids].sort());
    expect(attemptsOf(webhook)).toHaveLength(1);
    expect(attemptsOf(other)).toHaveLength(1);

    expect(await deliverer.deliverEvent(ACCOUNT, 'product.updated', PAYLOAD)).toEqual([]);
    await flushPromises();
    expect(sent()).toHaveLength(2);
  });

  it('keeps the endpoint answer only up to responseBodyLimit bytes', async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ responseBodyLimit: 16 });
    answer(200, { data: 'x'.repeat(5_000) });
    await deliverOne();
    expect(attemptsOf(webhook)[0]!.response_body).toBe('x'.repeat(16));
  });

  it('keeps responseBodyLimit bytes of a long answer on a real connection, without an error, and the next send goes as before', async () => {
    await deliverer.stop();
    const receiver = await startReceiver(() => ({ status: 200, body: 'y'.repeat(2_000_000) }));
    const connections = new Agent();
    const real = insertWebhook({ url: `${receiver.url}/hook` });
    deliverer = new Deliverer({ ...store, clock, dispatcher: connections, policy: { ...DEFAULT_POLICY, responseBodyLimit: 100 } });
    try {
      for (const id of ['inv_long_1', 'inv_long_2']) await deliverer.deliverEvent(ACCOUNT, EVENT, { ...PAYLOAD, id });
      await vi.waitFor(() => expect(attemptsOf(real).map((a) => a.status)).toEqual(['delivered', 'delivered']));
      expect(attemptsOf(real).map((a) => a.response_body)).toEqual(['y'.repeat(100), 'y'.repeat(100)]);
    } finally {
      await deliverer.stop();
      await connections.close();
      await receiver.close();
    }
  });
});

describe('Deliverer: the time limit of a send', () => {
  it('covers the body of the answer too: a body that stalls after its first part fails the attempt at timeoutMs', async () => {
    await deliverer.stop();
    const receiver = await startReceiver(() => 'stall-body');
    const connections = new Agent();
    const stalling = insertWebhook({ url: `${receiver.url}/hook` });
    deliverer = new Deliverer({ ...store, clock, dispatcher: connections, policy: { ...DEFAULT_POLICY, timeoutMs: 150, maxAttempts: 1 } });
    try {
      await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
      await vi.waitFor(() => expect(attemptsOf(stalling).map((a) => a.status)).toEqual(['failed']));
      expect(attemptsOf(stalling)[0]).toMatchObject({ response_code: null, error: 'no answer within 150 ms' });
    } finally {
      receiver.release();
      await deliverer.stop();
      await connections.close();
      await receiver.close();
    }
  });

  it('ends with the send: no timer is left behind once the answer is in', async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ timeoutMs: 60_000 });
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    answer(200);
    await deliverOne();
    expect(attemptsOf(webhook)[0]!.status).toBe('delivered');
    // At most as many as before: a timer of undici's own may end meanwhile, and one of ours left behind would be one more.
    expect(timers()).toBeLessThanOrEqual(before);
  });
});

describe('Deliverer: failures and backoff', () => {
  it("a retry goes at its time while another webhook's retry hangs", async () => {
    store.webhooks.update({ ...webhook, events: [EVENT] });
    const other = insertWebhook({ events: ['sales_order.created'] });
    answer(500);
    await deliverOne();
    const hanging = gate();
    answer(200, { wait: hanging.promise });
    await clock.advance(1_000);
    expect(sent()).toHaveLength(2); // the first webhook's retry, now hanging
    answer(500);
    expect(await deliverer.deliverEvent(ACCOUNT, 'sales_order.created', PAYLOAD)).toHaveLength(1);
    await flushPromises();
    expect(attemptsOf(other)).toMatchObject([{ status: 'failed' }]);
    answer(200);
    await clock.advance(1_000);
    expect(sent()).toHaveLength(4);
    expect(attemptsOf(other)).toMatchObject([{ status: 'failed' }, { status: 'delivered' }]);
    hanging.open();
    await flushPromises();
  });

  it('retries a failed delivery with doubling delays, and stops after maxAttempts', async () => {
    for (let i = 0; i < 4; i += 1) answer(500, { data: 'boom' });
    const id = await deliverOne();
    expect(sent()).toHaveLength(1);
    expect(delivery(id)).toMatchObject({ auto_attempts: 1, next_due_at: t0 + 1_000, delivered: false });

    // Attempt 2: not before +1000 ms, exactly at +1000 ms.
    await clock.advance(999);
    expect(sent()).toHaveLength(1);
    await clock.advance(1);
    expect(sent()).toHaveLength(2);
    expect(delivery(id)).toMatchObject({ auto_attempts: 2, next_due_at: t0 + 1_000 + 2_000 });

    // Attempt 3: 2000 ms after attempt 2.
    await clock.advance(1_999);
    expect(sent()).toHaveLength(2);
    await clock.advance(1);
    expect(sent()).toHaveLength(3);
    expect(delivery(id)).toMatchObject({ auto_attempts: 3, next_due_at: t0 + 3_000 + 4_000 });

    // Attempt 4: 4000 ms after attempt 3.
    await clock.advance(3_999);
    expect(sent()).toHaveLength(3);
    await clock.advance(1);
    expect(sent()).toHaveLength(4);

    // The 4th was the last automatic attempt: nothing is scheduled, ever.
    expect(delivery(id)).toMatchObject({ auto_attempts: 4, next_due_at: null, delivered: false });
    await clock.advance(30 * 24 * 3_600_000);
    expect(sent()).toHaveLength(4);
    expect(clock.pendingTimers).toBe(0);

    const attempts = attemptsOf(webhook);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(attempts.map((a) => a.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(attempts.map((a) => a.response_code)).toEqual([500, 500, 500, 500]);
    expect(attempts.map((a) => a.response_body)).toEqual(['boom', 'boom', 'boom', 'boom']);
    expect(attempts.map((a) => a.error)).toEqual(Array(4).fill('endpoint answered 500'));
    expect(attempts.map((a) => Date.parse(a.created_at) - t0)).toEqual([0, 1_000, 3_000, 7_000]);
    expect(attempts.every((a) => a.delivery_id === id)).toBe(true);
    expect(attempts[0]!.id).toBe(id);
    expect(new Set(attempts.map((a) => a.id)).size).toBe(4);

    // Every attempt re-sends the same delivery: same body and signature, numbered 1..4.
    const requests = sent();
    const body = JSON.stringify(PAYLOAD);
    expect(requests.map((r) => r.body)).toEqual(Array(4).fill(body));
    expect(requests.map((r) => r.headers['x-service-signature'])).toEqual(Array(4).fill(expectedSignature(SECRET, body)));
    expect(requests.map((r) => r.headers['x-service-delivery-id'])).toEqual(Array(4).fill(id));
    expect(requests.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4']);
    expect(requests.map((r) => r.headers['x-service-attempt-id'])).toEqual(attempts.map((a) => a.id));
    expect(seen.map((s) => s.attempt.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('caps the backoff delay at maxDelayMs', async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ retryBaseMs: 1_000, maxDelayMs: 1_500, maxAttempts: 4 });
    for (let i = 0; i < 4; i += 1) answer(503);
    const id = await deliverOne();
    expect(delivery(id).next_due_at).toBe(t0 + 1_000);
    await clock.advance(1_000);
    expect(sent()).toHaveLength(2);
    expect(delivery(id).next_due_at).toBe(t0 + 1_000 + 1_500); // 2000 capped to 1500
    await clock.advance(1_499);
    expect(sent()).toHaveLength(2);
    await clock.advance(1);
    expect(sent()).toHaveLength(3);
    expect(delivery(id).next_due_at).toBe(t0 + 2_500 + 1_500); // 4000 capped to 1500
    await clock.advance(1_500);
    expect(sent()).toHaveLength(4);
    await clock.advance(3_600_000);
    expect(sent()).toHaveLength(4);
    expect(attemptsOf(webhook).map((a) => Date.parse(a.created_at) - t0)).toEqual([0, 1_000, 2_500, 4_000]);
  });

  it('with maxAttempts 1 never retries automatically', async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ maxAttempts: 1 });
    answer(500);
    const id = await deliverOne();
    expect(delivery(id)).toMatchObject({ auto_attempts: 1, next_due_at: null, delivered: false });
    await clock.advance(24 * 3_600_000);
    expect(sent()).toHaveLength(1);
  });

  it('stops the delivery when a retry succeeds', async () => {
    answer(500);
    answer(200, { data: 'ok' });
    const id = await deliverOne();
    await clock.advance(1_000);
    expect(sent()).toHaveLength(2);
    expect(delivery(id)).toMatchObject({ delivered: true, next_due_at: null, auto_attempts: 2 });
    await clock.advance(30 * 24 * 3_600_000);
    expect(sent()).toHaveLength(2);
    expect(clock.pendingTimers).toBe(0);
    const attempts = attemptsOf(webhook);
    expect(attempts.map((a) => [a.attempt, a.status, a.response_code])).toEqual([
      [1, 'failed', 500],
      [2, 'delivered', 200],
    ]);
  });

  it('records a connection error as failed with no response code, and retries it', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9999'), { code: 'ECONNREFUSED' });
    agent.get(ORIGIN).intercept({ path: '/hook', method: 'POST' }).replyWithError(refused);
    answer(200);
    const id = await deliverOne();
    expect(sent()).toHaveLength(1);
    const [first] = attemptsOf(webhook);
    expect(first).toMatchObject({
      attempt: 1,
      status: 'failed',
      response_code: null,
      response_body: null,
      error: 'connection refused',
    });
    expect(delivery(id).next_due_at).toBe(t0 + 1_000);
    await clock.advance(1_000);
    expect(sent()).toHaveLength(2);
    expect(attemptsOf(webhook)[1]).toMatchObject({ attempt: 2, status: 'delivered', response_code: 200 });
  });

  it.each<[Breakage, string]>([
    ['headers over 16 KiB', 'broken answer: its headers pass 16 KiB, more than whsvc reads'],
    ['status line 000', "broken answer: its status line's code is not an HTTP status (000, outside 100–599)"],
  ])('records an answer that breaks HTTP (%s, from a receiver on 127.0.0.1) as failed, naming what broke, and schedules its retry', async (breakage, words) => {
    await deliverer.stop();
    const receiver = await startHostileReceiver(breakage);
    const connections = new Agent();
    const hostile = insertWebhook({ url: `${receiver.url}/hook` });
    deliverer = new Deliverer({ ...store, clock, dispatcher: connections, policy: { ...DEFAULT_POLICY, retryBaseMs: 1_000 } });
    try {
      const [id] = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
      await vi.waitFor(() => expect(attemptsOf(hostile).map((a) => a.status)).toEqual(['failed']));
      expect(attemptsOf(hostile)[0]).toMatchObject({
        response_code: null,
        error: words,
      });
      expect(delivery(id!).next_due_at).toBe(t0 + 1_000);
    } finally {
      await deliverer.stop();
      await connections.close();
      await receiver.close();
    }
  });

  it('records an endpoint that does not answer within timeoutMs as failed with no response code', async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ timeoutMs: 50, maxAttempts: 1 });
    // MockAgent's delay is real time, and so is the send timeout (AbortSignal.timeout):
    // an answer 5 s late is cut off at 50 ms.
    agent.get(ORIGIN).intercept({ path: '/hook', method: 'POST' }).reply(200, 'too late').delay(5_000);
    const started = Date.now();
    await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    for (let i = 0; i < 200 && attemptsOf(webhook)[0]?.status !== 'failed'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(Date.now() - started).toBeLessThan(2_000);
    await flushPromises();
    expect(sent()).toHaveLength(1);
    expect(attemptsOf(webhook)).toHaveLength(1);
    expect(attemptsOf(webhook)[0]).toMatchObject({
      attempt: 1,
      status: 'failed',
      response_code: null,
      response_body: null,
      error: 'no answer within 50 ms',
    });
  });

  it('counts a 3xx redirect as a failure (not followed), with its response code', async () => {
    answer(302, { headers: { location: `${ORIGIN}/elsewhere` } });
    const id = await deliverOne();
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.path).toBe('/hook');
    expect(attemptsOf(webhook)[0]).toMatchObject({
      attempt: 1,
      status: 'failed',
      response_code: 302,
      error: 'endpoint answered 302',
    });
    expect(delivery(id)).toMatchObject({ delivered: false, next_due_at: t0 + 1_000 });
    // Let the retry go (and succeed) so no interceptor or timer is left behind.
    answer(200);
    await clock.advance(1_000);
    expect(sent().map((r) => r.path)).toEqual(['/hook', '/hook']);
  });

  it('counts a 4xx answer as a failure and any 2xx (299) as success', async () => {
    answer(410);
    await deliverOne();
    expect(attemptsOf(webhook)[0]).toMatchObject({ status: 'failed', response_code: 410 });
    answer(299);
    await clock.advance(1_000);
    expect(attemptsOf(webhook)[1]).toMatchObject({ status: 'delivered', response_code: 299 });
  });
});

describe('Deliverer: manual retries', () => {
  it('a manual retry while the automatic retry is in flight does not make the automatic one fire twice', async () => {
    answer(500); // automatic 1
    const id = await deliverOne();
    const held = gate();
    answer(500, { wait: held.promise }); // automatic 2, held open
    answer(500); // manual
    answer(500); // automatic 3
    await clock.advance(1_000);
    expect(sent()).toHaveLength(2);

    const manual = deliverer.retry(id, id);
    await flushPromises();
    // The manual retry waits for the send under way on the same delivery.
    expect(sent()).toHaveLength(2);
    held.open();
    const manualAttempt = await manual;
    await flushPromises();
    expect(sent()).toHaveLength(3);
    expect(manualAttempt).toMatchObject({ attempt: 3, status: 'failed', response_code: 500, delivery_id: id });

    // The manual retry does not count as an automatic attempt: the 3rd automatic is due 2000 ms after the 2nd.
    expect(delivery(id)).toMatchObject({ auto_attempts: 2, next_due_at: t0 + 1_000 + 2_000 });
    await clock.advance(1_999);
    expect(sent()).toHaveLength(3);
    await clock.advance(1);
    expect(sent()).toHaveLength(4);
    expect(sent().map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4']);
    expect(attemptsOf(webhook).map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(delivery(id)).toMatchObject({ auto_attempts: 3, next_due_at: t0 + 3_000 + 4_000 });

    // Let the 4th automatic attempt (the last) fail; nothing more.
    answer(500);
    await clock.advance(4_000);
    expect(sent()).toHaveLength(5);
    await clock.advance(24 * 3_600_000);
    expect(sent()).toHaveLength(5);
  });

  it('a manual retry in flight when the automatic retry falls due: the automatic one is sent once, after it', async () => {
    answer(500); // automatic 1
    const id = await deliverOne();
    const held = gate();
    answer(500, { wait: held.promise }); // manual, held open across the due time
    answer(500); // automatic 2
    await clock.advance(500);
    const manual = deliverer.retry(id, id);
    await flushPromises();
    expect(sent()).toHaveLength(2);

    // The automatic retry falls due while the manual one is still being sent.
    await clock.advance(500);
    expect(sent()).toHaveLength(2);
    await clock.advance(100);
    expect(sent()).toHaveLength(2);

    held.open();
    await manual;
    await clock.runDue();
    expect(sent()).toHaveLength(3);
    await clock.runDue();
    await clock.advance(1_000);
    expect(sent()).toHaveLength(3);
    expect(sent().map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
    const attempts = attemptsOf(webhook);
    expect(attempts.map((a) => Date.parse(a.created_at) - t0)).toEqual([0, 500, 1_100]);
    // The automatic attempt sent late is the 2nd automatic one; the next is 2000 ms after it.
    expect(delivery(id)).toMatchObject({ auto_attempts: 2, next_due_at: t0 + 1_100 + 2_000 });
    answer(200);
    await clock.advance(1_000);
    expect(sent()).toHaveLength(4);
    expect(delivery(id).delivered).toBe(true);
  });

  it('a failed manual retry before the automatic retry is due leaves the automatic schedule as it was', async () => {
    answer(500);
    answer(500); // manual
    answer(200); // automatic 2
    const id = await deliverOne();
    await clock.advance(400);
    const manual = await deliverer.retry(id, id);
    expect(manual).toMatchObject({ attempt: 2, status: 'failed', response_code: 500 });
    expect(delivery(id)).toMatchObject({ auto_attempts: 1, next_due_at: t0 + 1_000, delivered: false });
    await clock.advance(599);
    expect(sent()).toHaveLength(2);
    await clock.advance(1);
    expect(sent()).toHaveLength(3);
    expect(delivery(id)).toMatchObject({ delivered: true, next_due_at: null });
  });

  it('a manual retry asked while the attempt is still being sent, which then succeeds, is not sent', async () => {
    const held = gate();
    answer(200, { wait: held.promise });
    const [id] = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await flushPromises();
    expect(attemptsOf(webhook)[0]!.status).toBe('pending');
    const manual = deliverer.retry(id!, id!);
    held.open();
    await expect(manual).resolves.toBe('already_delivered');
    expect(sent()).toHaveLength(1);
    expect(attemptsOf(webhook)).toHaveLength(1);
  });

  it('a manual retry that succeeds cancels the scheduled automatic retry', async () => {
    answer(500);
    answer(200, { data: 'finally' }); // manual
    const id = await deliverOne();
    expect(delivery(id).next_due_at).toBe(t0 + 1_000);
    await clock.advance(300);
    const manual = await deliverer.retry(id, id);
    expect(manual).toMatchObject({ attempt: 2, status: 'delivered', response_code: 200, response_body: 'finally' });
    expect((manual as AttemptRow).id).not.toBe(id);
    expect(delivery(id)).toMatchObject({ delivered: true, next_due_at: null });
    const request = sent()[1]!;
    expect(request.headers['x-service-attempt']).toBe('2');
    expect(request.headers['x-service-delivery-id']).toBe(id);
    expect(request.headers['x-service-attempt-id']).toBe((manual as AttemptRow).id);
    expect(request.headers['x-service-signature']).toBe(expectedSignature(SECRET, JSON.stringify(PAYLOAD)));

    await clock.advance(30 * 24 * 3_600_000);
    expect(sent()).toHaveLength(2);
  });

  it('a manual retry after the automatic attempts are exhausted sends once and schedules nothing', async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ maxAttempts: 2 });
    answer(500);
    answer(500);
    answer(500); // manual
    const id = await deliverOne();
    await clock.advance(1_000);
    expect(delivery(id)).toMatchObject({ auto_attempts: 2, next_due_at: null });
    const manual = await deliverer.retry(id, id);
    expect(manual).toMatchObject({ attempt: 3, status: 'failed' });
    expect(delivery(id)).toMatchObject({ auto_attempts: 2, next_due_at: null, delivered: false });
    await clock.advance(24 * 3_600_000);
    expect(sent()).toHaveLength(3);
  });

  it('a manual retry of an unknown delivery sends nothing and resolves undefined', async () => {
    await expect(deliverer.retry('dlv_000000000000000000000000', 'dlv_000000000000000000000000')).resolves.toBeUndefined();
    expect(sent()).toHaveLength(0);
  });
});

describe('Deliverer: paused and deleted webhooks', () => {
  it('holds a due retry while the webhook is paused; wake() after resuming sends it', async () => {
    answer(500);
    const id = await deliverOne();
    await clock.advance(100);
    setActive(webhook, false);
    await clock.advance(10_000);
    expect(sent()).toHaveLength(1);
    // Still due, not dropped, not counted.
    expect(delivery(id)).toMatchObject({ auto_attempts: 1, next_due_at: t0 + 1_000, delivered: false });

    answer(200);
    setActive(webhook, true);
    deliverer.wake();
    await clock.runDue();
    expect(sent()).toHaveLength(2);
    const attempts = attemptsOf(webhook);
    expect(attempts[1]).toMatchObject({ attempt: 2, status: 'delivered', response_code: 200 });
    expect(Date.parse(attempts[1]!.created_at)).toBe(t0 + 10_100);
    expect(delivery(id)).toMatchObject({ auto_attempts: 2, delivered: true, next_due_at: null });
  });

  it('a webhook paused between finding the due retry and sending it: the retry is held, still due', async () => {
    answer(500);
    const id = await deliverOne();
    // Pause the webhook right after the deliverer has listed what is due (a request
    // pausing it can land between the two).
    const dueDeliveries = store.deliveries.due.bind(store.deliveries);
    let paused = false;
    store.deliveries.due = (now: number, limit: number) => {
      const due = dueDeliveries(now, limit);
      if (due.length > 0 && !paused) {
        paused = true;
        setActive(webhook, false);
      }
      return due;
    };
    await clock.advance(1_000);
    expect(paused).toBe(true);
    expect(sent()).toHaveLength(1);
    expect(attemptsOf(webhook)).toHaveLength(1);
    expect(delivery(id)).toMatchObject({ auto_attempts: 1, next_due_at: t0 + 1_000, delivered: false });

    answer(200);
    setActive(webhook, true);
    deliverer.wake();
    await clock.runDue();
    expect(sent()).toHaveLength(2);
    expect(delivery(id)).toMatchObject({ auto_attempts: 2, delivered: true });
  });

  it('does not deliver new events to a paused webhook', async () => {
    setActive(webhook, false);
    expect(await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD)).toEqual([]);
    await clock.advance(60_000);
    expect(sent()).toHaveLength(0);
  });

  it('drops the scheduled retries of a deleted webhook', async () => {
    answer(500);
    const id = await deliverOne();
    expect(store.webhooks.delete(ACCOUNT, webhook.id)).toBe(true);
    expect(store.deliveries.byId(id)).toBeUndefined();
    await clock.advance(30 * 24 * 3_600_000);
    expect(sent()).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a webhook deleted while its attempt is in flight: the answer is dropped and nothing is scheduled', async () => {
    const held = gate();
    answer(500, { wait: held.promise });
    const [id] = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await flushPromises();
    expect(sent()).toHaveLength(1);
    store.webhooks.delete(ACCOUNT, webhook.id);
    held.open();
    await flushPromises();
    expect(store.deliveries.byId(id!)).toBeUndefined();
    await clock.advance(24 * 3_600_000);
    expect(sent()).toHaveLength(1);
  });
});

describe('Deliverer: start, recovery and stop', () => {
  function insertDelivery(fields: Partial<DeliveryRow> = {}): DeliveryRow {
    const body = JSON.stringify(PAYLOAD);
    const record: DeliveryRow = {
      id: 'dlv_0123456789abcdef01234567',
      webhook_id: webhook.id,
      event: EVENT,
      body,
      signature: expectedSignature(SECRET, body),
      auto_attempts: 1,
      next_due_at: null,
      delivered: false,
      created_at: new Date(t0).toISOString(),
      ...fields,
    };
    store.deliveries.insert(record);
    return record;
  }

  it('start(): an attempt left pending becomes failed and its delivery is sent again', async () => {
    // A sandbox stopped during the first send: the attempt was begun, never finished.
    const record = insertDelivery({ auto_attempts: 1, next_due_at: null });
    store.deliveries.insertAttempt({ id: record.id, delivery_id: record.id, webhook_id: webhook.id, created_at: record.created_at });
    expect(attemptsOf(webhook)[0]!.status).toBe('pending');

    await clock.advance(60_000);
    answer(200);
    deliverer.start();
    const first = attemptsOf(webhook)[0]!;
    expect(first).toMatchObject({ id: record.id, attempt: 1, status: 'failed', response_code: null });
    expect(first.error).toBe('the sandbox stopped during this attempt');

    await clock.runDue();
    expect(sent()).toHaveLength(1);
    const request = sent()[0]!;
    expect(request.body).toBe(record.body);
    expect(request.headers['x-service-signature']).toBe(record.signature);
    expect(request.headers['x-service-delivery-id']).toBe(record.id);
    expect(request.headers['x-service-attempt']).toBe('2');
    const attempts = attemptsOf(webhook);
    expect(attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 'failed'],
      [2, 'delivered'],
    ]);
    expect(Date.parse(attempts[1]!.created_at)).toBe(t0 + 60_000);
    expect(delivery(record.id)).toMatchObject({ auto_attempts: 2, delivered: true, next_due_at: null });
  });

  it('start(): an attempt that was only waiting for its turn (never sent) is taken back, not a failed try: the delivery goes out as that attempt', async () => {
    const record = insertDelivery({ auto_attempts: 1, next_due_at: null });
    store.deliveries.insertAttempt({ id: record.id, delivery_id: record.id, webhook_id: webhook.id, created_at: record.created_at });
    store.deliveries.markQueued(record.id, 'automatic');
    answer(200);
    deliverer.start();
    expect(delivery(record.id)).toMatchObject({ auto_attempts: 0 });
    await clock.runDue();
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.headers['x-service-attempt']).toBe('1');
    expect(attemptsOf(webhook).map((a) => [a.id, a.attempt, a.status])).toEqual([[record.id, 1, 'delivered']]);
    expect(delivery(record.id)).toMatchObject({ auto_attempts: 1, delivered: true });
  });

  it('start(): a manual retry that was only waiting for its turn is dropped, not recorded as failed', async () => {
    const record = insertDelivery({ auto_attempts: 1, next_due_at: null, delivered: false });
    store.deliveries.insertAttempt({ id: record.id, delivery_id: record.id, webhook_id: webhook.id, created_at: record.created_at }, 1);
    store.deliveries.finishAttempt(record.id, { status: 'failed', response_code: 500, response_body: null, error: 'endpoint answered 500', duration_ms: 1 });
    store.deliveries.insertAttempt({ id: 'dlv_manual', delivery_id: record.id, webhook_id: webhook.id, created_at: record.created_at });
    store.deliveries.markQueued('dlv_manual', 'manual');
    deliverer.start();
    await clock.advance(60_000);
    expect(sent()).toHaveLength(0);
    expect(attemptsOf(webhook).map((a) => [a.id, a.status])).toEqual([[record.id, 'failed']]);
  });

  it('start(): a pending attempt of a delivered delivery is marked failed but not re-sent', async () => {
    const record = insertDelivery({ delivered: true, next_due_at: null });
    store.deliveries.insertAttempt({ id: record.id, delivery_id: record.id, webhook_id: webhook.id, created_at: record.created_at });
    deliverer.start();
    await clock.advance(60_000);
    expect(sent()).toHaveLength(0);
    expect(attemptsOf(webhook)[0]!.status).toBe('failed');
  });

  it('start(): sends retries that fell due while the sandbox was stopped, and those not yet due at their time', async () => {
    insertDelivery({ id: 'dlv_aaaaaaaaaaaaaaaaaaaaaaaa', auto_attempts: 2, next_due_at: t0 - 5_000 });
    insertDelivery({ id: 'dlv_bbbbbbbbbbbbbbbbbbbbbbbb', auto_attempts: 1, next_due_at: t0 + 2_000 });
    // Created but never sent (stopped before the first send).
    insertDelivery({ id: 'dlv_cccccccccccccccccccccccc', auto_attempts: 0, next_due_at: t0 - 1 });
    answer(200);
    answer(200);
    answer(200);
    deliverer.start();
    await clock.runDue();
    expect(
      sent()
        .map((r) => r.headers['x-service-delivery-id'])
        .sort(),
    ).toEqual(['dlv_aaaaaaaaaaaaaaaaaaaaaaaa', 'dlv_cccccccccccccccccccccccc']);
    const firstOfC = attemptsOf(webhook).find((a) => a.delivery_id === 'dlv_cccccccccccccccccccccccc');
    expect(firstOfC).toMatchObject({ id: 'dlv_cccccccccccccccccccccccc', attempt: 1, status: 'delivered' });
    await clock.advance(1_999);
    expect(sent()).toHaveLength(2);
    await clock.advance(1);
    expect(sent()).toHaveLength(3);
    expect(sent()[2]!.headers['x-service-delivery-id']).toBe('dlv_bbbbbbbbbbbbbbbbbbbbbbbb');
  });

  it('stop() waits for the send under way to finish, and schedules nothing after', async () => {
    const held = gate();
    answer(500, { wait: held.promise });
    const [id] = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await flushPromises();
    expect(sent()).toHaveLength(1);
    expect(attemptsOf(webhook)[0]!.status).toBe('pending');

    let stopped = false;
    const stopping = deliverer.stop().then(() => {
      stopped = true;
    });
    await flushPromises();
    expect(stopped).toBe(false);

    held.open();
    await stopping;
    expect(stopped).toBe(true);
    // The send finished and was recorded before stop() resolved.
    expect(attemptsOf(webhook)[0]).toMatchObject({ status: 'failed', response_code: 500 });
    // Its retry is kept for the next start, but this deliverer sends nothing more.
    expect(delivery(id!).next_due_at).toBe(t0 + 1_000);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(24 * 3_600_000);
    expect(sent()).toHaveLength(1);

    // A new deliverer on the same store picks the retry up.
    answer(200);
    deliverer = makeDeliverer();
    deliverer.start();
    await clock.runDue();
    expect(sent()).toHaveLength(2);
    expect(delivery(id!).delivered).toBe(true);
  });

  it('stop() resolves at once when nothing is being sent', async () => {
    answer(500);
    await deliverOne();
    expect(clock.pendingTimers).toBe(1);
    await deliverer.stop();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(60_000);
    expect(sent()).toHaveLength(1);
  });
});

describe('Deliverer: sendTest', () => {
  it('sends at once, resolves with the first attempt, and retries it like any delivery', async () => {
    answer(500);
    answer(200);
    const attempt = await deliverer.sendTest(webhook, 'sales_order.created', { id: 'so_1', event: 'sales_order.created' });
    expect(attempt).toMatchObject({ attempt: 1, status: 'failed', response_code: 500, event: 'sales_order.created' });
    expect(attempt!.id).toBe(attempt!.delivery_id);
    expect(sent()[0]!.headers['x-service-event']).toBe('sales_order.created');
    await clock.advance(1_000);
    expect(sent()).toHaveLength(2);
    expect(delivery(attempt!.delivery_id).delivered).toBe(true);
  });
});

describe('Deliverer: each webhook its own share of sends', () => {
  it('holds a webhook to concurrencyPerWebhook sends in flight; the rest wait their turn, and another webhook is not held up', async () => {
    await deliverer.stop();
    const dispatched: string[] = [];
    deliverer = new Deliverer({
      ...store,
      clock,
      dispatcher: agent,
      // Stalled at once: each event is acknowledged while its delivery waits its turn.
      policy: { ...DEFAULT_POLICY, maxAttempts: 1, concurrencyPerWebhook: 2, stalledAfterMs: 0 },
    });
    const slow = gate();
    for (let i = 0; i < 4; i++) {
      agent
        .get(ORIGIN)
        .intercept({ path: '/hook', method: 'POST' })
        .reply(async () => {
          dispatched.push('hook');
          await slow.promise;
          return { statusCode: 200, data: '' };
        });
    }
    agent
      .get(ORIGIN)
      .intercept({ path: '/other', method: 'POST' })
      .reply(() => {
        dispatched.push('other');
        return { statusCode: 200, data: '' };
      });
    insertWebhook({ url: `${ORIGIN}/other`, events: ['product.updated'] });
    for (let i = 0; i < 4; i++) await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await deliverer.deliverEvent(ACCOUNT, 'product.updated', { id: 'p1', event: 'product.updated' });
    await flushPromises();
    expect(dispatched.filter((d) => d === 'hook')).toHaveLength(2);
    expect(dispatched).toContain('other');
    slow.open();
    await flushPromises();
    await flushPromises();
    expect(dispatched.filter((d) => d === 'hook')).toHaveLength(4);
    expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });
});

describe('Deliverer: no queue behind the acknowledgement', () => {
  /** Deliveries to /hook, each held at the endpoint until the one gate opens. */
  function heldEndpoint(count: number) {
    const held = gate();
    for (let i = 0; i < count; i++) answer(200, { wait: held.promise });
    return held;
  }

  it("an event is acknowledged once its send has one of the webhook's connections: while they are all busy, it waits for a send to end", async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ maxAttempts: 1, concurrencyPerWebhook: 2, stalledAfterMs: 600_000 });
    const held = heldEndpoint(3);
    await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    let acknowledged = false;
    const third = deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD).then((ids) => {
      acknowledged = true;
      return ids;
    });
    try {
      // Recorded (it survives a stop), waiting for a connection, and not acknowledged.
      await vi.waitFor(() => expect(attemptsOf(webhook)).toHaveLength(3));
      await flushPromises();
      expect(acknowledged).toBe(false);
    } finally {
      held.open();
    }
    expect(await third).toHaveLength(1);
    await vi.waitFor(() => expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['delivered', 'delivered', 'delivered']));
  });

  it('a stalled webhook (no send ended for stalledAfterMs) is not waited for: the event is acknowledged and its delivery waits inside', async () => {
    await deliverer.stop();
    deliverer = makeDeliverer({ maxAttempts: 1, concurrencyPerWebhook: 1, stalledAfterMs: 0 });
    const held = heldEndpoint(2);
    await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    expect(await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD)).toHaveLength(1);
    expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['pending', 'pending']);
    held.open();
    await vi.waitFor(() => expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['delivered', 'delivered']));
  });
});

describe('Deliverer: when a webhook counts as stalled', () => {
  /** Deliveries to /hook, each held at the endpoint until the test opens its own gate, in order. */
  function gatedEndpoint(count: number) {
    const gates = Array.from({ length: count }, () => gate());
    for (const held of gates) answer(200, { wait: held.promise });
    return gates;
  }

  /** An event made to occur, and whether it has been acknowledged yet. */
  function occur(target: Deliverer) {
    const event = { acknowledged: false, done: Promise.resolve<string[]>([]) };
    event.done = target.deliverEvent(ACCOUNT, EVENT, PAYLOAD).then((ids) => {
      event.acknowledged = true;
      return ids;
    });
    return event;
  }

  let elapsed: ManualClock;
  beforeEach(async () => {
    await deliverer.stop();
    elapsed = new ManualClock(0);
    deliverer = new Deliverer({
      ...store,
      clock,
      elapsed,
      dispatcher: agent,
      policy: { ...DEFAULT_POLICY, maxAttempts: 1, concurrencyPerWebhook: 1, stalledAfterMs: 1_000 },
    });
  });

  it('counts from the last send that ended, not from when the event began waiting: sends that keep ending are no stall', async () => {
    const gates = gatedEndpoint(3);
    try {
      await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
      const second = occur(deliverer);
      const third = occur(deliverer);
      await vi.waitFor(() => expect(attemptsOf(webhook)).toHaveLength(3));
      await elapsed.advance(900);
      gates[0]!.open();
      await second.done;
      // 600 ms after the first send ended: the second is under way, the third waits its turn, unacknowledged.
      await elapsed.advance(600);
      await flushPromises();
      expect(third.acknowledged).toBe(false);
      // A second with nothing ended: the webhook is stalled, and the third is acknowledged while it waits.
      await elapsed.advance(400);
      await third.done;
      expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['delivered', 'pending', 'pending']);
    } finally {
      for (const held of gates) held.open();
    }
    await vi.waitFor(() => expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['delivered', 'delivered', 'delivered']));
  });

  it('counts from when its connections became busy, not from an idle time before', async () => {
    agent.get(ORIGIN).intercept({ path: '/hook', method: 'POST' }).reply(200, '');
    await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await vi.waitFor(() => expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['delivered']));
    // Ten idle seconds, then two events at once: the second waits for the first, which has just begun.
    await elapsed.advance(10_000);
    const gates = gatedEndpoint(2);
    try {
      await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
      const queued = occur(deliverer);
      await vi.waitFor(() => expect(attemptsOf(webhook)).toHaveLength(3));
      await flushPromises();
      expect(queued.acknowledged).toBe(false);
      await elapsed.advance(1_000);
      await queued.done;
    } finally {
      for (const held of gates) held.open();
    }
  });
});

describe('Deliverer: a bounded log', () => {
  it('keeps the newest maxDeliveries deliveries with their attempts, drops the oldest, and says so once', async () => {
    await deliverer.stop();
    const drops: number[] = [];
    deliverer = new Deliverer({
      ...store,
      clock,
      dispatcher: agent,
      policy: { ...DEFAULT_POLICY, maxAttempts: 1, maxDeliveries: 5 },
      onFirstDrop: (n) => drops.push(n),
    });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      answer(200);
      ids.push(...(await deliverer.deliverEvent(ACCOUNT, EVENT, { ...PAYLOAD, id: `inv_${i}` })));
      await flushPromises();
    }
    const kept = attemptsOf(webhook).map((a) => a.delivery_id);
    expect(kept).toEqual(ids.slice(-5));
    expect(ids.slice(0, 7).every((id) => store.deliveries.byId(id) === undefined)).toBe(true);
    expect(drops).toHaveLength(1);
  });

  it('never drops a delivery whose send is under way', async () => {
    await deliverer.stop();
    deliverer = new Deliverer({ ...store, clock, dispatcher: agent, policy: { ...DEFAULT_POLICY, maxAttempts: 1, maxDeliveries: 1 } });
    const held = gate();
    answer(200, { wait: held.promise });
    const [first] = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await flushPromises();
    answer(200);
    await deliverer.deliverEvent(ACCOUNT, EVENT, { ...PAYLOAD, id: 'inv_2' });
    await flushPromises();
    expect(store.deliveries.byId(first!)).toBeDefined();
    held.open();
    await flushPromises();
    expect(attemptsOf(webhook).find((a) => a.delivery_id === first)?.status).toBe('delivered');
  });
});

describe('Deliverer.advance (the manual clock)', () => {
  it('sends the retries due within the jump in due order, each at its due time, and schedules the next from it', async () => {
    const manual = new ManualSandboxClock(t0);
    const own = new Deliverer({ ...store, clock: manual, dispatcher: agent, policy: { ...DEFAULT_POLICY, retryBaseMs: 1_000, maxAttempts: 4 } });
    answer(500);
    const [id] = await own.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await flushPromises();
    // Nothing happens by itself: the retry due at 1 s waits for the clock.
    expect(delivery(id!).next_due_at).toBe(t0 + 1_000);
    expect(sent()).toHaveLength(1);

    expect(await own.advance(t0 + 999, (time) => manual.moveTo(time))).toEqual([]);
    expect(manual.now()).toBe(t0 + 999);

    answer(503);
    answer(200);
    const played = await own.advance(t0 + 60_000, (time) => manual.moveTo(time));
    // Attempt 2 at 1 s (503), attempt 3 at 1 + 2 = 3 s (200); then nothing more is due.
    expect(played.map((a) => [a.attempt, a.status, Date.parse(a.created_at) - t0])).toEqual([
      [2, 'failed', 1_000],
      [3, 'delivered', 3_000],
    ]);
    expect(manual.now()).toBe(t0 + 60_000);
    expect(delivery(id!)).toMatchObject({ delivered: true, next_due_at: null });
    expect(sent().map((request) => request.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
    await own.stop();
  });
});

describe('Deliverer: one budget of connections for the whole sandbox', () => {
  /** Webhooks at their own paths of one origin, each answering when the test opens its gate; who was sent to, in order. */
  function heldWebhooks(
    sends: number[],
    eventOf: (i: number) => string = () => 'product.updated',
  ): { hooks: WebhookRow[]; order: string[]; gates: Array<() => void> } {
    const order: string[] = [];
    const gates: Array<() => void> = [];
    const hooks = sends.map((count, i) => {
      for (let n = 0; n < count; n++) {
        agent
          .get(ORIGIN)
          .intercept({ path: `/lane${i}`, method: 'POST' })
          .reply(async () => {
            order.push(`lane${i}`);
            await new Promise<void>((resolve) => gates.push(resolve));
            return { statusCode: 200, data: '' };
          });
      }
      return insertWebhook({ url: `${ORIGIN}/lane${i}`, events: [eventOf(i)] });
    });
    return { hooks, order, gates };
  }

  it('never has more than maxConnections sends in flight, and the webhooks waiting take turns, one send each a round', async () => {
    await deliverer.stop();
    deliverer = new Deliverer({
      ...store,
      clock,
      dispatcher: agent,
      policy: { ...DEFAULT_POLICY, maxAttempts: 1, concurrencyPerWebhook: 4, maxConnections: 2, stalledAfterMs: 0 },
    });
    const { hooks, order, gates } = heldWebhooks([4, 2, 2], (i) => `test.lane${i}`);
    // The first webhook's four events come first; the others' after: first come would send all of the first's first.
    for (const [lane, events] of [
      [0, 4],
      [1, 2],
      [2, 2],
    ] as const) {
      for (let n = 0; n < events; n++) await deliverer.deliverEvent(ACCOUNT, `test.lane${lane}`, { id: `p${lane}.${n}`, event: `test.lane${lane}` });
    }
    await flushPromises();
    expect(order).toEqual(['lane0', 'lane0']);
    while (gates.length > 0) {
      expect(gates.length).toBeLessThanOrEqual(2);
      gates.shift()!();
      await flushPromises();
    }
    // Each freed connection goes to the next webhook in the round (the first to wait first): never twice in a row to one
    // while another waits. First come, first served would have sent the first webhook's four before any other's.
    expect(order).toEqual(['lane0', 'lane0', 'lane0', 'lane1', 'lane2', 'lane0', 'lane1', 'lane2']);
    expect(hooks.map((hook) => attemptsOf(hook).filter((a) => a.status === 'delivered').length)).toEqual([4, 2, 2]);
  });

  it('an event held back by the budget is acknowledged once no send at all has ended for stalledAfterMs', async () => {
    await deliverer.stop();
    const elapsed = new ManualClock(0);
    deliverer = new Deliverer({
      ...store,
      clock,
      elapsed,
      dispatcher: agent,
      policy: { ...DEFAULT_POLICY, maxAttempts: 1, concurrencyPerWebhook: 4, maxConnections: 1, stalledAfterMs: 1_000 },
    });
    const { gates } = heldWebhooks([1, 1], (i) => `test.lane${i}`);
    await deliverer.deliverEvent(ACCOUNT, 'test.lane0', { id: 'p0', event: 'test.lane0' });
    // The second webhook's send waits for the first's connection: its event is acknowledged only once that one stalls.
    let acknowledged = false;
    const ack = deliverer.deliverEvent(ACCOUNT, 'test.lane1', { id: 'p1', event: 'test.lane1' }).then(() => (acknowledged = true));
    await flushPromises();
    expect(gates).toHaveLength(1);
    await elapsed.advance(900);
    await flushPromises();
    expect(acknowledged).toBe(false);
    await elapsed.advance(200);
    await ack;
    expect(acknowledged).toBe(true);
    while (gates.length > 0) {
      gates.shift()!();
      await flushPromises();
    }
  });

  it('a send that fails inside the sandbox (out of file descriptors) is tried again, never recorded as the endpoint failing', async () => {
    await deliverer.stop();
    const elapsed = new ManualClock(0);
    const local: string[] = [];
    deliverer = new Deliverer({
      ...store,
      clock,
      elapsed,
      dispatcher: agent,
      policy: { ...DEFAULT_POLICY, maxAttempts: 1 },
      onLocalFailure: (reason) => local.push(reason),
    });
    const emfile = Object.assign(new Error('connect EMFILE 127.0.0.1:9999 - Local (undefined:undefined)'), { code: 'EMFILE' });
    agent.get(ORIGIN).intercept({ path: '/hook', method: 'POST' }).replyWithError(emfile).times(2);
    answer(200);
    const [id] = await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await flushPromises();
    expect(local).toEqual(['too many open files (EMFILE): the process is at its file limit']);
    expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['pending']);
    await elapsed.advance(100);
    await flushPromises();
    expect(local).toHaveLength(2);
    expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['pending']);
    await elapsed.advance(200);
    await flushPromises();
    expect(attemptsOf(webhook).map((a) => [a.status, a.response_code])).toEqual([['delivered', 200]]);
    expect(delivery(id!).delivered).toBe(true);
  });

  it('a stop while such a send waits ends the wait at once, and leaves the attempt under way for the next start', async () => {
    await deliverer.stop();
    const elapsed = new ManualClock(0);
    deliverer = new Deliverer({ ...store, clock, elapsed, dispatcher: agent, policy: { ...DEFAULT_POLICY, maxAttempts: 1 } });
    const emfile = Object.assign(new Error('connect EMFILE'), { code: 'EMFILE' });
    agent.get(ORIGIN).intercept({ path: '/hook', method: 'POST' }).replyWithError(emfile);
    await deliverer.deliverEvent(ACCOUNT, EVENT, PAYLOAD);
    await flushPromises();
    await deliverer.stop();
    expect(attemptsOf(webhook).map((a) => a.status)).toEqual(['pending']);
  });
});
