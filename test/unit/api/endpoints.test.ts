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
