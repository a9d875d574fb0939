import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/client.js';
import {
  createWebhook,
  deleteWebhook,
  getAttempt,
  getWebhook,
  listAttempts,
  listEventTypes,
  listWebhooks,
  moveSandboxClock,
  retryDelivery,
  sandboxClock,
  sendTestEvent,
  updateWebhook,
} from '../../../src/api/endpoints.js';
import { ApiError } from '../../../src/api/errors.js';
import { fakeDeps, finishFakeDeps, json, mockToken, rejectionOf } from '../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const WEBHOOKS = 'see the webhooks and their ids: whsvc webhooks list';
const ATTEMPTS = "see a webhook's deliveries and their ids: whsvc deliveries list WEBHOOK_ID";
const EVENT_ID =
  'evt_1 is an event id, the name sandbox trigger gives the event it made; no command looks it up: its deliveries are the dlv_… ids trigger printed under it (whsvc deliveries show dlv_…)';
const BASE_URL = "check --base-url, WHSVC_BASE_URL or the profile's base URL";

type Call = (api: ApiClient) => Promise<unknown>;

/** Each kind of call, the request it makes on the wire, and the hint its 404 carries. */
const calls: Array<[string, Call, method: string, path: string, hint: string | RegExp]> = [
  ['getWebhook', (api) => getWebhook(api, 'wh_gone'), 'GET', '/v1/webhooks/wh_gone', WEBHOOKS],
  ['updateWebhook', (api) => updateWebhook(api, 'wh_gone', { active: false }), 'PATCH', '/v1/webhooks/wh_gone', WEBHOOKS],
  ['deleteWebhook', (api) => deleteWebhook(api, 'wh_gone'), 'DELETE', '/v1/webhooks/wh_gone', WEBHOOKS],
  ['sendTestEvent', (api) => sendTestEvent(api, 'wh_gone'), 'POST', '/v1/webhooks/wh_gone/test', WEBHOOKS],
  ['listAttempts', (api) => listAttempts(api, 'wh_gone'), 'GET', '/v1/webhooks/wh_gone/deliveries', WEBHOOKS],
  // A delivery's id where a webhook's belongs: the command for it.
  ['getWebhook, a delivery id', (api) => getWebhook(api, 'dlv_1'), 'GET', '/v1/webhooks/dlv_1', 'dlv_1 is a delivery id: whsvc deliveries show dlv_1'],
  ['getAttempt', (api) => getAttempt(api, 'dlv_gone'), 'GET', '/v1/webhooks/webhook-deliveries/dlv_gone', ATTEMPTS],
  ['retryDelivery', (api) => retryDelivery(api, 'dlv_gone'), 'POST', '/v1/webhooks/webhook-deliveries/dlv_gone/retry', ATTEMPTS],
  // A webhook's id where an attempt's belongs.
  [
    'getAttempt, a webhook id',
    (api) => getAttempt(api, 'wh_1'),
    'GET',
    '/v1/webhooks/webhook-deliveries/wh_1',
    'wh_1 is a webhook id: its deliveries are listed by whsvc deliveries list wh_1',
  ],
  // An event id from sandbox trigger, where a delivery's or a webhook's belongs: what it is for.
  ['getAttempt, an event id', (api) => getAttempt(api, 'evt_1'), 'GET', '/v1/webhooks/webhook-deliveries/evt_1', EVENT_ID],
  ['retryDelivery, an event id', (api) => retryDelivery(api, 'evt_1'), 'POST', '/v1/webhooks/webhook-deliveries/evt_1/retry', EVENT_ID],
  ['listAttempts, an event id', (api) => listAttempts(api, 'evt_1'), 'GET', '/v1/webhooks/evt_1/deliveries', EVENT_ID],
  ['listWebhooks', (api) => listWebhooks(api), 'GET', '/v1/webhooks', `the webhooks endpoint is not there: ${BASE_URL}`],
  ['createWebhook', (api) => createWebhook(api, { url: 'https://example.com/', events: ['invoice.paid'] }), 'POST', '/v1/webhooks', /^the webhooks endpoint/],
  ['listEventTypes', (api) => listEventTypes(api), 'GET', '/v1/webhooks/webhook-events', `the event catalog is not there: ${BASE_URL}`],
  ['sandboxClock', (api) => sandboxClock(api), 'GET', '/_sandbox/clock', /^\/_sandbox\/clock is a whsvc sandbox's own endpoint: is the address a sandbox\?/],
  ['moveSandboxClock', (api) => moveSandboxClock(api, { advance_ms: 1000 }), 'POST', '/_sandbox/clock', /^\/_sandbox\/clock is a whsvc sandbox's own/],
];

describe('the endpoints: a 404 says where to find the right id, where the call is made', () => {
  it.each(calls)('%s', async (_name, call, method, path, hint) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path, method }).reply(json(404, { error: { code: 'not_found', message: 'no such thing' } }));
    const error = await rejectionOf(call(fake.deps.api));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'no such thing' });
    if (typeof hint === 'string') expect(error.hint).toBe(hint);
    else expect(error.hint).toMatch(hint);
  });

  it('another status carries no such hint', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1/retry', method: 'POST' }).reply(json(409, { error: { code: 'already_delivered' } }));
    const error = await rejectionOf(retryDelivery(fake.deps.api, 'dlv_1'));
    expect(error).toMatchObject({ status: 409, code: 'already_delivered' });
    expect(error.hint).toBeUndefined();
  });

  it('encodes an id once, as one path segment, and says it back quoted for a shell', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/dlv_a%2F..%20b', method: 'GET' }).reply(json(404, { error: { code: 'not_found' } }));
    const error = await rejectionOf(getWebhook(fake.deps.api, 'dlv_a/.. b'));
    expect(error.hint).toBe("'dlv_a/.. b' is a delivery id: whsvc deliveries show 'dlv_a/.. b'");
  });
});

