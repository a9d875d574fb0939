// The service's endpoints as the CLI calls them, one typed function each: every path is spelled
// here once, its ids encoded here once, and what a 404 means for the id asked about is said here,
// where the call is made. The names follow the project's words (docs/architecture.md): the
// interface's "delivery" record is an attempt.
import { answerLimits, DEFAULT_MAX_ANSWER_BYTES, type ApiClient, type CallOptions } from './client.js';
import { answerTooLarge, tooLarge } from './errors.js';
import type { Attempt, ClockState, EventType, Page, Webhook } from './shapes.js';
import type { Transport, TransportResponse } from './transport.js';
import type { DeliveryStatus } from '../protocol/status.js';
import { shellWord } from '../render/text.js';

const WEBHOOKS = '/v1/webhooks';
const segment = encodeURIComponent;
const webhookPath = (id: string) => `${WEBHOOKS}/${segment(id)}`;
const attemptPath = (id: string) => `${WEBHOOKS}/webhook-deliveries/${segment(id)}`;

/**
 * What an event id is for, after a 404 where another id was wanted: `sandbox trigger` names the event it
 * made with it (`evt_…`), and prints the id of each delivery it made under it; nothing is looked up by it.
 */
const eventId = (id: string) =>
  `${shellWord(id)} is an event id, the name sandbox trigger gives the event it made; no command looks it up: ` +
  'its deliveries are the dlv_… ids trigger printed under it (whsvc deliveries show dlv_…)';

/** Where to find the right id after a 404 on a webhook's path: the webhooks, or the command for the kind of id given. */
function noSuchWebhook(id: string): string {
  if (id.startsWith('dlv_')) return `${shellWord(id)} is a delivery id: whsvc deliveries show ${shellWord(id)}`;
  if (id.startsWith('evt_')) return eventId(id);
  return 'see the webhooks and their ids: whsvc webhooks list';
}

/** Where to find the right id after a 404 on an attempt's path: a webhook's log, or the command for the kind of id given. */
function noSuchAttempt(id: string): string {
  if (id.startsWith('wh_')) return `${shellWord(id)} is a webhook id: its deliveries are listed by whsvc deliveries list ${shellWord(id)}`;
  if (id.startsWith('evt_')) return eventId(id);
  return "see a webhook's deliveries and their ids: whsvc deliveries list WEBHOOK_ID";
}

/** A 404 on a path that takes no id: the address is not the service's (or not a sandbox's). */
const noSuchPath = (what: string) => `${what} is not there: check --base-url, WHSVC_BASE_URL or the profile's base URL`;

type Stop = Pick<CallOptions, 'stop'>;

export type WebhookQuery = {
  limit?: number | undefined;
  cursor?: string | undefined;
  active?: boolean | undefined;
};

/** GET /v1/webhooks: one page of the account's webhooks. */
export function listWebhooks(api: ApiClient, query: WebhookQuery = {}): Promise<Page<Webhook>> {
  return api.json<Page<Webhook>>('GET', WEBHOOKS, { query, expect: 'webhooks', notFoundHint: noSuchPath('the webhooks endpoint') });
}

/** GET /v1/webhooks/{id}. */
export function getWebhook(api: ApiClient, id: string): Promise<Webhook> {
  return api.json<Webhook>('GET', webhookPath(id), { expect: 'webhook', notFoundHint: noSuchWebhook(id) });
}

export interface NewWebhook {
  url: string;
  events: string[];
  active?: boolean;
}

/**
 * POST /v1/webhooks: the answer carries the signing secret, the only time it is given. Sent once, whatever the
 * answer (repeatedAfter): a second would make a second webhook, and the first one's secret would be lost. The secret
 * is masked from then on in every error of the client's (a service may echo it back: a test send refused, say).
 */
export async function createWebhook(api: ApiClient, webhook: NewWebhook): Promise<Webhook> {
  const created = await api.json<Webhook>('POST', WEBHOOKS, { body: webhook, expect: 'webhook', notFoundHint: noSuchPath('the webhooks endpoint') });
  if (typeof created.signing_secret === 'string') api.addSecret(created.signing_secret);
  return created;
}

/** PATCH /v1/webhooks/{id}: only the fields given change. */
export function updateWebhook(api: ApiClient, id: string, changes: Partial<NewWebhook>): Promise<Webhook> {
  return api.json<Webhook>('PATCH', webhookPath(id), { body: changes, expect: 'webhook', notFoundHint: noSuchWebhook(id) });
}

/** DELETE /v1/webhooks/{id}: its deliveries stop and its secret is revoked. */
export async function deleteWebhook(api: ApiClient, id: string): Promise<void> {
  await api.call('DELETE', webhookPath(id), { notFoundHint: noSuchWebhook(id) });
}

