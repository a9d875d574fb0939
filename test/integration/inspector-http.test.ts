import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { ManualSandboxClock } from '../../src/sandbox/clock.js';
import type { InspectorDelivery, InspectorDeliveryPage, InspectorOverview } from '../../src/sandbox/inspector/types.js';
import { http, getToken, postEvent, postWebhook, type HttpResult } from '../helpers/http.js';
import { startSandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// The inspector's routes, in process (the page's files bundled from src/ on
// first use): what each answers, what it refuses, who may read it, and that
// no answer ever holds a secret.

const API = '/_sandbox/inspector/api';

let sandbox: Sandbox;
let base: string;
let receiver: Receiver;
let token: string;
const secrets: string[] = [];
let okHook: { id: string; url: string };
let failHook: { id: string; url: string };

beforeAll(async () => {
  receiver = await startReceiver((request) => (request.path.startsWith('/fail') ? 500 : 200));
  sandbox = createSandbox({ policy: { retryBaseMs: 100, maxAttempts: 2, timeoutMs: 5_000 } });
  base = await sandbox.listen(0, '127.0.0.1');
  token = await getToken(base, sandbox.clients[0]!.client_id, sandbox.clients[0]!.client_secret);
  secrets.push(token, ...sandbox.clients.map((c) => c.client_secret));
  okHook = await createWebhook('/ok', ['invoice.paid', 'product.updated']);
  failHook = await createWebhook('/fail', ['sales_order.created']);
});

afterAll(async () => {
  await sandbox?.close();
  await receiver?.close();
});

/** A webhook to the receiver at `path`; its secret is one the inspector must never show. */
async function createWebhook(path: string, events: string[]) {
  const created = await postWebhook(base, token, receiver.url + path, events);
  secrets.push(created.signing_secret);
  return created;
}

const trigger = (type: string, data?: Record<string, unknown>) => postEvent(base, type, data);

const get = (path: string, headers: Record<string, string> = {}) => http(base, 'GET', path, { headers });
const post = (path: string, body: unknown = {}, headers: Record<string, string> = {}) => http(base, 'POST', path, { body, headers });

function expectError(result: HttpResult, status: number, code: string) {
  expect(result.status, result.text).toBe(status);
  expect(result.headers.get('content-type')).toContain('application/json');
  expect(Object.keys(result.json)).toEqual(['error']);
  expect(result.json.error.code).toBe(code);
  expect(result.json.error.message).toMatch(/^[^\n]{10,}$/);
}

/** Reads one delivery until `predicate` holds: attempts end in the background. */
function waitForDelivery(id: string, predicate: (d: InspectorDelivery) => boolean, timeout = 30_000): Promise<InspectorDelivery> {
  return vi.waitFor(
    async () => {
      const result = await get(`${API}/deliveries/${id}`);
      expect(result.status, result.text).toBe(200);
      expect(predicate(result.json), `delivery ${id}: ${result.text}`).toBe(true);
      return result.json as InspectorDelivery;
    },
    { timeout, interval: 50 },
  );
}

/** GET with a Host header of the test's choosing (fetch does not let one set it). */
function getWithHost(path: string, host: string, post?: unknown): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: post === undefined ? 'GET' : 'POST',
        headers: { host, ...(post === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(post === undefined ? undefined : JSON.stringify(post));
  });
}

/** The first events of the live stream, then hangs up. */
async function readStream(baseUrl: string, events: number, during?: () => Promise<unknown>, headers: Record<string, string> = {}): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}${API}/stream`, { signal: controller.signal, headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = response.body!.getReader();
  let text = '';
  let started = false;
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    while ((text.match(/^event: change$/gm) ?? []).length < events) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
      if (!started && during && text.includes('event: change')) {
        started = true;
        await during();
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return text;
}

describe('the page', () => {
  it('is served at the base address, with its script and style, and a policy that loads nothing from elsewhere', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(page.text).toContain('<script src="/_sandbox/inspector/app.js" defer></script>');
    // No request leaves the machine: no absolute URL anywhere in the page or its files.
    const js = await get('/_sandbox/inspector/app.js');
    const css = await get('/_sandbox/inspector/style.css');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const text of [page.text, css.text]) expect(text).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(js.text).not.toMatch(/["'`](https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect((await get('/_sandbox/inspector')).status).toBe(200); // redirected to /
  });

  it('sets every delivery value as text: the client code never parses HTML', () => {
    const source = readFileSync(new URL('../../src/sandbox/inspector/client/app.ts', import.meta.url), 'utf8').replace(/^\s*\/\/.*$/gm, '');
    expect(source).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/);
  });
});

