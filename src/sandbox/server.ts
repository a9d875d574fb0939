import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Agent, type Dispatcher } from 'undici';
import { authenticate, handleTokenRequest, seedClients } from './auth.js';
import { isManual, systemClock, type Clock } from './clock.js';
import { Cursors } from './cursor.js';
import { DEFAULT_POLICY, Deliverer, type DeliveryPolicy } from './deliverer.js';
import { ApiError, badRequest, sendEmpty, sendJson, serve } from './http.js';
import { createInspector, type Inspector } from './inspector/routes.js';
import { clockRoutes, eventTrigger, webhookRoutes, type Reply, type RouteContext } from './routes.js';
import { RateLimiter } from './rate-limit.js';
import { Router } from './router.js';
import { Store, type AttemptRecord, type ClientRecord, type WebhookRecord } from './store.js';
import { httpUrl } from '../net.js';

export interface SandboxOptions {
  dataDir?: string | undefined;
  tokenTtlSeconds?: number;
  policy?: Partial<DeliveryPolicy>;
  clock?: Clock;
  /** Where deliveries are sent through (a test's MockAgent); by default an undici Agent per webhook, with keep-alive. */
  dispatcher?: Dispatcher;
  onAttempt?: (attempt: AttemptRecord, webhook: WebhookRecord) => void;
  /** Told once, the first time old deliveries are dropped to keep policy.maxDeliveries. */
  onFirstDrop?: (dropped: number) => void;
  /** API requests per second per client before 429 (`--rate-limit`); no limit by default. */
  rateLimit?: number | undefined;
  /** The wall clock the rate limit counts seconds on (a test's, say). */
  rateLimitNow?: () => number;
}

export interface Sandbox {
  readonly server: Server;
  readonly store: Store;
  readonly deliverer: Deliverer;
  readonly clients: ClientRecord[];
  /** The inspector page at the base address (src/sandbox/inspector/). */
  readonly inspector: Pick<Inspector, 'url'>;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** An API route: what it needs of the token, and what it does. */
interface ApiRoute {
  scope: string;
  handle: (ctx: RouteContext) => Promise<Reply>;
}

/** Path segments of the interface that are never taken as an {id}. */
const LITERAL_SEGMENTS = new Set(['webhook-events', 'webhook-deliveries']);

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const clock = options.clock ?? systemClock;
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 3600;
  const store = new Store(options.dataDir);
  const clients = seedClients(store);
  let cursorKey = store.getMeta('cursor_key');
  if (!cursorKey) {
    cursorKey = randomBytes(32).toString('hex');
    store.setMeta('cursor_key', cursorKey);
  }
  const cursors = new Cursors(cursorKey);
  const policy = { ...DEFAULT_POLICY, ...options.policy };
  // Each webhook its own connections (see concurrencyPerWebhook), closed with the sandbox.
  const ownDispatchers: Agent[] = [];
  const dispatcherFor = (): Dispatcher => {
    if (options.dispatcher) return options.dispatcher;
    const agent = new Agent({ connections: policy.concurrencyPerWebhook, keepAliveTimeout: 4_000, connect: { timeout: policy.timeoutMs } });
    ownDispatchers.push(agent);
    return agent;
  };
  const deliverer = new Deliverer({
    store,
    clock,
    dispatcherFor,
    policy,
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
    ...(options.onFirstDrop ? { onFirstDrop: options.onFirstDrop } : {}),
  });
  const api = webhookRoutes({ store, deliverer, cursors });
  // A manual clock carries on from where it stood when the sandbox stopped (with --data-dir).
  const CLOCK_KEY = 'manual_clock_now';
  if (isManual(clock)) clock.moveTo(Number(store.getMeta(CLOCK_KEY) ?? 0));
  const clockApi = clockRoutes({ store, deliverer, clock, onMoved: (now) => store.setMeta(CLOCK_KEY, String(now)) });

