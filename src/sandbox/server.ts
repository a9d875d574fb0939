import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Agent, type Dispatcher } from 'undici';
import { authenticate, DEMO_ACCOUNT, handleTokenRequest, seedClients } from './auth.js';
import { samplePayload } from './catalog.js';
import { systemClock, type Clock } from './clock.js';
import { Cursors } from './cursor.js';
import { DEFAULT_POLICY, Deliverer, type DeliveryPolicy } from './deliverer.js';
import { ApiError, badRequest, parseJsonObject, readBody, sendApiError, sendEmpty, sendJson } from './http.js';
import { newId } from './ids.js';
import { webhookRoutes, type Reply, type RouteContext } from './routes.js';
import { Store, type AttemptRecord, type ClientRecord, type WebhookRecord } from './store.js';
import { rejectUnknownFields, validateEventType } from './validation.js';
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
}

export interface Sandbox {
  readonly server: Server;
  readonly store: Store;
  readonly deliverer: Deliverer;
  readonly clients: ClientRecord[];
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

interface Route {
  method: string;
  path: string[];
  scope?: string;
  handle: (ctx: RouteContext) => Promise<Reply>;
}

/** Path segments that are never taken as an {id}. */
const LITERAL_SEGMENTS = new Set(['webhook-events', 'webhook-deliveries']);

function matchPath(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.startsWith(':')) {
      if (LITERAL_SEGMENTS.has(actual) || actual === '') return undefined;
      params[expected.slice(1)] = actual;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

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

  const routes: Route[] = [
    { method: 'GET', path: ['v1', 'webhooks'], scope: 'webhooks:read', handle: api.list },
    { method: 'POST', path: ['v1', 'webhooks'], scope: 'webhooks:write', handle: api.create },
    { method: 'GET', path: ['v1', 'webhooks', 'webhook-events'], scope: 'webhooks:read', handle: api.events },
    { method: 'GET', path: ['v1', 'webhooks', 'webhook-deliveries', ':id'], scope: 'webhooks:read', handle: api.delivery },
    { method: 'POST', path: ['v1', 'webhooks', 'webhook-deliveries', ':id', 'retry'], scope: 'webhooks:write', handle: api.retry },
    { method: 'GET', path: ['v1', 'webhooks', ':id'], scope: 'webhooks:read', handle: api.get },
    { method: 'PATCH', path: ['v1', 'webhooks', ':id'], scope: 'webhooks:write', handle: api.update },
    { method: 'DELETE', path: ['v1', 'webhooks', ':id'], scope: 'webhooks:write', handle: api.remove },
    { method: 'POST', path: ['v1', 'webhooks', ':id', 'test'], scope: 'webhooks:write', handle: api.test },
    { method: 'GET', path: ['v1', 'webhooks', ':id', 'deliveries'], scope: 'webhooks:read', handle: api.deliveries },
  ];

  async function triggerEvent(req: IncomingMessage): Promise<Reply> {
    // JSON only: a web page cannot send that cross-origin without a preflight, so no page can trigger events.
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      throw new ApiError(415, 'unsupported_media_type', 'send the event as Content-Type: application/json');
    }
    const body = parseJsonObject(await readBody(req));
    rejectUnknownFields(body, ['type', 'data']);
    const type = validateEventType('type', body.type);
    const data = body.data ?? {};
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw badRequest('invalid_field', 'data: must be a JSON object');
    const payload = { ...samplePayload(type, new Date(clock.now())), ...data, event: type };
    const deliveries = await deliverer.deliverEvent(DEMO_ACCOUNT, type, payload);
    return { status: 202, body: { id: newId('evt'), type, payload, deliveries } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const pathname = target.split('?')[0]!;
    const query = new URLSearchParams(target.includes('?') ? target.slice(target.indexOf('?') + 1) : '');
    let segments: string[];
    try {
      segments = pathname.split('/').slice(1).map(decodeURIComponent);
    } catch {
      throw badRequest('invalid_path', 'the request path is not valid percent-encoding');
    }
    const method = req.method ?? 'GET';
    const path = segments.join('/');

    if (path === 'v1/oauth/token') {
      if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', 'use POST', { allow: 'POST' });
      return handleTokenRequest(req, res, store, tokenTtlSeconds, clock.now());
    }
    if (path === '_sandbox/events') {
      if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', 'use POST', { allow: 'POST' });
      const reply = await triggerEvent(req);
      return sendJson(res, reply.status, reply.body);
    }

    const matches = routes.flatMap((route) => {
      const params = matchPath(route.path, segments);
      return params ? [{ route, params }] : [];
    });
    if (matches.length === 0) throw new ApiError(404, 'not_found', `no such endpoint: ${method} ${pathname}`);
    const match = matches.find((m) => m.route.method === method);
    if (!match) {
      const allow = matches.map((m) => m.route.method).join(', ');
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed here; use ${allow}`, { allow });
    }
    const now = clock.now();
    const principal = authenticate(req, store, match.route.scope!, now);
    const reply = await match.route.handle({ req, query, params: match.params, principal, now });
    if (reply.status === 204) return sendEmpty(res, 204);
    sendJson(res, reply.status, reply.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof ApiError) {
        sendApiError(res, error);
        if (error.headers.connection === 'close') req.resume();
        return;
      }
      // A bug of ours: say so, without the internals, and keep serving.
      process.stderr.write(`whsvc sandbox: internal error on ${req.method} ${req.url}: ${(error as Error)?.stack ?? String(error)}\n`);
      sendApiError(res, new ApiError(500, 'internal_error', 'the sandbox failed to handle this request'));
    });
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  let closed: Promise<void> | undefined;
  return {
    server,
    store,
    deliverer,
    clients,
    async listen(port = 0, host = '127.0.0.1') {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      deliverer.start();
      return httpUrl(server.address() as AddressInfo);
    },
    close() {
      closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
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