describe('data routes', () => {
  let okDelivery: string;
  let failDelivery: string;

  beforeAll(async () => {
    okDelivery = (await trigger('invoice.paid', { id: 'inv_http_1' }))[0]!;
    failDelivery = (await trigger('sales_order.created'))[0]!;
    await waitForDelivery(okDelivery, (d) => d.status === 'delivered');
    await waitForDelivery(failDelivery, (d) => d.status === 'failed' && d.attempt_count === 2);
  });

  it('overview: the webhooks with their counts, the catalog, the clock; no secret', async () => {
    const result = await get(`${API}/overview`);
    expect(result.status).toBe(200);
    expect(result.headers.get('cache-control')).toBe('no-store');
    const overview = result.json as InspectorOverview;
    expect(overview.sandbox).toMatchObject({ clock: 'wall', signature_header: 'X-Service-Signature', max_attempts: 2, retry_base_ms: 100 });
    expect(overview.catalog.map((e) => e.type)).toContain('invoice.paid');
    const ok = overview.webhooks.find((w) => w.id === okHook.id)!;
    expect(Object.keys(ok).sort()).toEqual(['active', 'created_at', 'deliveries', 'events', 'id', 'url']);
    expect(ok.url).toBe(okHook.url);
    expect(ok.deliveries.delivered).toBeGreaterThanOrEqual(1);
    const failing = overview.webhooks.find((w) => w.id === failHook.id)!;
    expect(failing.deliveries.failed).toBeGreaterThanOrEqual(1);
  });

  it('deliveries: newest first, one row per delivery with its status, last answer and attempt count', async () => {
    const page = (await get(`${API}/deliveries`)).json as InspectorDeliveryPage;
    const ids = page.data.map((d) => d.id);
    expect(ids.indexOf(failDelivery)).toBeLessThan(ids.indexOf(okDelivery));
    expect(page.data.find((d) => d.id === failDelivery)).toMatchObject({
      webhook_id: failHook.id,
      webhook_url: failHook.url,
      event: 'sales_order.created',
      status: 'failed',
      response_code: 500,
      attempt_count: 2,
      next_attempt_at: null,
    });
    expect(page.data.find((d) => d.id === okDelivery)).toMatchObject({ status: 'delivered', response_code: 200, attempt_count: 1 });
  });

  it('filters by webhook, event type, status, and a search by delivery or attempt id', async () => {
    const ids = async (query: string) => ((await get(`${API}/deliveries?${query}`)).json as InspectorDeliveryPage).data.map((d) => d.id);
    expect(await ids(`webhook=${failHook.id}`)).toContain(failDelivery);
    expect(await ids(`webhook=${failHook.id}`)).not.toContain(okDelivery);
    expect(await ids('event=invoice.paid')).toEqual(expect.arrayContaining([okDelivery]));
    expect(await ids('event=invoice.paid')).not.toContain(failDelivery);
    expect(await ids('status=failed')).toContain(failDelivery);
    expect(await ids('status=failed')).not.toContain(okDelivery);
    expect(await ids(`q=${okDelivery}`)).toEqual([okDelivery]);
    expect(await ids(`q=${okDelivery.slice(0, 12)}`)).toContain(okDelivery);
    const retryAttempt = (await get(`${API}/deliveries/${failDelivery}`)).json.attempts[1].id as string;
    expect(await ids(`q=${retryAttempt}`)).toEqual([failDelivery]);
    expect(await ids('q=dlv_nothing_like_it')).toEqual([]);
  });

  it('one delivery: every attempt with its headers, outcome and answer; the body, the signature and a verify line', async () => {
    const d = await waitForDelivery(failDelivery, () => true);
    expect(d.attempts.map((a) => [a.attempt, a.status, a.response_code, a.failure_reason])).toEqual([
      [1, 'failed', 500, 'endpoint answered 500'],
      [2, 'failed', 500, 'endpoint answered 500'],
    ]);
    expect(d.attempts[0]!.id).toBe(failDelivery);
    expect(d.attempts[1]!.response_body).toBe('answer from the test receiver');
    expect(d.attempts[1]!.headers).toMatchObject({
      'content-type': 'application/json',
      'X-Service-Signature': d.signature,
      'X-Service-Event': 'sales_order.created',
      'X-Service-Delivery-Id': failDelivery,
      'X-Service-Attempt': '2',
      'X-Service-Attempt-Id': d.attempts[1]!.id,
    });
    // The headers shown are the ones the receiver got.
    const got = receiver.received.find((r) => r.headers['x-service-attempt-id'] === d.attempts[1]!.id)!;
    for (const [name, value] of Object.entries(d.attempts[1]!.headers)) expect(got.headers[name.toLowerCase()]).toBe(value);
    expect(got.body).toBe(d.body);
    expect(d.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(d.verify_command).toBe(`printf '%s' '${d.body}' | whsvc verify --signature ${d.signature} --secret-file ./whsec.txt`);
    // By an attempt's id too.
    expect((await get(`${API}/deliveries/${d.attempts[1]!.id}`)).json.id).toBe(failDelivery);
  });

  it('pages with a cursor: every delivery once, newest first', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push(...(await trigger('product.updated')));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const result = await get(`${API}/deliveries?event=product.updated&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(result.status, result.text).toBe(200);
      const page = result.json as InspectorDeliveryPage;
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((d) => d.id));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([...made].reverse());
  });

  it.each([
    ['limit=0', 400, 'invalid_parameter'],
    ['limit=500', 400, 'invalid_parameter'],
    ['status=lost', 400, 'invalid_parameter'],
    ['event=invoice.unpaid', 400, 'invalid_field'],
    ['webhook=wh_000000000000000000000000', 404, 'not_found'],
    ['webhook=%3Cscript%3E', 400, 'invalid_parameter'],
    ['q=%3Cb%3E', 400, 'invalid_parameter'],
    ['cursor=bogus', 400, 'invalid_cursor'],
    ['statuses=failed', 400, 'invalid_parameter'],
    ['limit=1&limit=2', 400, 'invalid_parameter'],
  ])('deliveries?%s is %i %s, one line', async (query, status, code) => {
    expectError(await get(`${API}/deliveries?${query}`), status, code);
  });

  it("answers unknown ids, routes and methods with the sandbox's JSON errors", async () => {
    expectError(await get(`${API}/deliveries/dlv_000000000000000000000000`), 404, 'not_found');
    expectError(await get(`${API}/deliveries/%3Cscript%3E`), 400, 'invalid_parameter');
    expectError(await get(`${API}/nothing`), 404, 'not_found');
    expectError(await get(`${API}/deliveries/${okDelivery}/attempts/extra`), 404, 'not_found');
    expectError(await get('/_sandbox/inspector/app.js.map'), 404, 'not_found');
    expectError(await http(base, 'DELETE', `${API}/overview`), 405, 'method_not_allowed');
    expectError(await http(base, 'POST', '/'), 405, 'method_not_allowed');
    expectError(await get(`${API}/overview?x=1`), 400, 'invalid_parameter');
    expectError(await get(`${API}/deliveries/${okDelivery}/retry`), 405, 'method_not_allowed');
  });
});

describe('actions', () => {
  it('retries a failed delivery: a new attempt, sent at once, and 409 once it is delivered', async () => {
    const [id] = await trigger('sales_order.created');
    await waitForDelivery(id!, (d) => d.status === 'failed' && d.attempt_count === 2);
    const before = receiver.received.length;
    receiver.respondWith = () => 200;
    try {
      const result = await post(`${API}/deliveries/${id}/retry`);
      expect(result.status, result.text).toBe(200);
      expect(result.json).toMatchObject({ delivery_id: id, attempt: { attempt: 3, status: 'delivered', response_code: 200 } });
      expect(receiver.received.length).toBe(before + 1);
      const d = await waitForDelivery(id!, () => true);
      expect(d.status).toBe('delivered');
      expect(d.attempts.map((a) => a.status)).toEqual(['failed', 'failed', 'delivered']);
      expectError(await post(`${API}/deliveries/${id}/retry`), 409, 'already_delivered');
    } finally {
      receiver.respondWith = (request) => (request.path.startsWith('/fail') ? 500 : 200);
    }
  });

  it('takes actions only as JSON, from its own page', async () => {
    const [id] = await trigger('sales_order.created');
    await waitForDelivery(id!, (d) => d.status === 'failed' && d.attempt_count === 2);
    expectError(await http(base, 'POST', `${API}/deliveries/${id}/retry`), 415, 'unsupported_media_type');
    expectError(
      await http(base, 'POST', `${API}/deliveries/${id}/retry`, { rawBody: '{}', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    expectError(await post(`${API}/deliveries/${id}/retry`, {}, { origin: 'https://evil.example' }), 403, 'cross_origin');
    expectError(await post(`${API}/deliveries/${id}/retry`, { force: true }), 400, 'unknown_field');
    expect((await post(`${API}/deliveries/${id}/retry`, {}, { origin: base })).status).toBe(200);
  });

  it('sends a test event to a webhook, and triggers an event of the catalog', async () => {
    const test = await post(`${API}/webhooks/${okHook.id}/test`, { event: 'product.updated' });
    expect(test.status, test.text).toBe(200);
    expect(test.json).toMatchObject({ status: 'delivered', response_code: 200 });
    expect((await waitForDelivery(test.json.delivery_id, () => true)).event).toBe('product.updated');
    expectError(await post(`${API}/webhooks/${okHook.id}/test`, { event: 'nope' }), 400, 'invalid_field');
    expectError(await post(`${API}/webhooks/wh_000000000000000000000000/test`), 404, 'not_found');

    const triggered = await post(`${API}/events`, { type: 'invoice.paid' });
    expect(triggered.status, triggered.text).toBe(202);
    expect(triggered.json.deliveries).toHaveLength(1);
    expectError(await post(`${API}/events`, { type: 'nope' }), 400, 'invalid_field');
  });

  it('moves only a manual clock', async () => {
    expectError(await post(`${API}/clock`, { advance_ms: 1000 }), 409, 'clock_not_manual');
  });
});

describe('live', () => {
  it('streams a change event at once, and another when a delivery happens', async () => {
    const text = await readStream(base, 2, () => trigger('invoice.paid'));
    const changes = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { changes: number; now: string });
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(changes[1]!.changes).toBeGreaterThan(changes[0]!.changes);
  });
});

describe('no secret, anywhere', () => {
  it('the page, its files and every data route hold no signing secret, client secret nor token', async () => {
    const texts: string[] = [];
    for (const path of ['/', '/_sandbox/inspector/app.js', '/_sandbox/inspector/style.css', `${API}/overview`]) texts.push((await get(path)).text);
    let cursor: string | null = null;
    do {
      const result = await get(`${API}/deliveries?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      texts.push(result.text);
      const page = result.json as InspectorDeliveryPage;
      for (const d of page.data) texts.push((await get(`${API}/deliveries/${d.id}`)).text);
      cursor = page.next_cursor;
    } while (cursor);
    texts.push(await readStream(base, 1));
    expect(texts.length).toBeGreaterThan(10);
    expect(secrets.length).toBe(5);
    for (const text of texts) {
      for (const secret of secrets) expect(text.includes(secret), `a secret in ${text.slice(0, 120)}`).toBe(false);
      expect(text).not.toMatch(/signing_secret|client_secret|access_token|whsec_|sbx_secret_|sbx_at_/);
    }
  });
});