const WEBHOOK = { id: 'wh_1', url: 'https://a.example/h', events: ['invoice.paid'], active: true, created_at: '2024-01-01T00:00:00Z' };
const ATTEMPT = { id: 'dlv_1', event: 'invoice.paid', status: 'failed', response_code: 500, attempts: 1, created_at: '2024-01-01T00:00:00Z' };
const page = (data: unknown[], more: Record<string, unknown> = {}) => ({ data, has_more: false, next_cursor: null, ...more });

describe('the endpoints: an answer not of the shape the interface gives is one error naming what is wrong, never a crash further on', () => {
  it.each<[string, string, string, Call, unknown, RegExp]>([
    [
      'a webhooks page, item null',
      'GET',
      '/v1/webhooks',
      (api) => listWebhooks(api),
      page([WEBHOOK, null]),
      /page of webhooks.*: item 2: it is null, not an object$/,
    ],
    ['a webhooks page, item 42', 'GET', '/v1/webhooks', (api) => listWebhooks(api), page([42]), /item 1: it is a number, not an object$/],
    [
      'a webhooks page, item without id',
      'GET',
      '/v1/webhooks',
      (api) => listWebhooks(api),
      page([{ url: 'https://a.example/h', events: [] }]),
      /item 1: it has no id$/,
    ],
    [
      'a webhooks page, events a string',
      'GET',
      '/v1/webhooks',
      (api) => listWebhooks(api),
      page([{ ...WEBHOOK, events: 'invoice.paid' }]),
      /item 1: its events is not a list of strings$/,
    ],
    ['a webhooks page, url a number', 'GET', '/v1/webhooks', (api) => listWebhooks(api), page([{ ...WEBHOOK, url: 7 }]), /item 1: its url is not a string$/],
    [
      'a webhooks page, next_cursor a number',
      'GET',
      '/v1/webhooks',
      (api) => listWebhooks(api),
      page([WEBHOOK], { has_more: true, next_cursor: 7 }),
      /its next_cursor is not a string or null$/,
    ],
    [
      'an attempts page, item null',
      'GET',
      '/v1/webhooks/wh_1/deliveries',
      (api) => listAttempts(api, 'wh_1'),
      page([null]),
      /page of attempts.*: item 1: it is null, not an object$/,
    ],
    [
      'an attempts page, event a number',
      'GET',
      '/v1/webhooks/wh_1/deliveries',
      (api) => listAttempts(api, 'wh_1'),
      page([{ ...ATTEMPT, event: 7 }]),
      /item 1: its event is not a string$/,
    ],
    [
      'an attempts page, response_code a string',
      'GET',
      '/v1/webhooks/wh_1/deliveries',
      (api) => listAttempts(api, 'wh_1'),
      page([{ ...ATTEMPT, response_code: 'five hundred' }]),
      /item 1: its response_code is not a number$/,
    ],
    ['a webhook null', 'GET', '/v1/webhooks/wh_1', (api) => getWebhook(api, 'wh_1'), null, /not a webhook.*: it is null, not an object$/],
    [
      'a webhook whose events are null',
      'PATCH',
      '/v1/webhooks/wh_1',
      (api) => updateWebhook(api, 'wh_1', { active: true }),
      { ...WEBHOOK, events: null },
      /its events is not a list of strings$/,
    ],
    [
      'a created webhook without id',
      'POST',
      '/v1/webhooks',
      (api) => createWebhook(api, { url: 'https://a.example/h', events: ['invoice.paid'] }),
      { url: 'https://a.example/h', events: [] },
      /it has no id$/,
    ],
    [
      'a retried attempt without created_at',
      'POST',
      '/v1/webhooks/webhook-deliveries/dlv_1/retry',
      (api) => retryDelivery(api, 'dlv_1'),
      { ...ATTEMPT, created_at: undefined },
      /it has no created_at$/,
    ],
  ])('%s', async (_, method, path, call, body, message) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: (p) => p.split('?')[0] === path, method }).reply(json(200, body));
    const error = await rejectionOf(call(fake.deps.api));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, code: 'unexpected_answer' });
    expect(error.message).toMatch(new RegExp(`^the service answered ${method} ${path} with something that is not `));
    expect(error.message).toMatch(message);
  });

  it("answers of the interface's shape pass, numbers past a double and a null response_code too", async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: (p) => p.startsWith('/v1/webhooks?'), method: 'GET' }).reply(json(200, page([WEBHOOK], { has_more: true, next_cursor: 'c1' })));
    fake.mock
      .intercept({ path: (p) => p.startsWith('/v1/webhooks/wh_1/deliveries'), method: 'GET' })
      .reply(
        200,
        `{"data":[{"id":"dlv_1","event":"e","status":"failed","response_code":null,"attempts":12345678901234567890123,"created_at":"x"}],"has_more":false,"next_cursor":null}`,
        { headers: { 'content-type': 'application/json' } },
      );
    expect((await listWebhooks(fake.deps.api, { limit: 1 })).data).toEqual([WEBHOOK]);
    expect((await listAttempts(fake.deps.api, 'wh_1')).data).toHaveLength(1);
  });
});

describe('createWebhook: the signing secret it was given is masked in the errors that follow', () => {
  it('a service echoing it (whole, cut by an ellipsis as jq and servers cut long values) in a later error does not get it printed', async () => {
    const fake = fakeDeps({ debug: true });
    mockToken(fake.mock);
    const secret = 'whsec_Icr_cZhf2zG9ouimNIHgvpZ1W06J46No';
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(json(201, { ...WEBHOOK, signing_secret: secret }));
    fake.mock
      .intercept({ path: '/v1/webhooks/wh_1/test', method: 'POST' })
      .reply(json(400, { error: { code: 'bad', message: `signature made with ${secret} refused; ${secret.slice(0, 20)}... too` } }));
    await createWebhook(fake.deps.api, { url: WEBHOOK.url, events: WEBHOOK.events });
    const error = await rejectionOf(sendTestEvent(fake.deps.api, 'wh_1'));
    expect(error.message).toBe('signature made with [redacted] refused; [redacted] too');
    expect(fake.debugLog.join('')).not.toContain(secret.slice(6, 20));
  });
});
