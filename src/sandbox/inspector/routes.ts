import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { DEMO_ACCOUNT, type Principal } from '../auth.js';
import { EVENT_CATALOG, samplePayload } from '../catalog.js';
import { isManual, type Clock } from '../clock.js';
import type { Cursors } from '../cursor.js';
import { deliveryHeaders, type Deliverer, type DeliveryPolicy } from '../deliverer.js';
import { ApiError, badRequest, notFound, readJsonObject, sendJson } from '../http.js';
import type { Reply, RouteContext } from '../routes.js';
import { DELIVERY_STATUS_SQL, deliveryStatus, type AttemptStatus, type Store } from '../store.js';
import { parseLimit, rejectUnknownFields, validateEventType } from '../validation.js';
import { isLoopbackHost } from '../../net.js';
import { sameSecret, signatureHeaderName } from '../../signing/signature.js';
import { shellQuote } from '../../render/text.js';
import type {
  DeliveryStatus,
  InspectorAttempt,
  InspectorChange,
  InspectorDelivery,
  InspectorDeliveryItem,
  InspectorDeliveryPage,
  InspectorOverview,
  InspectorWebhook,
} from './types.js';

// The inspector: the page at the sandbox's base address and the routes it
// reads, all under /_sandbox/inspector/ (the page itself at /). Read-only data
// routes (overview, deliveries, one delivery, a live stream of changes) and
// four actions the interface already has (retry, test send, trigger, clock).
// No answer of these ever holds a signing secret, a client secret or a token:
// every view below names its fields one by one.
//
// Access: on a loopback address no login is needed, but the Host header must
// be a loopback name (so a web page rebinding its DNS name to 127.0.0.1 reads
// nothing). On any other address every route needs the token printed at start
// (`/?token=…` once, then a cookie; or the X-Whsvc-Inspector-Token header).

export interface InspectorDeps {
  store: Store;
  deliverer: Deliverer;
  clock: Clock;
  cursors: Cursors;
  policy: DeliveryPolicy;
  /** POST /_sandbox/events, as the sandbox answers it. */
  trigger: (req: IncomingMessage) => Promise<Reply>;
  /** POST /_sandbox/clock, as the sandbox answers it. */
  moveClock: (ctx: RouteContext) => Promise<Reply>;
}

export interface Inspector {
  /** Sets who may read the inspector, from the address the sandbox listens on. */
  expose(address: AddressInfo): void;
  /** Refuses (403) a request named for another host while the sandbox listens on loopback: no DNS rebinding. */
  checkLoopbackHost(req: IncomingMessage): void;
  /** The inspector's address for a base URL: the base address, with the token when one is needed. */
  url(baseUrl: string): string;
  /** Whether the path (the request's, without its leading slash, decoded) is one of the inspector's routes (the page, at /, aside). */
  owns(path: string): boolean;
  /** Answers a request: `path` is '' for the page (/), else the decoded path without its leading slash. */
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void>;
  /** Ends the live streams. */
  close(): void;
}

const PREFIX = '_sandbox/inspector';

/** What the page is allowed to load and send: its own files, its own data, nothing from anywhere else. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};
const DATA_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/** The principal the inspector's actions run as: the demo account, which every webhook of the sandbox belongs to. */
const INSPECTOR_PRINCIPAL: Principal = { client_id: 'inspector', account_id: DEMO_ACCOUNT, scopes: ['webhooks:read', 'webhooks:write'] };

const ID = /^[A-Za-z0-9_-]{1,100}$/;
const STATUSES: readonly DeliveryStatus[] = ['delivered', 'failed', 'pending'];