describe('who may read it', () => {
  it('on loopback: no login, but only at a loopback name (a page rebinding its DNS name to 127.0.0.1 reads nothing)', async () => {
    const port = new URL(base).port;
    expect((await getWithHost(`${API}/overview`, `127.0.0.1:${port}`)).status).toBe(200);
    expect((await getWithHost(`${API}/overview`, `localhost:${port}`)).status).toBe(200);
    expect((await getWithHost('/', `localhost:${port}`)).status).toBe(200);
    const rebound = await getWithHost(`${API}/overview`, `evil.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.code).toBe('forbidden_host');
    expect((await getWithHost('/', 'evil.example')).status).toBe(403);
    // Nor can such a page make events occur through the sandbox's own trigger route, which needs no token.
    const triggered = await getWithHost('/_sandbox/events', `evil.example:${port}`, { type: 'invoice.paid' });
    expect(triggered.status).toBe(403);
    expect(JSON.parse(triggered.body).error.code).toBe('forbidden_host');
    expect(sandbox.inspector.url(base)).toBe(`${base}/`);
  });

  it('on another address: the page and every route need the token printed at start (once in the address, then a cookie)', async () => {
    const exposed = createSandbox();
    try {
      const listening = await exposed.listen(0, '0.0.0.0');
      const port = new URL(listening).port;
      const local = `http://127.0.0.1:${port}`;
      const url = exposed.inspector.url(listening);
      expect(url).toMatch(new RegExp(`^http://0\\.0\\.0\\.0:${port}/\\?token=[A-Za-z0-9_-]{32}$`));
      const secret = new URL(url).searchParams.get('token')!;

      const page = await http(local, 'GET', '/');
      expect(page.status).toBe(401);
      expect(page.text).toContain('?token=');
      for (const path of [`${API}/overview`, `${API}/deliveries`, `${API}/stream`, '/_sandbox/inspector/app.js']) {
        expectError(await http(local, 'GET', path), 401, 'inspector_token_required');
        expectError(await http(local, 'GET', path, { headers: { 'x-whsvc-inspector-token': `${secret}x` } }), 401, 'inspector_token_required');
      }
      expectError(await http(local, 'POST', `${API}/events`, { body: { type: 'invoice.paid' } }), 401, 'inspector_token_required');

      const entry = await fetch(`${local}/?token=${secret}`, { redirect: 'manual' });
      expect(entry.status).toBe(303);
      expect(entry.headers.get('location')).toBe('/');
      const cookie = entry.headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      const jar = cookie.split(';')[0]!;
      expect((await http(local, 'GET', '/', { headers: { cookie: jar } })).status).toBe(200);
      expect((await http(local, 'GET', `${API}/overview`, { headers: { cookie: jar } })).status).toBe(200);
      expect((await http(local, 'GET', `${API}/overview`, { headers: { 'x-whsvc-inspector-token': secret } })).status).toBe(200);
      expect((await http(local, 'GET', `${API}/overview?token=${secret}`)).status).toBe(200);
      // Any Host will do there: the token is the lock.
      expect((await http(local, 'GET', `${API}/deliveries`, { headers: { cookie: jar } })).status).toBe(200);
    } finally {
      await exposed.close();
    }
  });

  it('sandbox start on another address prints the token in the address on stdout (--json), never in its log: the page and the data routes refuse without it', async () => {
    const exposed = await startSandboxInProcess(['--host', '0.0.0.0', '--quiet']);
    try {
      const url = exposed.info.inspector_url;
      expect(url).toMatch(/\/\?token=[A-Za-z0-9_-]{32}$/);
      // The token is a credential: with --json it is on stdout only, never in the log on stderr.
      expect(exposed.stderr()).not.toContain(new URL(url).searchParams.get('token')!);
      const local = `http://127.0.0.1:${new URL(exposed.info.base_url).port}`;
      expect((await http(local, 'GET', '/')).status).toBe(401);
      const refused = await http(local, 'GET', `${API}/deliveries`);
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe('inspector_token_required');
      const allowed = await http(local, 'GET', `${API}/overview?token=${new URL(url).searchParams.get('token')}`);
      expect(allowed.status).toBe(200);
    } finally {
      expect(await exposed.stop()).toBe(0);
    }
  });
});