  const rateLimiter = options.rateLimit ? new RateLimiter(options.rateLimit, options.rateLimitNow) : undefined;

  const read = (handle: ApiRoute['handle']): ApiRoute => ({ scope: 'webhooks:read', handle });
  const write = (handle: ApiRoute['handle']): ApiRoute => ({ scope: 'webhooks:write', handle });
  const router = new Router<ApiRoute>(LITERAL_SEGMENTS)
    .add('GET', 'v1/webhooks', read(api.list))
    .add('POST', 'v1/webhooks', write(api.create))
    .add('GET', 'v1/webhooks/webhook-events', read(api.events))
    .add('GET', 'v1/webhooks/webhook-deliveries/:id', read(api.delivery))
    .add('POST', 'v1/webhooks/webhook-deliveries/:id/retry', write(api.retry))
    .add('GET', 'v1/webhooks/:id', read(api.get))
    .add('PATCH', 'v1/webhooks/:id', write(api.update))
    .add('DELETE', 'v1/webhooks/:id', write(api.remove))
    .add('POST', 'v1/webhooks/:id/test', write(api.test))
    .add('GET', 'v1/webhooks/:id/deliveries', read(api.deliveries))
    .add('GET', '_sandbox/clock', read(clockApi.show))
    .add('POST', '_sandbox/clock', write(clockApi.move));

  const triggerEvent = eventTrigger({ deliverer, clock });

  const inspector = createInspector({
    store,
    deliverer,
    clock,
    cursors,
    policy,
    trigger: triggerEvent,
    moveClock: clockApi.move,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const pathname = target.split('?')[0]!;
    const query = new URLSearchParams(target.includes('?') ? target.slice(target.indexOf('?') + 1) : '');
    const repeated = [...query.keys()].find((key, index, keys) => keys.indexOf(key) !== index);
    if (repeated !== undefined) throw new ApiError(400, 'invalid_parameter', `${repeated}: given more than once`);
    let segments: string[];
    try {
      segments = pathname.split('/').slice(1).map(decodeURIComponent);
    } catch {
      throw badRequest('invalid_path', 'the request path is not valid percent-encoding');
    }
    const method = req.method ?? 'GET';
    const path = segments.join('/');

    // The inspector: its page at the base address, its routes under /_sandbox/inspector/.
    if (pathname === '/' || inspector.owns(path)) return inspector.handle(req, res, pathname === '/' ? '' : path, query);
    if (path === 'v1/oauth/token') {
      if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', 'use POST', { allow: 'POST' });
      return handleTokenRequest(req, res, store, tokenTtlSeconds, clock.now());
    }
    if (path === '_sandbox/events') {
      if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', 'use POST', { allow: 'POST' });
      // It needs no token: on loopback, at least no page that rebound its name to 127.0.0.1 may make events occur.
      inspector.checkLoopbackHost(req);
      const reply = await triggerEvent(req);
      return sendJson(res, reply.status, reply.body);
    }

    const { handler: route, params } = router.match(method, segments, `endpoint: ${method} ${pathname}`);
    const now = clock.now();
    const principal = authenticate(req, store, route.scope, now);
    rateLimiter?.take(principal.client_id);
    const reply = await route.handle({ req, query, params, principal, now });
    if (reply.status === 204) return sendEmpty(res, 204);
    sendJson(res, reply.status, reply.body);
  }

  const server = serve(handle, clock);

  let closed: Promise<void> | undefined;
  return {
    server,
    store,
    deliverer,
    clients,
    inspector,
    async listen(port = 0, host = '127.0.0.1') {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      deliverer.start();
      inspector.expose(server.address() as AddressInfo);
      return httpUrl(server.address() as AddressInfo);
    },
    close() {
      closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        inspector.close();
        server.closeIdleConnections();
        await deliverer.stop();
        server.closeAllConnections();
        await stopped;
        await Promise.all(ownDispatchers.map((agent) => agent.close()));
        store.close();
      })();
      return closed;
    },
  };
}