const LIST_SQL = `SELECT * FROM (
  SELECT c.rowid AS seq, c.id, c.webhook_id, w.url AS webhook_url, c.event, c.created_at, c.next_due_at,
    ${DELIVERY_STATUS_SQL} AS status,
    (SELECT COUNT(*) FROM attempts n WHERE n.chain_id = c.id) AS attempt_count,
    l.response_code AS response_code, l.created_at AS last_attempt_at
  FROM chains c JOIN webhooks w ON w.id = c.webhook_id
  LEFT JOIN attempts l ON l.id = (SELECT x.id FROM attempts x WHERE x.chain_id = c.id ORDER BY x.attempt DESC LIMIT 1)
  WHERE w.account_id = :account
    AND (:before IS NULL OR c.rowid < :before)
    AND (:webhook IS NULL OR c.webhook_id = :webhook)
    AND (:event IS NULL OR c.event = :event)
    AND (:q IS NULL OR substr(c.id, 1, length(:q)) = :q
         OR EXISTS (SELECT 1 FROM attempts s WHERE s.chain_id = c.id AND substr(s.id, 1, length(:q)) = :q))
) WHERE (:status IS NULL OR status = :status)
ORDER BY seq DESC LIMIT :limit`;

const COUNTS_SQL = `SELECT webhook_id, COUNT(*) AS total, SUM(status = 'delivered') AS delivered, SUM(status = 'pending') AS pending,
  SUM(status = 'failed') AS failed, SUM(status = 'failed' AND next_due_at IS NOT NULL) AS retry_due
  FROM (SELECT c.webhook_id, c.next_due_at, ${DELIVERY_STATUS_SQL} AS status
    FROM chains c JOIN webhooks w ON w.id = c.webhook_id WHERE w.account_id = ?) GROUP BY webhook_id`;

type Row = Record<string, SQLInputValue>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const num = (value: SQLInputValue | undefined) => (value === null || value === undefined ? null : Number(value));
const str = (value: SQLInputValue | undefined) => (value === null || value === undefined ? null : String(value));

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address);
}

/** The host name of a Host header (`127.0.0.1:4010`, `[::1]:4010`, `localhost`). */
function hostName(host: string): string {
  const bracketed = /^(\[[^\]]*\])(?::\d*)?$/.exec(host);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return host.replace(/:\d*$/, '').toLowerCase();
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Refuses query parameters a route does not take (a typo would otherwise filter nothing, silently). */
function checkQuery(query: URLSearchParams, known: readonly string[]): void {
  for (const key of query.keys()) {
    if (key !== 'token' && !known.includes(key)) {
      throw badRequest(
        'invalid_parameter',
        `${key}: unknown query parameter; ${known.length ? `this route takes ${known.join(', ')}` : 'this route takes none'}`,
      );
    }
  }
}

function idParameter(name: string, value: string): string {
  if (!ID.test(value)) throw badRequest('invalid_parameter', `${name}: must be an id such as dlv_… or wh_… (letters, digits, _ and -)`);
  return value;
}