describe('with a manual clock', () => {
  it('advances the clock from the inspector, playing out the retries due', async () => {
    const clock = new ManualSandboxClock(Date.parse('2030-01-01T00:00:00Z'));
    const manual = createSandbox({ clock, policy: { retryBaseMs: 5_000, maxAttempts: 3 } });
    const failing = await startReceiver(() => 503);
    try {
      const manualBase = await manual.listen(0, '127.0.0.1');
      const t = await getToken(manualBase, manual.clients[0]!.client_id, manual.clients[0]!.client_secret);
      const created = await postWebhook(manualBase, t, `${failing.url}/x`);
      const [id] = await postEvent(manualBase);
      await failing.waitFor(1);
      const read = async () => (await http(manualBase, 'GET', `${API}/deliveries/${id}`)).json as InspectorDelivery;
      await vi.waitFor(async () => expect((await read()).attempts[0]?.status).not.toBe('pending'), { timeout: 20_000, interval: 25 });
      // Failed, with its automatic retry due: one word for the state, the retry said beside it (as the CLI says it).
      expect(await read()).toMatchObject({ status: 'failed', next_attempt_at: '2030-01-01T00:00:05.000Z' });
      const overview = (await http(manualBase, 'GET', `${API}/overview`)).json as InspectorOverview;
      expect(overview.sandbox.clock).toBe('manual');
      expect(overview.due).toEqual([{ delivery_id: id, webhook_id: created.id, event: 'invoice.paid', attempt: 2, due_at: '2030-01-01T00:00:05.000Z' }]);
      const moved = await http(manualBase, 'POST', `${API}/clock`, { body: { advance_ms: 3_600_000 } });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.json).toMatchObject({ sent: 2, failed: 2 });
      const after = await read();
      expect(after.status).toBe('failed');
      expect(after.attempts.map((a) => a.created_at)).toEqual(['2030-01-01T00:00:00.000Z', '2030-01-01T00:00:05.000Z', '2030-01-01T00:00:15.000Z']);
      expectError(await http(manualBase, 'POST', `${API}/clock`, { body: { advance_ms: -1 } }), 400, 'invalid_field');
    } finally {
      await manual.close();
      await failing.close();
    }
  });
});
