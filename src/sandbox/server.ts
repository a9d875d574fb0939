import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { deliveryConnections } from './connections.js';
import { authenticate, handleTokenRequest, seedClients } from './auth.js';
import { isManual, systemClock, type Clock } from './clock.js';
import { Cursors } from './cursor.js';
import { DEFAULT_POLICY, Deliverer, toConsole, type DeliveryPolicy } from './deliverer.js';
import { ErrorAnswer, requestTarget, sendEmpty, sendJson, serve } from './http.js';
import type { ConnectionBounds } from '../bounded-server.js';
import { createInspector, type Inspector } from './inspector/routes.js';
import { apiRouter, clockRoutes, deliveryRoutes, eventTrigger, webhookRoutes } from './routes.js';
import { RateLimiter } from './rate-limit.js';
import { rejectUnknownParameters } from './validation.js';
import type { ClientRepository } from './store/clients.js';
import type { Database } from './store/database.js';
import type { DeliveryRepository } from './store/deliveries.js';
import type { DeliveryLog } from './store/delivery-log.js';
import { openStore } from './store/open.js';
import type { AttemptRow, ClientRow, WebhookRow } from './store/rows.js';
import { httpUrl, type ProxySettings } from '../net.js';

export interface SandboxOptions {
  dataDir?: string | undefined;
  tokenTtlSeconds?: number;
  policy?: Partial<DeliveryPolicy>;
  clock?: Clock;
  /** Real elapsed time, in which sends are timed and a webhook stalls (a test's manual clock, say); elapsedClock by default. */
  elapsed?: Clock;
  /** Where deliveries are sent through (a test's MockAgent); by default one undici Agent, a pool per origin (connections.ts). */
  dispatcher?: Dispatcher;
  /** The proxies of the environment, for deliveries to other hosts (connections.ts). */
  proxies?: ProxySettings | undefined;
  onAttempt?: (attempt: AttemptRow, webhook: WebhookRow) => void;
  /** Told once, the first time old deliveries are dropped to keep policy.maxDeliveries. */
  onFirstDrop?: (dropped: number) => void;
  /** Told of each send that failed inside the sandbox (out of file descriptors, say) and is tried again. */
  onLocalFailure?: (reason: string) => void;
  /**
   * Where a failure inside the sandbox (a bug, a store that fails) is told, with its stack: `sandbox start` gives its
   * stderr; a sandbox built in a test without one tells the test runner's console.
   */
  onInternalError?: (line: string) => void;
  /** API requests per second per client before 429 (`--rate-limit`); no limit by default. */
  rateLimit?: number | undefined;
  /** The wall clock the rate limit counts seconds on (a test's, say). */
  rateLimitNow?: () => number;
  /** What the server takes of its clients (http.ts serverBounds by default; a test's smaller ones). */
  serverBounds?: ConnectionBounds;
}

export interface Sandbox {
  readonly server: Server;
  readonly deliveries: DeliveryRepository;
  readonly log: DeliveryLog;
  readonly deliverer: Deliverer;
  readonly clients: ClientRow[];
  /** The inspector page at the base address (src/sandbox/inspector/). */
  readonly inspector: Pick<Inspector, 'url'>;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const clock = options.clock ?? systemClock;
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 3600;
  const { database, clients: clientRepository, webhooks, deliveries, log } = openStore(options.dataDir);
  const clients = seedClients(clientRepository);
  const cursors = new Cursors(cursorKey(database));
  const policy = { ...DEFAULT_POLICY, ...options.policy };
  const connections = options.dispatcher ? undefined : deliveryConnections(policy, options.proxies);
  const onInternalError = options.onInternalError ?? toConsole;
  const deliverer = new Deliverer({
    database,
    webhooks,
    deliveries,
    clock,
    dispatcher: options.dispatcher ?? connections!,
    policy,
    ...(options.elapsed ? { elapsed: options.elapsed } : {}),
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
    ...(options.onFirstDrop ? { onFirstDrop: options.onFirstDrop } : {}),
    ...(options.onLocalFailure ? { onLocalFailure: options.onLocalFailure } : {}),
    onInternalError,
  });
  const routeDeps = { webhooks, log, deliverer, cursors };
  // A manual clock carries on from where it stood when the sandbox stopped (with --data-dir).
  const CLOCK_KEY = 'manual_clock_now';
  const keptClock = database.getMeta(CLOCK_KEY);
  if (isManual(clock) && keptClock !== undefined) clock.resumeAt(Number(keptClock));
  const clockApi = clockRoutes({ log, deliverer, clock, onMoved: (now) => database.setMeta(CLOCK_KEY, String(now)) });