export function createInspector(deps: InspectorDeps): Inspector {
  const { store, deliverer, clock, cursors, policy } = deps;
  const signatureHeader = signatureHeaderName(policy.platformName);
  // Closed until the sandbox listens and says where.
  let token: string | undefined = randomBytes(24).toString('base64url');
  let cookieName = 'whsvc_inspector';
  let assets: Promise<{ html: string; css: string; js: string }> | undefined;
  const statements = new Map<string, StatementSync>();

  function all(sql: string, params: Record<string, SQLInputValue> | SQLInputValue[]): Row[] {
    let statement = statements.get(sql);
    if (!statement) {
      statement = store.db.prepare(sql);
      statements.set(sql, statement);
    }
    return (Array.isArray(params) ? statement.all(...params) : statement.all(params)) as Row[];
  }

  // --- the data -------------------------------------------------------------

  function overview(): InspectorOverview {
    const counts = new Map(all(COUNTS_SQL, [DEMO_ACCOUNT]).map((row) => [String(row.webhook_id), row]));
    const rows = store.listWebhooks(DEMO_ACCOUNT, { limit: 201 });
    const webhooks: InspectorWebhook[] = rows.slice(0, 200).map((w) => {
      const count = counts.get(w.id);
      const total = Number(count?.total ?? 0);
      const delivered = Number(count?.delivered ?? 0);
      const pending = Number(count?.pending ?? 0);
      const failed = Number(count?.failed ?? 0);
      const retryDue = Number(count?.retry_due ?? 0);
      return {
        id: w.id,
        url: w.url,
        events: w.events,
        active: w.active,
        created_at: w.created_at,
        deliveries: { total, delivered, pending, failed, retry_due: retryDue },
      };
    });
    return {
      sandbox: {
        version: WHSVC_VERSION,
        clock: isManual(clock) ? 'manual' : 'wall',
        now: new Date(clock.now()).toISOString(),
        signature_header: signatureHeader,
        max_attempts: policy.maxAttempts,
        retry_base_ms: policy.retryBaseMs,
        changes: store.changes,
      },
      catalog: EVENT_CATALOG.map(({ type, module, desc }) => ({ type, module, desc })),
      webhooks,
      webhooks_more: rows.length > 200,
      due: store.upcoming(5).map((due) => ({
        delivery_id: due.delivery_id,
        webhook_id: due.webhook_id,
        event: due.event,
        attempt: due.attempt,
        due_at: new Date(due.due_at).toISOString(),
      })),
    };
  }

  function deliveryItem(row: Row): InspectorDeliveryItem {
    return {
      id: String(row.id),
      webhook_id: String(row.webhook_id),
      webhook_url: String(row.webhook_url),
      event: String(row.event),
      status: String(row.status) as DeliveryStatus,
      response_code: num(row.response_code),
      attempt_count: Number(row.attempt_count),
      created_at: String(row.created_at),
      last_attempt_at: str(row.last_attempt_at),
      next_attempt_at: row.status === 'failed' ? iso(num(row.next_due_at)) : null,
    };
  }

  function deliveries(query: URLSearchParams): InspectorDeliveryPage {
    checkQuery(query, ['limit', 'cursor', 'webhook', 'event', 'status', 'q']);
    const limit = parseLimit(query.get('limit'));
    const webhook = query.get('webhook') || null;
    if (webhook !== null && !store.findWebhook(DEMO_ACCOUNT, idParameter('webhook', webhook))) throw notFound('webhook', webhook);
    const event = query.get('event') || null;
    if (event !== null) validateEventType('event', event);
    const status = query.get('status') || null;
    if (status !== null && !(STATUSES as readonly string[]).includes(status)) {
      throw badRequest('invalid_parameter', `status: must be one of ${STATUSES.join(', ')}`);
    }
    const q = query.get('q')?.trim() || null;
    if (q !== null) idParameter('q', q);
    const list = 'inspector:deliveries';
    const cursor = query.get('cursor');
    const before = cursor === null || cursor === '' ? null : cursors.decode(list, cursor);
    const rows = all(LIST_SQL, { account: DEMO_ACCOUNT, before, webhook, event, status, q, limit: limit + 1 });
    const hasMore = rows.length > limit;
    const items = rows.slice(0, limit);
    return {
      data: items.map(deliveryItem),
      has_more: hasMore,
      next_cursor: hasMore ? cursors.encode(list, Number(items[items.length - 1]!.seq)) : null,
    };
  }

  /** A delivery by its id, or by the id of one of its attempts. */
  function findChain(id: string): Row | undefined {
    const byChain = `SELECT c.id, c.webhook_id, c.event, c.body, c.signature, c.next_due_at, c.delivered, c.created_at,
        w.url AS webhook_url, w.active AS webhook_active
      FROM chains c JOIN webhooks w ON w.id = c.webhook_id WHERE c.id = ? AND w.account_id = ?`;
    const found = all(byChain, [id, DEMO_ACCOUNT])[0];
    if (found) return found;
    const owner = all('SELECT chain_id FROM attempts WHERE id = ?', [id])[0];
    return owner ? all(byChain, [String(owner.chain_id), DEMO_ACCOUNT])[0] : undefined;
  }

  function delivery(id: string): InspectorDelivery {
    const chain = findChain(idParameter('id', id));
    if (!chain) throw notFound('delivery', id);
    const chainId = String(chain.id);
    const event = String(chain.event);
    const attempts: InspectorAttempt[] = all(
      'SELECT id, attempt, status, response_code, response_body, error, duration_ms, created_at FROM attempts WHERE chain_id = ? ORDER BY attempt',
      [chainId],
    ).map((row) => {
      const headers = deliveryHeaders(policy, { id: chainId, event, signature: String(chain.signature) }, Number(row.attempt), String(row.id));
      return {
        id: String(row.id),
        attempt: Number(row.attempt),
        status: String(row.status) as AttemptStatus,
        response_code: num(row.response_code),
        duration_ms: num(row.duration_ms),
        failure_reason: str(row.error),
        response_body: str(row.response_body),
        created_at: String(row.created_at),
        headers,
      };
    });
    const last = attempts[attempts.length - 1];
    const nextDue = num(chain.next_due_at);
    const status: DeliveryStatus = deliveryStatus(Number(chain.delivered) === 1, last?.status);
    const body = String(chain.body);
    const signature = String(chain.signature);
    return {
      id: chainId,
      webhook_id: String(chain.webhook_id),
      webhook_url: String(chain.webhook_url),
      event,
      status,
      response_code: last?.response_code ?? null,
      attempt_count: attempts.length,
      created_at: String(chain.created_at),
      last_attempt_at: last?.created_at ?? null,
      next_attempt_at: status === 'failed' ? iso(nextDue) : null,
      webhook_active: Number(chain.webhook_active) === 1,
      signature,
      signature_header: signatureHeader,
      body,
      attempts,
      verify_command: `printf '%s' ${shellQuote(body)} | whsvc verify --signature ${signature} --secret-file ./whsec.txt`,
    };
  }

  // --- the actions ------------------------------------------------------------

  async function retry(req: IncomingMessage, id: string): Promise<Reply> {
    const body = await readJsonObject(req);
    rejectUnknownFields(body, []);
    const found = delivery(id);
    const latest = found.attempts[found.attempts.length - 1]?.id ?? found.id;
    const retried = await deliverer.retry(found.id, latest);
    if (retried === 'already_delivered') {
      throw new ApiError(409, 'already_delivered', `delivery ${found.id} was delivered; only a failed or pending delivery is retried`);
    }
    if (!retried) throw notFound('delivery', id);
    return {
      status: 200,
      body: {
        delivery_id: retried.chain_id,
        attempt: { id: retried.id, attempt: retried.attempt, status: retried.status, response_code: retried.response_code },
      },
    };
  }

  async function testSend(req: IncomingMessage, webhookId: string): Promise<Reply> {
    const body = await readJsonObject(req);
    rejectUnknownFields(body, ['event']);
    const webhook = store.findWebhook(DEMO_ACCOUNT, idParameter('id', webhookId));
    if (!webhook) throw notFound('webhook', webhookId);
    const event = body.event === undefined ? 'invoice.paid' : validateEventType('event', body.event);
    const attempt = await deliverer.sendTest(webhook, event, samplePayload(event, new Date(clock.now())));
    if (!attempt) throw notFound('webhook', webhookId);
    return { status: 200, body: { delivery_id: attempt.chain_id, status: attempt.status, response_code: attempt.response_code } };
  }

  // --- the live stream ---------------------------------------------------------

  const streams = new Set<ServerResponse>();
  let ticker: ReturnType<typeof setInterval> | undefined;
  let sent = { changes: -1, clock: -1 };
  let lastWrite = 0;

  const change = (): InspectorChange => ({ changes: store.changes, now: new Date(clock.now()).toISOString() });
  const eventText = (data: InspectorChange) => `event: change\ndata: ${JSON.stringify(data)}\n\n`;

  function tick(): void {
    const manualNow = isManual(clock) ? clock.now() : 0;
    let text: string | undefined;
    if (store.changes !== sent.changes || manualNow !== sent.clock) {
      sent = { changes: store.changes, clock: manualNow };
      text = eventText(change());
    } else if (Date.now() - lastWrite > 15_000) {
      text = ': keep-alive\n\n';
    }
    if (text === undefined) return;
    lastWrite = Date.now();
    for (const res of streams) if (!res.destroyed) res.write(text);
  }

  function openStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...DATA_HEADERS });
    // Changes are looked for 4 times a second, whatever their number: a burst of thousands makes a few refreshes.
    res.write(`retry: 2000\n\n${eventText(change())}`);
    streams.add(res);
    const done = () => {
      streams.delete(res);
      if (streams.size === 0 && ticker !== undefined) {
        clearInterval(ticker);
        ticker = undefined;
      }
    };
    req.on('close', done);
    res.on('close', done);
    if (ticker === undefined) {
      sent = { changes: store.changes, clock: isManual(clock) ? clock.now() : 0 };
      lastWrite = Date.now();
      ticker = setInterval(tick, 250);
      ticker.unref();
    }
  }

  // --- access -------------------------------------------------------------------

  /** On loopback, a request named for another host (a page that rebound its DNS name to 127.0.0.1) is refused. */
  function checkLoopbackHost(req: IncomingMessage): void {
    if (token !== undefined) return;
    const host = req.headers.host;
    if (host !== undefined && !isLoopbackHost(hostName(host))) {
      throw new ApiError(
        403,
        'forbidden_host',
        'on loopback the sandbox answers this only at a loopback address (127.0.0.1, localhost): use the address `whsvc sandbox start` printed',
      );
    }
  }

  /** Throws the 401 or 403 a request gets before it reaches a route. */
  function checkAccess(req: IncomingMessage, query: URLSearchParams): void {
    if (token === undefined) {
      checkLoopbackHost(req);
      return;
    }
    const given = query.get('token') ?? cookieValue(req.headers.cookie, cookieName) ?? req.headers['x-whsvc-inspector-token'];
    if (typeof given !== 'string' || !sameSecret(given, token)) {
      throw new ApiError(
        401,
        'inspector_token_required',
        'this sandbox listens on a network address: the inspector needs the token `whsvc sandbox start` printed (open the inspector address it printed, with ?token=…)',
      );
    }
  }

  function checkSameOrigin(req: IncomingMessage): void {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== req.headers.host) throw new ApiError(403, 'cross_origin', 'the inspector takes actions only from its own page');
  }

  async function page(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    checkQuery(query, []);
    try {
      checkAccess(req, query);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      const text = `<!doctype html><meta charset="utf-8"><title>whsvc sandbox inspector</title>
<p>This sandbox listens on a network address, so its inspector needs the token that <code>whsvc sandbox start</code> printed.
Open the inspector address it printed (it ends in <code>/?token=…</code>).</p>\n`;
      res.writeHead(401, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS, 'cache-control': 'no-store' });
      res.end(text);
      return;
    }
    if (token !== undefined && query.has('token')) {
      // The token becomes a cookie of this page only, and leaves the address bar (and the history).
      res.writeHead(303, {
        location: '/',
        'set-cookie': `${cookieName}=${token}; HttpOnly; SameSite=Lax; Path=/`,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
      res.end();
      return;
    }
    const { html } = await loadPage();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...PAGE_HEADERS });
    res.end(html);
  }

  function loadPage() {
    assets ??= import('./assets.js').then((module) => module.loadAssets());
    assets.catch(() => (assets = undefined));
    return assets;
  }

  async function asset(res: ServerResponse, kind: 'js' | 'css'): Promise<void> {
    const loaded = await loadPage();
    const text = kind === 'js' ? loaded.js : loaded.css;
    res.writeHead(200, {
      'content-type': kind === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    res.end(text);
  }

  function methods(req: IncomingMessage, allowed: string): void {
    if (req.method !== allowed) throw new ApiError(405, 'method_not_allowed', `${req.method} is not allowed here; use ${allowed}`, { allow: allowed });
  }

  return {
    expose(address) {
      if (isLoopbackAddress(address.address)) {
        token = undefined;
      } else {
        token ??= randomBytes(24).toString('base64url');
      }
      cookieName = `whsvc_inspector_${address.port}`;
    },

    checkLoopbackHost,

    url(baseUrl) {
      return `${baseUrl}/${token === undefined ? '' : `?token=${token}`}`;
    },

    owns(path) {
      return path === PREFIX || path.startsWith(`${PREFIX}/`);
    },

    async handle(req, res, path, query) {
      if (path === '') {
        methods(req, 'GET');
        return page(req, res, query);
      }
      checkAccess(req, query);
      const rest = path === PREFIX ? [] : path.slice(PREFIX.length + 1).split('/');
      const route = rest.join('/');
      const send = (status: number, body: unknown) => sendJson(res, status, body, DATA_HEADERS);
      if (route === '') {
        methods(req, 'GET');
        res.writeHead(308, { location: '/' });
        res.end();
        return;
      }
      if (route === 'app.js' || route === 'style.css') {
        methods(req, 'GET');
        checkQuery(query, []);
        return asset(res, route === 'app.js' ? 'js' : 'css');
      }
      const [api, resource, id, action, ...extra] = rest;
      if (api !== 'api' || extra.length > 0) throw new ApiError(404, 'not_found', `no such inspector route: ${req.method} /${path}`);
      if (resource === 'overview' && id === undefined) {
        methods(req, 'GET');
        checkQuery(query, []);
        return send(200, overview());
      }
      if (resource === 'stream' && id === undefined) {
        methods(req, 'GET');
        checkQuery(query, []);
        return openStream(req, res);
      }
      if (resource === 'deliveries' && id === undefined) {
        methods(req, 'GET');
        return send(200, deliveries(query));
      }
      if (resource === 'deliveries' && id !== undefined && action === undefined) {
        methods(req, 'GET');
        checkQuery(query, []);
        return send(200, delivery(id));
      }
      // The actions: JSON bodies only (no form of another site can send one), and from this page only.
      if (resource === 'deliveries' && id !== undefined && action === 'retry') {
        methods(req, 'POST');
        checkSameOrigin(req);
        checkQuery(query, []);
        const reply = await retry(req, id);
        return send(reply.status, reply.body);
      }
      if (resource === 'webhooks' && id !== undefined && action === 'test') {
        methods(req, 'POST');
        checkSameOrigin(req);
        checkQuery(query, []);
        const reply = await testSend(req, id);
        return send(reply.status, reply.body);
      }
      if (resource === 'events' && id === undefined) {
        methods(req, 'POST');
        checkSameOrigin(req);
        checkQuery(query, []);
        const reply = await deps.trigger(req);
        return send(reply.status, reply.body);
      }
      if (resource === 'clock' && id === undefined) {
        methods(req, 'POST');
        checkSameOrigin(req);
        checkQuery(query, []);
        const reply = await deps.moveClock({ req, query, params: {}, principal: INSPECTOR_PRINCIPAL, now: clock.now() });
        return send(reply.status, reply.body);
      }
      throw new ApiError(404, 'not_found', `no such inspector route: ${req.method} /${path}`);
    },

    close() {
      if (ticker !== undefined) clearInterval(ticker);
      ticker = undefined;
      for (const res of streams) res.end();
      streams.clear();
    },
  };
}
