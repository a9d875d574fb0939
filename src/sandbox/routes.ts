import type { IncomingMessage } from 'node:http';
import { EVENT_CATALOG, samplePayload } from '../protocol/catalog.js';
import { SIGNING_SECRET_PREFIX } from '../protocol/signature.js';
import { isManual, type Clock } from './clock.js';
import type { Cursors } from './cursor.js';
import type { Deliverer } from './deliverer.js';
import { ErrorAnswer, badRequest, notFound, readJsonObject } from './http.js';
import { newId, newSecret } from './ids.js';
import { DEMO_ACCOUNT, type Principal } from './auth.js';
import { Router } from './router.js';
import type { DeliveryLog } from './store/delivery-log.js';
import type { AttemptRow, WebhookRow } from './store/rows.js';
import type { WebhookRepository } from './store/webhooks.js';
import {
  parseActiveFilter,
  parseLimit,
  parseStatusFilter,
  rejectUnknownFields,
  validateActive,
  validateEvents,
  validateEventType,
  validateUrl,
} from './validation.js';

export interface RouteContext {
  req: IncomingMessage;
  query: URLSearchParams;
  params: Record<string, string>;
  principal: Principal;
  now: number;
}

export interface Reply {
  status: number;
  body?: unknown;
}

export interface RouteDeps {
  webhooks: WebhookRepository;
  log: DeliveryLog;
  deliverer: Deliverer;
  cursors: Cursors;
}

// --- response shapes: the fields the interface lists for each object, in its order, then the
// sandbox's documented extensions (docs/sandbox.md): `delivery_id` says which delivery an attempt
// belongs to, `next_attempt_at` when its automatic retry is due (a failed delivery's newest
// attempt); a retrieved attempt also says why it failed and what the endpoint answered ---

const WEBHOOK_FIELDS = {
  listed: ['id', 'url', 'events', 'active', 'created_at'],
  created: ['id', 'url', 'events', 'active', 'signing_secret', 'created_at'],
  updated: ['id', 'url', 'events', 'active', 'updated_at'],
} as const;

const ATTEMPT_FIELDS = {
  listed: ['id', 'event', 'status', 'response_code', 'attempts', 'created_at', 'delivery_id', 'next_attempt_at'],
  tested: ['id', 'webhook_id', 'event', 'status', 'response_code', 'created_at', 'next_attempt_at', 'failure_reason'],
  retried: ['id', 'webhook_id', 'event', 'status', 'response_code', 'attempts', 'created_at', 'delivery_id', 'next_attempt_at', 'failure_reason'],
  retrieved: [
    'id',
    'webhook_id',
    'event',
    'status',
    'response_code',
    'attempts',
    'signature',
    'payload',
    'created_at',
    'delivery_id',
    'next_attempt_at',
    'failure_reason',
    'response_body',
  ],
} as const;

function pick<T, K extends keyof T>(record: T, fields: readonly K[]): Pick<T, K> {
  return Object.fromEntries(fields.map((field) => [field, record[field]])) as Pick<T, K>;
}

const webhookView = (fields: keyof typeof WEBHOOK_FIELDS) => (w: WebhookRow) => pick(w, WEBHOOK_FIELDS[fields]);

/** An attempt as the interface names its fields (its "delivery" object): `attempts` is the attempt's number, `payload` the parsed body. */
const attemptView = (fields: keyof typeof ATTEMPT_FIELDS) => {
  const withPayload = (ATTEMPT_FIELDS[fields] as readonly string[]).includes('payload');
  return (a: AttemptRow) =>
    pick(
      {
        ...a,
        attempts: a.attempt,
        payload: withPayload ? (JSON.parse(a.body) as unknown) : undefined,
        delivery_id: a.delivery_id,
        failure_reason: a.error,
        // An integer, as the interface declares it: 0 when the endpoint gave no HTTP answer.
        response_code: a.response_code ?? 0,
      },
      ATTEMPT_FIELDS[fields],
    );
};