/** GET /v1/webhooks/webhook-events: the event-type catalog. */
export function listEventTypes(api: ApiClient): Promise<{ data: EventType[] }> {
  return api.json<{ data: EventType[] }>('GET', `${WEBHOOKS}/webhook-events`, { expect: 'catalog', notFoundHint: noSuchPath('the event catalog') });
}

/** POST /v1/webhooks/{id}/test: a sample event sent now (the service's default type when none is given); answers its attempt. */
export function sendTestEvent(api: ApiClient, webhookId: string, event?: string): Promise<Attempt> {
  return api.json<Attempt>('POST', `${webhookPath(webhookId)}/test`, {
    body: event ? { event } : {},
    expect: 'attempt',
    notFoundHint: noSuchWebhook(webhookId),
  });
}

export type AttemptQuery = {
  limit?: number | undefined;
  cursor?: string | undefined;
  status?: DeliveryStatus | undefined;
};

/** GET /v1/webhooks/{id}/deliveries: one page of a webhook's log of attempts, newest first. */
export function listAttempts(api: ApiClient, webhookId: string, query: AttemptQuery = {}): Promise<Page<Attempt>> {
  return api.json<Page<Attempt>>('GET', `${webhookPath(webhookId)}/deliveries`, {
    query,
    expect: 'attempts',
    notFoundHint: noSuchWebhook(webhookId),
  });
}

/** GET /v1/webhooks/webhook-deliveries/{id}: one attempt whole, with its payload and signature. */
export function getAttempt(api: ApiClient, attemptId: string, options: Pick<CallOptions, 'maxAnswerBytes'> = {}): Promise<Attempt> {
  return api.json<Attempt>('GET', attemptPath(attemptId), { ...options, expect: 'attempt', notFoundHint: noSuchAttempt(attemptId) });
}

/**
 * POST /v1/webhooks/webhook-deliveries/{id}/retry: the attempt's delivery sent again now; answers the new attempt.
 * Sent again after a 429 (a bulk re-send must get through a rate limit): at worst the delivery goes out once more,
 * which a receiver takes anyway, as the service itself delivers at least once. Not after a 503.
 */
export function retryDelivery(api: ApiClient, attemptId: string, options: Stop = {}): Promise<Attempt> {
  return api.json<Attempt>('POST', `${attemptPath(attemptId)}/retry`, {
    ...options,
    expect: 'attempt',
    notFoundHint: noSuchAttempt(attemptId),
    repeatAfter: [429],
  });
}

/**
 * The service's now, for a time counted back from it (`--since 2h`): when
 * none of the service's answers has told it yet, one small read asks.
 */
export async function askServiceNow(api: ApiClient): Promise<number> {
  if (!api.serviceClock.known) await listWebhooks(api, { limit: 1 });
  return api.serviceClock.now();
}

// The sandbox's own endpoints, outside /v1.

const CLOCK = '/_sandbox/clock';

/** A 404 on the sandbox's own paths: the address is not a whsvc sandbox. */
const noSandbox = (path: string) =>
  `${path} is a whsvc sandbox's own endpoint: is the address a sandbox? Check --base-url, WHSVC_BASE_URL or the profile's base URL`;

/** GET /_sandbox/clock: the sandbox's time and the automatic attempts due next; `background`, a progress line's poll (CallOptions). */
export function sandboxClock(api: ApiClient, background?: AbortSignal): Promise<ClockState> {
  return api.json<ClockState>('GET', CLOCK, { notFoundHint: noSandbox(CLOCK), background });
}

/**
 * POST /_sandbox/clock: a manual clock moved forward, by a time or to one,
 * playing out every attempt due on the way. Answered once the jump is done,
 * however long its sends take (a slow receiver, a timeout at each due time):
 * no --request-timeout, since a jump given up on goes on in the sandbox.
 */
export function moveSandboxClock(api: ApiClient, move: { advance_ms: number | undefined } | { to: string }): Promise<ClockState> {
  return api.json<ClockState>('POST', CLOCK, { body: move, notFoundHint: noSandbox(CLOCK), timeoutMs: Number.POSITIVE_INFINITY });
}

/**
 * POST /_sandbox/events: makes an event occur (no token needed). The answer
 * is the caller's to read, whatever its status (an error's from its head);
 * `sandbox` is an http(s) address.
 */
export async function triggerEvent(
  transport: Transport,
  sandbox: URL,
  event: { type: string; data?: unknown },
  maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES,
): Promise<TransportResponse> {
  const url = new URL('/_sandbox/events', sandbox);
  const response = await transport({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
    timeoutMs: 30_000,
    ...answerLimits(maxAnswerBytes),
  });
  if (tooLarge(response)) throw answerTooLarge('POST', url.pathname, response.status, maxAnswerBytes);
  return response;
}