  const rateLimiter = options.rateLimit ? new RateLimiter(options.rateLimit, options.rateLimitNow) : undefined;

  const router = apiRouter(webhookRoutes(routeDeps), deliveryRoutes(routeDeps), clockApi);
  const triggerEvent = eventTrigger({ deliverer, clock });

  const inspector = createInspector({
    database,
    webhooks,
    log,
    deliverer,
    clock,
    cursors,
    policy,
    trigger: triggerEvent,
    moveClock: clockApi.move,
  });

  const handle = requestHandler({ clients: clientRepository, clock, tokenTtlSeconds, inspector, router, triggerEvent, rateLimiter });
  const server = serve(handle, clock, onInternalError, options.serverBounds);

  let closed: Promise<void> | undefined;
  return {
    server,
    deliveries,
    log,
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
        await connections?.close();
        database.close();
      })();
      return closed;
    },
  };
}

/** The secret of the store's cursors: made once, kept with its data (a cursor outlives a restart with --data-dir). */
function cursorKey(database: Database): string {
  let key = database.getMeta('cursor_key');
  if (!key) {
    key = randomBytes(32).toString('hex');
    database.setMeta('cursor_key', key);
  }
  return key;
}

/**
 * Where a request goes: the inspector (its page at the base address, its
 * routes under /_sandbox/inspector/), the token endpoint, the sandbox's
 * trigger, or an API route after its token, its scope and the rate limit.
 */
function requestHandler(parts: {
  clients: ClientRepository;
  clock: Clock;
  tokenTtlSeconds: number;
  inspector: Inspector;
  router: ReturnType<typeof apiRouter>;
  triggerEvent: ReturnType<typeof eventTrigger>;
  rateLimiter: RateLimiter | undefined;
}): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { clients, clock, tokenTtlSeconds, inspector, router, triggerEvent, rateLimiter } = parts;
  return async (req, res) => {
    const { pathname, segments, query } = requestTarget(req);
    const method = req.method ?? 'GET';
    const path = segments.join('/');

    // The inspector: its page at the base address, its routes under /_sandbox/inspector/.
    if (pathname === '/' || inspector.owns(path)) return inspector.handle(req, res, pathname === '/' ? '' : path, query);
    if (path === 'v1/oauth/token') {
      if (method !== 'POST') throw new ErrorAnswer(405, 'method_not_allowed', 'use POST', { allow: 'POST' });
      return handleTokenRequest(req, res, clients, tokenTtlSeconds, clock.now());
    }
    if (path === '_sandbox/events') {
      if (method !== 'POST') throw new ErrorAnswer(405, 'method_not_allowed', 'use POST', { allow: 'POST' });
      // It needs no token: on loopback, at least no page that rebound its name to 127.0.0.1 may make events occur.
      inspector.checkLoopbackHost(req);
      const reply = await triggerEvent(req);
      return sendJson(res, reply.status, reply.body);
    }

    const { handler: route, params } = router.match(method, segments, `endpoint: ${method} ${pathname}`);
    const now = clock.now();
    const principal = authenticate(req, clients, route.scope, now);
    // The real service's limit, on its API (/v1) only: the sandbox's own routes are not the service's, and whsvc's
    // progress line asks the clock while a jump runs; counted, its questions would use up what the user is trying.
    if (segments[0] === 'v1') rateLimiter?.take(principal.client_id);
    rejectUnknownParameters(query, route.parameters);
    const reply = await route.handle({ req, query, params, principal, now });
    if (reply.status === 204) return sendEmpty(res, 204);
    sendJson(res, reply.status, reply.body);
  };
}