function webhookOr404(webhooks: WebhookRepository, ctx: RouteContext): WebhookRow {
  const id = ctx.params.id!;
  const webhook = webhooks.find(ctx.principal.account_id, id);
  if (!webhook) throw notFound('webhook', id);
  return webhook;
}

function attemptOr404(log: DeliveryLog, ctx: RouteContext): AttemptRow {
  const id = ctx.params.id!;
  const attempt = log.findAttempt(ctx.principal.account_id, id);
  if (!attempt) throw notFound('delivery', id);
  return attempt;
}

/** The webhooks themselves: list, create, read, change, delete, and the event catalog they subscribe to. */
export function webhookRoutes({ webhooks, deliverer, cursors }: Omit<RouteDeps, 'log'>) {
  return {
    async list(ctx: RouteContext): Promise<Reply> {
      const limit = parseLimit(ctx.query.get('limit'));
      const active = parseActiveFilter(ctx.query.get('active'));
      const list = `webhooks:${ctx.principal.account_id}`;
      const cursor = ctx.query.get('cursor');
      const beforeSeq = cursor === null ? undefined : cursors.decode(list, cursor);
      const rows = webhooks.list(ctx.principal.account_id, { beforeSeq, active, limit: limit + 1 });
      return { status: 200, body: cursors.page(rows, limit, list, webhookView('listed')) };
    },

    async create(ctx: RouteContext): Promise<Reply> {
      const body = await readJsonObject(ctx.req);
      rejectUnknownFields(body, ['url', 'events', 'active']);
      const url = validateUrl(body.url);
      const events = validateEvents(body.events);
      const active = body.active === undefined ? true : validateActive(body.active);
      const timestamp = new Date(ctx.now).toISOString();
      const webhook = webhooks.insert({
        id: newId('wh'),
        account_id: ctx.principal.account_id,
        url,
        events,
        active,
        signing_secret: newSecret(SIGNING_SECRET_PREFIX),
        created_at: timestamp,
        updated_at: timestamp,
      });
      return { status: 201, body: webhookView('created')(webhook) };
    },

    async get(ctx: RouteContext): Promise<Reply> {
      return { status: 200, body: webhookView('listed')(webhookOr404(webhooks, ctx)) };
    },

    async update(ctx: RouteContext): Promise<Reply> {
      const body = await readJsonObject(ctx.req);
      const webhook = webhookOr404(webhooks, ctx);
      rejectUnknownFields(body, ['url', 'events', 'active']);
      const updated: WebhookRow = {
        ...webhook,
        url: body.url === undefined ? webhook.url : validateUrl(body.url),
        events: body.events === undefined ? webhook.events : validateEvents(body.events),
        active: body.active === undefined ? webhook.active : validateActive(body.active),
        updated_at: new Date(ctx.now).toISOString(),
      };
      webhooks.update(updated);
      if (updated.active && !webhook.active) deliverer.wake();
      return { status: 200, body: webhookView('updated')(updated) };
    },

    async remove(ctx: RouteContext): Promise<Reply> {
      const id = ctx.params.id!;
      if (!webhooks.delete(ctx.principal.account_id, id)) throw notFound('webhook', id);
      return { status: 204 };
    },

    async events(): Promise<Reply> {
      return { status: 200, body: { data: EVENT_CATALOG } };
    },
  };
}

