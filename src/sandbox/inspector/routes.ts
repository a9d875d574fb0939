import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_ACCOUNT, type Principal } from '../auth.js';
import { samplePayload } from '../../protocol/catalog.js';
import type { Clock } from '../clock.js';
import type { Cursors } from '../cursor.js';
import type { Deliverer, DeliveryPolicy } from '../deliverer.js';
import { ErrorAnswer, notFound, readJsonObject, sendJson } from '../http.js';
import { Router } from '../router.js';
import type { Reply, RouteContext } from '../routes.js';
import type { Database } from '../store/database.js';
import type { DeliveryLog } from '../store/delivery-log.js';
import type { WebhookRepository } from '../store/webhooks.js';
import { rejectUnknownFields, validateEventType } from '../validation.js';
import { InspectorAccess } from './access.js';
import { PageFiles } from './page.js';
import { checkQuery, idParameter } from './query.js';
import { DATA_HEADERS, LiveStream } from './stream.js';
import { InspectorViews } from './views.js';

// The inspector: the page at the sandbox's base address and the routes it
// reads, all under /_sandbox/inspector/ (the page itself at /). Read-only data
// routes (overview, deliveries, one delivery, a live stream of changes) and
// four actions the interface already has (retry, test send, trigger, clock).
// No answer of these ever holds a signing secret, a client secret or a token:
// every view names its fields one by one (views.ts). Who may use it: access.ts.

export interface InspectorDeps {
  /** Its count of writes, which the live stream follows. */
  database: Pick<Database, 'changes'>;
  webhooks: WebhookRepository;
  log: DeliveryLog;
  deliverer: Deliverer;
  clock: Clock;
  cursors: Cursors;
  policy: DeliveryPolicy;
  trigger: (req: IncomingMessage) => Promise<Reply>;
  moveClock: (ctx: RouteContext) => Promise<Reply>;
}

export interface Inspector {
  expose(address: AddressInfo): void;
  checkLoopbackHost(req: IncomingMessage): void;
  url(baseUrl: string): string;
  /** Whether the path (the request's, without its leading slash, decoded) is one of the inspector's routes (the page, at /, aside). */
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void>;
  close(): void;
}

const PREFIX = '_sandbox/inspector';

const INSPECTOR_PRINCIPAL: Principal = { client_id: 'inspector', account_id: DEMO_ACCOUNT, scopes: ['webhooks:read', 'webhooks:write'] };

interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  params: Record<string, string>;
}
type Handler = (request: Request) => Promise<void>;

/** The parts of the inspector its routes use. */
interface Parts {
  deps: InspectorDeps;
  access: InspectorAccess;
  views: InspectorViews;
  live: LiveStream;
  pages: PageFiles;
}

/** A data route: it takes the query parameters named, and answers JSON. */
const data =
  (known: readonly string[], view: (request: Request) => unknown): Handler =>
  async (request) => {
    checkQuery(request.query, known);
    sendJson(request.res, 200, view(request), DATA_HEADERS);
  };

/** An action: a JSON body only (no form of another site can send one), from the page's own origin only. */
const act =
  (access: InspectorAccess, run: (request: Request) => Promise<Reply>): Handler =>
  async (request) => {
    access.checkSameOrigin(request.req);
    checkQuery(request.query, []);
    const reply = await run(request);
    sendJson(request.res, reply.status, reply.body, DATA_HEADERS);
  };