/** What a webhook was sent: test sends, its delivery log, one attempt, and a retry. */
export function deliveryRoutes({ webhooks, log, deliverer, cursors }: RouteDeps) {
  return {
    async test(ctx: RouteContext): Promise<Reply> {
      const body = await readJsonObject(ctx.req, true);
      const webhook = webhookOr404(webhooks, ctx);
      rejectUnknownFields(body, ['event']);
      const event = body.event === undefined ? 'invoice.paid' : validateEventType('event', body.event);
      const attempt = await deliverer.sendTest(webhook, event, samplePayload(event, new Date(ctx.now)));
      if (!attempt) throw notFound('webhook', webhook.id);
      return { status: 200, body: attemptView('tested')(attempt) };
    },

    async attempts(ctx: RouteContext): Promise<Reply> {
      const limit = parseLimit(ctx.query.get('limit'));
      const status = parseStatusFilter(ctx.query.get('status'));
      const webhook = webhookOr404(webhooks, ctx);
      const list = `deliveries:${webhook.id}`;
      const cursor = ctx.query.get('cursor');
      const beforeSeq = cursor === null ? undefined : cursors.decode(list, cursor);
      const rows = log.listAttempts(webhook.id, { beforeSeq, status, limit: limit + 1 });
      return { status: 200, body: cursors.page(rows, limit, list, attemptView('listed')) };
    },

    async attempt(ctx: RouteContext): Promise<Reply> {
      return { status: 200, body: attemptView('retrieved')(attemptOr404(log, ctx)) };
    },

    async retry(ctx: RouteContext): Promise<Reply> {
      const attempt = attemptOr404(log, ctx);
      const retried = await deliverer.retry(attempt.delivery_id, attempt.id);
      if (retried === 'already_delivered') {
        throw new ErrorAnswer(
          409,
          'already_delivered',
          `delivery ${attempt.delivery_id} was delivered (by this attempt or a later one); only a failed or pending delivery is retried`,
        );
      }
      if (!retried) throw notFound('delivery', attempt.id);
      return { status: 200, body: attemptView('retried')(retried) };
    },
  };
}

/** Ten years: further than any retry schedule, and far from Date's limits. */
const MAX_JUMP_MS = 10 * 365 * 86_400_000;

/**
 * The sandbox's clock, outside /v1 (`/_sandbox/clock`), behind the API's own
 * authentication: GET shows the time and the attempts due next; POST moves a
 * manual clock forward (`{"advance_ms": n}` or `{"to": "<ISO time>"}`) and
 * plays out what falls due on the way.
 */
const iso = (time: number) => new Date(time).toISOString();

export function clockRoutes({ log, deliverer, clock, onMoved }: { log: DeliveryLog; deliverer: Deliverer; clock: Clock; onMoved: (now: number) => void }) {
  const upcoming = () => log.upcoming(20).map((due) => ({ ...due, due_at: new Date(due.due_at).toISOString() }));
  return {
    async show(): Promise<Reply> {
      const jump = deliverer.jumpUnderWay();
      const moving = jump && { from: iso(jump.from), to: iso(jump.to), sent: jump.sent, sending: jump.sending, due: jump.due };
      return { status: 200, body: { clock: isManual(clock) ? 'manual' : 'wall', now: iso(clock.now()), ...(moving ? { moving } : {}), due: upcoming() } };
    },

    async move(ctx: RouteContext): Promise<Reply> {
      const body = await readJsonObject(ctx.req);
      if (!isManual(clock)) {
        throw new ErrorAnswer(
          409,
          'clock_not_manual',
          'the sandbox runs on the wall clock; start it with `whsvc sandbox start --clock manual` to move its time',
        );
      }
      rejectUnknownFields(body, ['advance_ms', 'to']);
      let targetFrom: (now: number) => number;
      if (body.advance_ms !== undefined && body.to === undefined) {
        if (!Number.isSafeInteger(body.advance_ms) || (body.advance_ms as number) < 0 || (body.advance_ms as number) > MAX_JUMP_MS) {
          throw new ErrorAnswer(400, 'invalid_field', `the time to move by must be an integer of milliseconds from 0 to ${MAX_JUMP_MS}`);
        }
        targetFrom = (now) => now + (body.advance_ms as number);
      } else if (body.to !== undefined && body.advance_ms === undefined) {
        const to = typeof body.to === 'string' && /^\d{4}-\d\d-\d\dT/.test(body.to) ? Date.parse(body.to) : NaN;
        if (Number.isNaN(to)) throw new ErrorAnswer(400, 'invalid_field', 'the time to move to must be an ISO 8601 time, such as 2030-01-01T00:00:00Z');
        // Checked against the clock as it stands when this move's turn comes (after any jump under way).
        targetFrom = (now) => {
          if (to < now) throw new ErrorAnswer(400, 'invalid_field', `the clock only moves forward; it is ${new Date(now).toISOString()}`);
          if (to - now > MAX_JUMP_MS) throw new ErrorAnswer(400, 'invalid_field', 'the clock moves at most ten years ahead at once');
          return to;
        };
      } else {
        throw new ErrorAnswer(400, 'invalid_field', 'give advance_ms (milliseconds) or to (an ISO 8601 time), one of them');
      }
      let from = clock.now();
      const sent = await deliverer.advance(
        (now) => targetFrom((from = now)),
        (time) => clock.moveTo(time),
      );
      onMoved(clock.now());
      return {
        status: 200,
        body: {
          from: new Date(from).toISOString(),
          now: new Date(clock.now()).toISOString(),
          sent: sent.length,
          delivered: sent.filter((a) => a.status === 'delivered').length,
          failed: sent.filter((a) => a.status === 'failed').length,
          attempts: sent.map((a) => ({
            id: a.id,
            delivery_id: a.delivery_id,
            webhook_id: a.webhook_id,
            event: a.event,
            attempt: a.attempt,
            status: a.status,
            response_code: a.response_code,
            created_at: a.created_at,
          })),
          due: upcoming(),
        },
      };
    },
  };
}

/**
 * `POST /_sandbox/events`: makes an event occur, delivered to every active
 * webhook subscribed to it. JSON only: a web page cannot send that
 * cross-origin without a preflight, so no page can trigger events.
 */
export function eventTrigger({ deliverer, clock }: { deliverer: Deliverer; clock: Clock }) {
  return async (req: IncomingMessage): Promise<Reply> => {
    const body = await readJsonObject(req);
    rejectUnknownFields(body, ['type', 'data']);
    const type = validateEventType('type', body.type);
    const data = body.data ?? {};
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw badRequest('invalid_field', 'data: must be a JSON object');
    const payload = { ...samplePayload(type, new Date(clock.now())), ...data, event: type };
    const deliveries = await deliverer.deliverEvent(DEMO_ACCOUNT, type, payload);
    return { status: 202, body: { id: newId('evt'), type, payload, deliveries } };
  };
}

/** An API route: what it needs of the token, the query parameters it takes (any other is 400), and what it does. */
interface ApiRoute {
  scope: string;
  parameters: readonly string[];
  handle: (ctx: RouteContext) => Promise<Reply>;
}

/** Path segments of the interface that are never taken as an {id}. */
const LITERAL_SEGMENTS = new Set(['webhook-events', 'webhook-deliveries']);

/** The interface's routes, each with the scope its token needs. */
export function apiRouter(
  api: ReturnType<typeof webhookRoutes>,
  log: ReturnType<typeof deliveryRoutes>,
  clockApi: ReturnType<typeof clockRoutes>,
): Router<ApiRoute> {
  const read = (handle: ApiRoute['handle'], parameters: readonly string[] = []): ApiRoute => ({ scope: 'webhooks:read', parameters, handle });
  const write = (handle: ApiRoute['handle']): ApiRoute => ({ scope: 'webhooks:write', parameters: [], handle });
  return new Router<ApiRoute>(LITERAL_SEGMENTS)
    .add('GET', 'v1/webhooks', read(api.list, ['limit', 'cursor', 'active']))
    .add('POST', 'v1/webhooks', write(api.create))
    .add('GET', 'v1/webhooks/webhook-events', read(api.events))
    .add('GET', 'v1/webhooks/webhook-deliveries/:id', read(log.attempt))
    .add('POST', 'v1/webhooks/webhook-deliveries/:id/retry', write(log.retry))
    .add('GET', 'v1/webhooks/:id', read(api.get))
    .add('PATCH', 'v1/webhooks/:id', write(api.update))
    .add('DELETE', 'v1/webhooks/:id', write(api.remove))
    .add('POST', 'v1/webhooks/:id/test', write(log.test))
    .add('GET', 'v1/webhooks/:id/deliveries', read(log.attempts, ['limit', 'cursor', 'status']))
    .add('GET', '_sandbox/clock', read(clockApi.show))
    .add('POST', '_sandbox/clock', write(clockApi.move));
}