/** The inspector's routes, relative to its prefix. */
function inspectorRoutes({ deps, access, views, live, pages }: Parts): Router<Handler> {
  const moveClock = ({ req, query }: Request) => deps.moveClock({ req, query, params: {}, principal: INSPECTOR_PRINCIPAL, now: deps.clock.now() });
  return new Router<Handler>()
    .add('GET', '', async ({ res }) => {
      res.writeHead(308, { location: '/' });
      res.end();
    })
    .add('GET', 'app.js', async ({ res, query }) => pages.asset(res, query, 'js'))
    .add('GET', 'style.css', async ({ res, query }) => pages.asset(res, query, 'css'))
    .add(
      'GET',
      'api/overview',
      data([], () => views.overview()),
    )
    .add('GET', 'api/stream', async ({ req, res, query }) => {
      checkQuery(query, []);
      live.open(req, res);
    })
    .add(
      'GET',
      'api/deliveries',
      data(['limit', 'cursor', 'webhook', 'event', 'status', 'q'], ({ query }) => views.deliveries(query)),
    )
    .add(
      'GET',
      'api/deliveries/:id',
      data([], ({ params }) => views.delivery(params.id!)),
    )
    .add(
      'POST',
      'api/deliveries/:id/retry',
      act(access, ({ req, params }) => retry(deps, views, req, params.id!)),
    )
    .add(
      'POST',
      'api/webhooks/:id/test',
      act(access, ({ req, params }) => testSend(deps, req, params.id!)),
    )
    .add(
      'POST',
      'api/events',
      act(access, ({ req }) => deps.trigger(req)),
    )
    .add('POST', 'api/clock', act(access, moveClock));
}

export function createInspector(deps: InspectorDeps): Inspector {
  const access = new InspectorAccess();
  const live = new LiveStream(deps);
  const pages = new PageFiles(access);
  const router = inspectorRoutes({ deps, access, views: new InspectorViews(deps), live, pages });

  return {
    expose: (address) => access.expose(address),
    checkLoopbackHost: (req) => access.checkLoopbackHost(req),
    url: (baseUrl) => access.url(baseUrl),
    owns: (path) => path === PREFIX || path.startsWith(`${PREFIX}/`),
    async handle(req, res, path, query) {
      const method = req.method ?? 'GET';
      if (path === '') {
        if (method !== 'GET' && method !== 'HEAD')
          throw new ErrorAnswer(405, 'method_not_allowed', `${method} is not allowed here; use GET`, { allow: 'GET, HEAD' });
        return pages.page(req, res, query);
      }
      access.check(req, query);
      const rest = path === PREFIX ? [''] : path.slice(PREFIX.length + 1).split('/');
      const { handler, params } = router.match(method, rest, `inspector route: ${method} /${path}`);
      return handler({ req, res, query, params });
    },
    close: () => live.close(),
  };
}

/** Retry now: the delivery's latest attempt sent again (409 once it is delivered). */
async function retry({ deliverer }: InspectorDeps, views: InspectorViews, req: IncomingMessage, id: string): Promise<Reply> {
  const body = await readJsonObject(req);
  rejectUnknownFields(body, []);
  const found = views.delivery(id);
  const latest = found.attempts[found.attempts.length - 1]?.id ?? found.id;
  const retried = await deliverer.retry(found.id, latest);
  if (retried === 'already_delivered') {
    throw new ErrorAnswer(409, 'already_delivered', `delivery ${found.id} was delivered; only a failed or pending delivery is retried`);
  }
  if (!retried) throw notFound('delivery', id);
  return {
    status: 200,
    body: {
      delivery_id: retried.delivery_id,
      attempt: { id: retried.id, attempt: retried.attempt, status: retried.status, response_code: retried.response_code },
    },
  };
}

/** A test send to a webhook, of invoice.paid or the event asked for. */
async function testSend({ webhooks, deliverer, clock }: InspectorDeps, req: IncomingMessage, webhookId: string): Promise<Reply> {
  const body = await readJsonObject(req);
  rejectUnknownFields(body, ['event']);
  const webhook = webhooks.find(DEMO_ACCOUNT, idParameter('id', webhookId));
  if (!webhook) throw notFound('webhook', webhookId);
  const event = body.event === undefined ? 'invoice.paid' : validateEventType('event', body.event);
  const attempt = await deliverer.sendTest(webhook, event, samplePayload(event, new Date(clock.now())));
  if (!attempt) throw notFound('webhook', webhookId);
  return { status: 200, body: { delivery_id: attempt.delivery_id, status: attempt.status, response_code: attempt.response_code } };
}
