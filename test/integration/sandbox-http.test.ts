import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { http, getToken, postEvent, postWebhook, type HttpResult } from '../helpers/http.js';
import { startReceiver, type Receiver, type Received } from '../helpers/receiver.js';

/**
 * The system clock, plus an offset the test moves forward: to expire tokens, and with advance(), to have the retries
 * that then fall due sent. A timer set for later (the sandbox's one timer of retries) runs only when advance() passes
 * its time, so a retry goes when the test says, never while it looks elsewhere; one due now runs at once.
 */
const clock = {
  offset: 0,
  timers: new Map<object, { at: number; callback: () => void }>(),
  now: () => Date.now() + clock.offset,
  setTimeout(callback: () => void, ms: number): unknown {
    if (ms <= 0) return setImmediate(callback);
    const handle = {};
    clock.timers.set(handle, { at: clock.now() + ms, callback });
    return handle;
  },
  clearTimeout(handle: unknown): void {
    if (clock.timers.delete(handle as object)) return;
    clearImmediate(handle as NodeJS.Immediate);
  },
  /** Moves the clock `ms` forward, then runs the timers due by then, earliest first. */
  advance(ms: number): void {
    clock.offset += ms;
    const due = [...clock.timers].filter(([, timer]) => timer.at <= clock.now()).sort(([, a], [, b]) => a.at - b.at);
    for (const [handle, timer] of due) {
      clock.timers.delete(handle);
      timer.callback();
    }
  },
};

let sandbox: Sandbox;
let base: string;
let receiver: Receiver;
let rw: { id: string; secret: string };
let ro: { id: string; secret: string };
let token: string;

const RETRY_BASE_MS = 250;

beforeAll(async () => {
  receiver = await startReceiver();
  sandbox = createSandbox({ tokenTtlSeconds: 60, clock, policy: { retryBaseMs: RETRY_BASE_MS, maxAttempts: 4, timeoutMs: 5_000 } });
  base = await sandbox.listen(0, '127.0.0.1');
  rw = { id: sandbox.clients[0]!.client_id, secret: sandbox.clients[0]!.client_secret };
  ro = { id: sandbox.clients[1]!.client_id, secret: sandbox.clients[1]!.client_secret };
  token = await getToken(base, rw.id, rw.secret);
});

afterAll(async () => {
  await sandbox?.close();
  await receiver?.close();
});

const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) => http(base, method, path, { token, ...options });

const createWebhook = (path: string, events = ['invoice.paid'], fields: Record<string, unknown> = {}) =>
  postWebhook(base, token, receiver.url + path, events, fields);
const trigger = (type: string, data?: Record<string, unknown>) => postEvent(base, type, data);

function expectApiError(result: HttpResult, status: number, code: string, messagePart?: string) {
  expect(result.status, result.text).toBe(status);
  expect(Object.keys(result.json)).toEqual(['error']);
  expect(result.json.error.code).toBe(code);
  expect(typeof result.json.error.message).toBe('string');
  if (messagePart) expect(result.json.error.message).toContain(messagePart);
}

/** Polls a delivery list until `predicate` holds (deliveries happen in the background). */
function waitForDeliveries(webhookId: string, predicate: (items: any[]) => boolean, timeout = 20_000): Promise<any[]> {
  return vi.waitFor(
    async () => {
      const result = await call('GET', `/v1/webhooks/${webhookId}/deliveries?limit=200`);
      expect(predicate(result.json.data), `deliveries: ${JSON.stringify(result.json.data)}`).toBe(true);
      return result.json.data as any[];
    },
    { timeout, interval: 25 },
  );
}

describe('token endpoint', () => {
  it('issues a bearer token for a JSON body, with every scope when scope is omitted', async () => {
    const result = await http(base, 'POST', '/v1/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: rw.id, client_secret: rw.secret },
    });
    expect(result.status).toBe(200);
    expect(Object.keys(result.json).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(result.json).toMatchObject({ token_type: 'Bearer', expires_in: 60, scope: 'webhooks:read webhooks:write' });
    expect(result.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts form encoding with credentials in the body, and a narrower scope', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: rw.id, client_secret: rw.secret, scope: 'webhooks:read' });
    const result = await http(base, 'POST', '/v1/oauth/token', {
      rawBody: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(result.status).toBe(200);
    expect(result.json.scope).toBe('webhooks:read');
    const write = await http(base, 'POST', '/v1/webhooks', { token: result.json.access_token, body: { url: receiver.url, events: ['invoice.paid'] } });
    expectApiError(write, 403, 'insufficient_scope', 'webhooks:write');
  });

  it('accepts HTTP Basic client authentication (RFC 6749 2.3.1)', async () => {
    const basic = Buffer.from(`${encodeURIComponent(rw.id)}:${encodeURIComponent(rw.secret)}`).toString('base64');
    const result = await http(base, 'POST', '/v1/oauth/token', {
      rawBody: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    });
    expect(result.status, result.text).toBe(200);
    const wrong = Buffer.from(`${rw.id}:nope`).toString('base64');
    const refused = await http(base, 'POST', '/v1/oauth/token', {
      rawBody: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${wrong}` },
    });
    expect(refused.status).toBe(401);
    expect(refused.json.error).toBe('invalid_client');
    expect(refused.headers.get('www-authenticate')).toContain('Basic');
  });

  it.each([
    [{ client_id: 'x', client_secret: 'y' }, 400, 'invalid_request'],
    [{ grant_type: 'password', client_id: 'x', client_secret: 'y' }, 400, 'unsupported_grant_type'],
    [{ grant_type: 'client_credentials', client_id: 'sbx_demo_readwrite', client_secret: 'wrong' }, 401, 'invalid_client'],
    [{ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'wrong' }, 401, 'invalid_client'],
    [{ grant_type: 'client_credentials' }, 401, 'invalid_client'],
    [{ grant_type: 'client_credentials', client_id: 7, client_secret: 'y' }, 400, 'invalid_request'],
  ])('answers %j with %i %s (RFC 6749 error body)', async (body, status, code) => {
    const result = await http(base, 'POST', '/v1/oauth/token', { body });
    expect(result.status).toBe(status);
    expect(result.json.error).toBe(code);
    expect(typeof result.json.error_description).toBe('string');
  });

  it('refuses a scope the client does not have with invalid_scope', async () => {
    const result = await http(base, 'POST', '/v1/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: ro.id, client_secret: ro.secret, scope: 'webhooks:read webhooks:write' },
    });
    expect(result.status).toBe(400);
    expect(result.json.error).toBe('invalid_scope');
  });

  it('refuses two client authentication methods at once', async () => {
    const basic = Buffer.from(`${rw.id}:${rw.secret}`).toString('base64');
    const result = await http(base, 'POST', '/v1/oauth/token', {
      body: { grant_type: 'client_credentials', client_secret: rw.secret },
      headers: { authorization: `Basic ${basic}` },
    });
    expect(result.status).toBe(400);
    expect(result.json.error).toBe('invalid_request');
  });
});

describe('authentication and scopes', () => {
  it('answers 401 without a token, with an unknown token, and with an expired one', async () => {
    expectApiError(await http(base, 'GET', '/v1/webhooks'), 401, 'unauthorized');
    expectApiError(await http(base, 'GET', '/v1/webhooks', { token: 'made-up' }), 401, 'invalid_token');
    const shortLived = await getToken(base, rw.id, rw.secret);
    expect((await http(base, 'GET', '/v1/webhooks', { token: shortLived })).status).toBe(200);
    clock.offset += 61_000;
    try {
      const expired = await http(base, 'GET', '/v1/webhooks', { token: shortLived });
      expectApiError(expired, 401, 'invalid_token', 'expired');
      expect(expired.headers.get('www-authenticate')).toContain('invalid_token');
    } finally {
      clock.offset -= 61_000;
    }
  });

  it('answers 403 naming the scope to the read-only client on every write endpoint', async () => {
    const readOnly = await getToken(base, ro.id, ro.secret);
    const webhook = await createWebhook('/scope');
    expect((await http(base, 'GET', '/v1/webhooks', { token: readOnly })).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/v1/webhooks'],
      ['PATCH', `/v1/webhooks/${webhook.id}`],
      ['DELETE', `/v1/webhooks/${webhook.id}`],
      ['POST', `/v1/webhooks/${webhook.id}/test`],
      ['POST', '/v1/webhooks/webhook-deliveries/dlv_x/retry'],
    ] as const) {
      const result = await http(base, method, path, { token: readOnly, body: {} });
      expect(result.status, `${method} ${path}`).toBe(403);
      expect(result.json.error).toMatchObject({ code: 'insufficient_scope', required_scope: 'webhooks:write' });
      expect(result.json.error.message).toContain('webhooks:write');
    }
  });
});

describe('webhook endpoints', () => {
  it('create, retrieve, list, update and delete return exactly the interface fields', async () => {
    const created = await call('POST', '/v1/webhooks', { body: { url: `${receiver.url}/crud`, events: ['invoice.paid', 'product.updated'] } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json)).toEqual(['id', 'url', 'events', 'active', 'signing_secret', 'created_at']);
    expect(created.json).toMatchObject({ url: `${receiver.url}/crud`, events: ['invoice.paid', 'product.updated'], active: true });
    expect(created.json.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id = created.json.id as string;

    const got = await call('GET', `/v1/webhooks/${id}`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.json)).toEqual(['id', 'url', 'events', 'active', 'created_at']);

    const listed = await call('GET', '/v1/webhooks?limit=1');
    expect(Object.keys(listed.json)).toEqual(['data', 'has_more', 'next_cursor']);
    expect(listed.json.data[0].id).toBe(id);
    expect(Object.keys(listed.json.data[0])).toEqual(['id', 'url', 'events', 'active', 'created_at']);

    const updated = await call('PATCH', `/v1/webhooks/${id}`, { body: { active: false } });
    expect(updated.status).toBe(200);
    expect(Object.keys(updated.json)).toEqual(['id', 'url', 'events', 'active', 'updated_at']);
    expect(updated.json).toMatchObject({ active: false, events: ['invoice.paid', 'product.updated'], url: `${receiver.url}/crud` });

    const inactive = await call('GET', '/v1/webhooks?active=false&limit=200');
    expect(inactive.json.data.map((w: { id: string }) => w.id)).toContain(id);
    expect(inactive.json.data.every((w: { active: boolean }) => w.active === false)).toBe(true);

    const replaced = await call('PATCH', `/v1/webhooks/${id}`, { body: { events: ['inventory.changed'] } });
    expect(replaced.json.events).toEqual(['inventory.changed']);
    expect(replaced.json.active).toBe(false);

    const deleted = await call('DELETE', `/v1/webhooks/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectApiError(await call('GET', `/v1/webhooks/${id}`), 404, 'not_found', id);
    expectApiError(await call('DELETE', `/v1/webhooks/${id}`), 404, 'not_found');
  });

  it('creates an inactive webhook when active is false', async () => {
    const created = await call('POST', '/v1/webhooks', { body: { url: `${receiver.url}/x`, events: ['invoice.paid'], active: false } });
    expect(created.json.active).toBe(false);
  });

  it('lists the five catalog events grouped by module, with no cursor fields', async () => {
    const result = await call('GET', '/v1/webhooks/webhook-events');
    expect(result.status).toBe(200);
    expect(Object.keys(result.json)).toEqual(['data']);
    expect(result.json.data.map((e: { type: string }) => e.type).sort()).toEqual([
      'inventory.changed',
      'invoice.paid',
      'product.updated',
      'production_order.completed',
      'sales_order.created',
    ]);
    for (const entry of result.json.data) expect(Object.keys(entry)).toEqual(['type', 'module', 'desc']);
    const modules = result.json.data.map((e: { module: string }) => e.module);
    expect(modules).toEqual([...new Set(modules)]);
  });

  it('never takes the literal path segments as webhook ids', async () => {
    const patched = await call('PATCH', '/v1/webhooks/webhook-events', { body: { active: false } });
    expect(patched.status).toBe(405);
    expect(patched.headers.get('allow')).toBe('GET, HEAD');
    expectApiError(await call('GET', '/v1/webhooks/webhook-deliveries'), 404, 'not_found');
    expectApiError(await call('POST', '/v1/webhooks/webhook-events/test', { body: {} }), 404, 'not_found');
    expectApiError(await call('GET', '/v1/webhooks/webhook-deliveries/deliveries'), 404, 'not_found');
  });
});

/** A HEAD request as curl -I sends it, over a socket of its own: the status line, the headers, and whatever came after them. */
function head(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string>; after: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('end', () => {
      const end = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
      const fields = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers: fields, after: raw.slice(end + 4) });
    });
    const fields = Object.entries({ host: `${hostname}:${port}`, connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`HEAD ${path} HTTP/1.1\r\n${fields.join('')}\r\n`);
  });
}

describe('HEAD, wherever GET is (RFC 9110: curl -I, uptime probes)', () => {
  /** The headers of a GET, as fetch gives them, but for those fetch handles itself. */
  const headersOf = (result: HttpResult) =>
    Object.fromEntries([...result.headers.entries()].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));

  it('answers the status and headers of GET, with no body, on every GET route of the API, the sandbox and the inspector', async () => {
    const webhook = await createWebhook('/head');
    const [deliveryId] = await trigger('invoice.paid');
    const auth = { authorization: `Bearer ${token}` };
    for (const [path, headers] of [
      ['/v1/webhooks', auth],
      [`/v1/webhooks/${webhook.id}`, auth],
      ['/v1/webhooks/webhook-events', auth],
      [`/v1/webhooks/${webhook.id}/deliveries`, auth],
      [`/v1/webhooks/webhook-deliveries/${deliveryId}`, auth],
      ['/_sandbox/clock', auth],
      ['/v1/webhooks/wh_nothere', auth],
      ['/v1/webhooks', {}],
      ['/', {}],
      ['/_sandbox/inspector/app.js', {}],
      ['/_sandbox/inspector/style.css', {}],
      ['/_sandbox/inspector/api/overview', {}],
      [`/_sandbox/inspector/api/deliveries/${deliveryId}`, {}],
    ] as const) {
      const [got, answered] = await Promise.all([http(base, 'GET', path, { headers }), head(path, headers)]);
      expect(answered.status, path).toBe(got.status);
      const { date, connection, ...rest } = answered.headers;
      expect(date, path).toMatch(/ GMT$/);
      expect(rest, path).toEqual(headersOf(got));
      expect(answered.after, path).toBe('');
    }
  });

  it('the live stream answers its headers and ends', async () => {
    const answered = await head('/_sandbox/inspector/api/stream');
    expect(answered.status).toBe(200);
    expect(answered.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(answered.after).toBe('');
  });

  it('a route that has GET says so in Allow with HEAD beside it; one with POST only stays 405 to HEAD', async () => {
    const clock = await call('PUT', '/_sandbox/clock', { body: {} });
    expect(clock.status).toBe(405);
    expect(clock.headers.get('allow')).toBe('GET, HEAD, POST');
    const events = await head('/_sandbox/events');
    expect(events.status).toBe(405);
    expect(events.headers.allow).toBe('POST');
    expect(events.after).toBe('');
  });
});

describe('validation', () => {
  const valid = () => ({ url: `${receiver.url}/v`, events: ['invoice.paid'] });
  it.each([
    ['url missing', { events: ['invoice.paid'] }, 'url'],
    ['url not a string', { url: 5, events: ['invoice.paid'] }, 'url'],
    ['url relative', { url: '/hooks', events: ['invoice.paid'] }, 'url'],
    ['url http to a public host', { url: 'http://example.com/hook', events: ['invoice.paid'] }, 'https'],
    ['url ftp', { url: 'ftp://example.com/hook', events: ['invoice.paid'] }, 'url'],
    [
      'url with a newline (URL parsing would drop it silently)',
      { url: 'https://example.com/a\nsigning secret  whsec_FAKE', events: ['invoice.paid'] },
      'control characters',
    ],
    ['url with an escape sequence', { url: 'https://example.com/\u001b[31m', events: ['invoice.paid'] }, 'control characters'],
    ['url too long', { url: `https://example.com/${'a'.repeat(2100)}`, events: ['invoice.paid'] }, '2,048'],
    ['url with no host before the path (https:///x)', { url: 'https:///evil.example/x', events: ['invoice.paid'] }, 'scheme://host'],
    ['url with one slash (https:/x)', { url: 'https:/m.example/x', events: ['invoice.paid'] }, 'scheme://host'],
    ['url with a user name and password', { url: 'https://user:pass@example.com/h', events: ['invoice.paid'] }, 'user name'],
    ['url with a right-to-left override', { url: 'https://example.com/\u202egpj.exe', events: ['invoice.paid'] }, 'invisible'],
    ['url with a zero-width space', { url: 'https://exa\u200bmple.com/h', events: ['invoice.paid'] }, 'invisible'],
    ['url to the cloud metadata address', { url: 'https://169.254.169.254/latest/meta-data', events: ['invoice.paid'] }, 'link-local'],
    ['url to the metadata address written in hex', { url: 'https://0xA9FEA9FE/latest', events: ['invoice.paid'] }, 'link-local'],
    ['url to an IPv4-mapped link-local address', { url: 'https://[::ffff:169.254.169.254]/', events: ['invoice.paid'] }, 'link-local'],
    ['url to an IPv4-compatible link-local address', { url: 'https://[::a9fe:a9fe]/', events: ['invoice.paid'] }, 'link-local'],
    ['url to a NAT64 link-local address', { url: 'https://[64:ff9b::a9fe:a9fe]/', events: ['invoice.paid'] }, 'link-local'],
    ['url to an IPv6 link-local address', { url: 'https://[fe80::1]/h', events: ['invoice.paid'] }, 'link-local'],
    ['events missing', { url: 'https://example.com/h' }, 'events'],
    ['events empty', { url: 'https://example.com/h', events: [] }, 'events'],
    ['events not an array', { url: 'https://example.com/h', events: 'invoice.paid' }, 'events'],
    ['unknown event', { url: 'https://example.com/h', events: ['invoice.payed'] }, 'invoice.payed'],
    ['duplicate event', { url: 'https://example.com/h', events: ['invoice.paid', 'invoice.paid'] }, 'twice'],
    ['active not boolean', { url: 'https://example.com/h', events: ['invoice.paid'], active: 'yes' }, 'active'],
  ])('refuses a create with %s', async (_name, body, messagePart) => {
    expectApiError(await call('POST', '/v1/webhooks', { body }), 400, 'invalid_field', messagePart);
  });

  it('stores, shows and sends to the URL in its normalised form', async () => {
    const created = await call('POST', '/v1/webhooks', { body: { url: 'HTTPS://Example.COM:443/a/../hooks', events: ['invoice.paid'], active: false } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.url).toBe('https://example.com/hooks');
    expect((await call('GET', `/v1/webhooks/${created.json.id}`)).json.url).toBe('https://example.com/hooks');
    const patched = await call('PATCH', `/v1/webhooks/${created.json.id}`, { body: { url: 'https://bücher.example/x' } });
    expect(patched.json.url).toBe('https://xn--bcher-kva.example/x');
    expectApiError(await call('PATCH', `/v1/webhooks/${created.json.id}`, { body: { url: 'https://a:b@example.com/' } }), 400, 'invalid_field', 'user name');
  });

  it('answers 415 for a body that is not sent as JSON', async () => {
    const webhook = await createWebhook('/ct');
    const form = { rawBody: JSON.stringify(valid()), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    expectApiError(await call('POST', '/v1/webhooks', form), 415, 'unsupported_media_type', 'application/json');
    expectApiError(
      await call('PATCH', `/v1/webhooks/${webhook.id}`, { rawBody: '{"active":false}', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    expectApiError(
      await call('POST', `/v1/webhooks/${webhook.id}/test`, { rawBody: '{}', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    expect((await call('GET', `/v1/webhooks/${webhook.id}`)).json.active).toBe(true);
    // JSON with a charset, or a +json type, is JSON; a test send with no body at all needs no type.
    expect(
      (await call('PATCH', `/v1/webhooks/${webhook.id}`, { rawBody: '{"active":true}', headers: { 'content-type': 'application/json; charset=utf-8' } }))
        .status,
    ).toBe(200);
    expect((await call('POST', `/v1/webhooks/${webhook.id}/test`)).status).toBe(200);
  });

  it('accepts https anywhere and http on loopback hosts', async () => {
    for (const url of ['https://example.com/h', 'http://localhost:9/h', 'http://127.0.0.1:9/h', 'http://[::1]:9/h']) {
      expect((await call('POST', '/v1/webhooks', { body: { url, events: ['invoice.paid'], active: false } })).status, url).toBe(201);
    }
  });

  it('refuses unknown body fields, naming them', async () => {
    expectApiError(await call('POST', '/v1/webhooks', { body: { ...valid(), secret: 'x' } }), 400, 'unknown_field', 'secret');
    const webhook = await createWebhook('/u');
    expectApiError(await call('PATCH', `/v1/webhooks/${webhook.id}`, { body: { actve: true } }), 400, 'unknown_field', 'actve');
    expectApiError(await call('PATCH', `/v1/webhooks/${webhook.id}`, { body: { events: [] } }), 400, 'invalid_field', 'events');
    expectApiError(await call('POST', `/v1/webhooks/${webhook.id}/test`, { body: { event: 'nope' } }), 400, 'invalid_field', 'event');
  });

  it('a body over the limit, sent whole before the answer is read, still gets its 413: the rest is read and dropped first', async () => {
    const { port } = new URL(base);
    const body = Buffer.alloc(4 * 1024 * 1024, 'a');
    for (const declared of [true, false]) {
      for (let i = 0; i < 3; i++) {
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1');
          let text = '';
          socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
          socket.on('end', () => resolve(text));
          socket.on('error', (error) => reject(new Error(`${error.message} after ${JSON.stringify(text.slice(0, 40))}`)));
          const head = declared ? `content-length: ${body.length}` : 'transfer-encoding: chunked';
          socket.write(`POST /v1/webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\n${head}\r\n\r\n`);
          socket.write(declared ? body : Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]));
        });
        expect(answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(answer).toContain('"payload_too_large"');
      }
    }
  });

  it('refuses bodies that are not a JSON object, and too large ones with 413', async () => {
    expectApiError(await call('POST', '/v1/webhooks', { rawBody: '{"url":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expectApiError(await call('POST', '/v1/webhooks', { rawBody: '[1,2]', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expectApiError(await call('POST', '/v1/webhooks', { rawBody: '', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    const huge = JSON.stringify({ ...valid(), pad: 'x'.repeat(70_000) });
    expectApiError(
      await call('POST', '/v1/webhooks', { rawBody: huge, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
      'request body is larger than 64 KiB',
    );
    expect((await call('GET', '/v1/webhooks')).status).toBe(200);
  });

  it.each([
    ['/v1/webhooks?limit=0', 'limit'],
    ['/v1/webhooks?limit=201', 'limit'],
    ['/v1/webhooks?limit=abc', 'limit'],
    ['/v1/webhooks?limit=-1', 'limit'],
    ['/v1/webhooks?active=yes', 'active'],
  ])('refuses the query %s', async (path, part) => {
    expectApiError(await call('GET', path), 400, 'invalid_parameter', part);
  });

  it('refuses malformed and foreign cursors, and a bad status filter', async () => {
    const webhook = await createWebhook('/c');
    expectApiError(await call('GET', '/v1/webhooks?cursor=garbage!'), 400, 'invalid_cursor');
    expectApiError(await call('GET', '/v1/webhooks?cursor=Zm9vfDF8YmFy'), 400, 'invalid_cursor');
    expectApiError(await call('GET', `/v1/webhooks/${webhook.id}/deliveries?status=done`), 400, 'invalid_parameter', 'status');
    // A cursor of the webhook list is foreign to a delivery list.
    await createWebhook('/c2');
    const page = await call('GET', '/v1/webhooks?limit=1');
    expect(page.json.next_cursor).toEqual(expect.any(String));
    expectApiError(await call('GET', `/v1/webhooks/${webhook.id}/deliveries?cursor=${page.json.next_cursor}`), 400, 'invalid_cursor');
  });

  it('refuses a query parameter the route does not take, as a body field: a filter the interface lacks never filters nothing silently', async () => {
    const webhook = await createWebhook('/q');
    const since = await call('GET', `/v1/webhooks/${webhook.id}/deliveries?since=garbage`);
    expectApiError(since, 400, 'invalid_parameter', 'since: unknown query parameter; this route takes limit, cursor, status');
    expectApiError(await call('GET', '/v1/webhooks?status=failed'), 400, 'invalid_parameter', 'status: unknown query parameter');
    expectApiError(await call('GET', `/v1/webhooks/${webhook.id}?expand=all`), 400, 'invalid_parameter', 'this route takes none');
    expectApiError(await call('GET', '/v1/webhooks/webhook-events?limit=1'), 400, 'invalid_parameter', 'limit');
    // Those the interface gives are taken.
    expect((await call('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=5&status=failed`)).status).toBe(200);
    expect((await call('GET', '/v1/webhooks?limit=5&active=true')).status).toBe(200);
  });

  it("a 1 MB bearer token is 431 and a 1 MB client secret 413, each in its endpoint's error shape", async () => {
    const huge = 'x'.repeat(1024 * 1024);
    const header = await http(base, 'GET', '/v1/webhooks', { token: huge });
    expectApiError(header, 431, 'headers_too_large');
    const body = await http(base, 'POST', '/v1/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: rw.id, client_secret: huge },
    });
    // The token endpoint's errors are RFC 6749's shape.
    expect(body.status).toBe(413);
    expect(body.json).toEqual({ error: expect.any(String), error_description: expect.stringContaining('larger than') });
  });

  it('takes sandbox events as JSON only, so that no web page can trigger them', async () => {
    const form = await http(base, 'POST', '/_sandbox/events', { rawBody: '{"type":"invoice.paid"}', headers: { 'content-type': 'text/plain' } });
    expectApiError(form, 415, 'unsupported_media_type');
  });

  it('answers 404 for unknown ids on every id endpoint', async () => {
    for (const [method, path] of [
      ['GET', '/v1/webhooks/wh_missing'],
      ['PATCH', '/v1/webhooks/wh_missing'],
      ['DELETE', '/v1/webhooks/wh_missing'],
      ['POST', '/v1/webhooks/wh_missing/test'],
      ['GET', '/v1/webhooks/wh_missing/deliveries'],
      ['GET', '/v1/webhooks/webhook-deliveries/dlv_missing'],
      ['POST', '/v1/webhooks/webhook-deliveries/dlv_missing/retry'],
    ] as const) {
      const result = await call(method, path, method === 'PATCH' ? { body: { active: true } } : {});
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(result.json.error.code).toBe('not_found');
    }
  });

  it('never answers 500 nor dies, whatever the request', async () => {
    const odd: Array<[string, string, string | undefined, Record<string, string>]> = [
      ['GET', '/v1/webhooks/%E0%A4%A', undefined, {}],
      ['GET', '/v1/webhooks/%00', undefined, {}],
      ['GET', '/v1/webhooks?limit=1&limit=2&cursor=', undefined, {}],
      ['POST', '/v1/webhooks', 'null', { 'content-type': 'application/json' }],
      ['POST', '/v1/webhooks', '"text"', { 'content-type': 'application/json' }],
      ['POST', '/v1/webhooks', '{"url":{"a":1},"events":[null]}', { 'content-type': 'application/json' }],
      ['POST', '/v1/webhooks', '{"__proto__":{"x":1}}', { 'content-type': 'application/json' }],
      ['POST', '/v1/webhooks', '\u0000\u0001', { 'content-type': 'text/plain' }],
      ['PUT', '/v1/webhooks', '{}', {}],
      ['GET', '/nothing-here', undefined, {}],
      ['PUT', '/', '{}', {}],
      ['GET', '/_sandbox/inspector/api/deliveries?limit=x', undefined, {}],
      ['GET', '/v1/oauth/token', undefined, {}],
      ['POST', '/v1/oauth/token', 'grant_type=client_credentials&client_id=%ZZ', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['POST', '/v1/oauth/token', '{}', { 'content-type': 'text/xml' }],
      ['POST', '/v1/oauth/token', '{}', { authorization: 'Basic !!!' }],
      ['POST', '/v1/oauth/token', '', { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` }],
      ['POST', '/_sandbox/events', '{"type":"nope"}', {}],
      ['POST', '/_sandbox/events', '{"type":"invoice.paid","data":[1]}', {}],
    ];
    for (const [method, path, rawBody, headers] of odd) {
      const result = await call(method, path, { ...(rawBody === undefined ? {} : { rawBody }), headers });
      expect(result.status, `${method} ${path} ${rawBody}`).toBeGreaterThanOrEqual(400);
      expect(result.status, `${method} ${path} ${rawBody}`).toBeLessThan(500);
    }
    expect((await call('GET', '/v1/webhooks')).status).toBe(200);
  });
});

describe('pagination', () => {
  it('pages 120+ webhooks newest first, with items inserted and deleted between pages', async () => {
    const { json: before } = await call('GET', '/v1/webhooks?limit=200');
    const existing = before.data.length as number;
    const made: string[] = [];
    for (let i = 0; i < 125; i++) made.push((await createWebhook(`/p${i}`, ['sales_order.created'], { active: false })).id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    const deleted: string[] = [];
    do {
      const result: HttpResult = await call('GET', `/v1/webhooks?limit=40${cursor ? `&cursor=${cursor}` : ''}`);
      expect(result.status).toBe(200);
      seen.push(...result.json.data.map((w: { id: string }) => w.id));
      cursor = result.json.next_cursor;
      expect(result.json.has_more).toBe(cursor !== null);
      pages += 1;
      if (pages === 1) {
        // New items go before the first page: not shown, nothing shifts.
        await createWebhook('/late-1', ['sales_order.created'], { active: false });
        await createWebhook('/late-2', ['sales_order.created'], { active: false });
        // Deleting items not yet seen removes them from later pages, nothing else.
        for (const id of [made[10]!, made[50]!]) {
          expect((await call('DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
          deleted.push(id);
        }
      }
    } while (cursor);

    const expected = [...made].reverse().filter((id) => !deleted.includes(id));
    expect(seen.slice(0, expected.length)).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(expected.length + existing);
    expect(pages).toBe(Math.ceil((expected.length + existing) / 40));
  });
});

describe('deliveries', () => {
  it('delivers a triggered event, signed with the secret (recomputed here)', async () => {
    const webhook = await createWebhook('/signed');
    const deliveries = await trigger('invoice.paid', { id: 'inv_42' });
    const [request] = (await receiver.waitFor(1, 20_000, '/signed')) as [Received];
    const deliveryId = request.headers['x-service-delivery-id'];
    expect(deliveries).toContain(deliveryId);
    const expected = 'sha256=' + createHmac('sha256', webhook.signing_secret).update(request.body).digest('hex');
    expect(request.headers['x-service-signature']).toBe(expected);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-service-event']).toBe('invoice.paid');
    expect(request.headers['x-service-delivery-id']).toBe(deliveryId);
    expect(request.headers['x-service-attempt']).toBe('1');
    expect(request.headers['user-agent']).toMatch(/^whsvc-sandbox\//);
    const payload = JSON.parse(request.body);
    expect(Object.keys(payload)).toEqual(['id', 'event', 'amount']);
    expect(payload).toEqual({ id: 'inv_42', event: 'invoice.paid', amount: { amount: expect.any(Number), currency: expect.stringMatching(/^[A-Z]{3}$/) } });

    const items = await waitForDeliveries(webhook.id, (d) => d.length === 1 && d[0].status === 'delivered');
    expect(Object.keys(items[0])).toEqual(['id', 'event', 'status', 'response_code', 'attempts', 'created_at', 'delivery_id', 'next_attempt_at']);
    expect(items[0]).toMatchObject({ id: deliveryId, event: 'invoice.paid', status: 'delivered', response_code: 200, attempts: 1, delivery_id: deliveryId });

    const detail = await call('GET', `/v1/webhooks/webhook-deliveries/${deliveryId}`);
    expect(Object.keys(detail.json)).toEqual([
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
    ]);
    expect(detail.json).toMatchObject({ delivery_id: deliveryId, next_attempt_at: null, failure_reason: null });
    expect(detail.json.signature).toBe(expected);
    expect(detail.json.payload).toEqual(payload);
    expect(detail.json.webhook_id).toBe(webhook.id);

    expectApiError(await call('POST', `/v1/webhooks/webhook-deliveries/${deliveryId}/retry`), 409, 'already_delivered');
  });

  it('sends a sample event on test, and returns the attempt without attempts', async () => {
    const webhook = await createWebhook('/test-send', ['product.updated']);
    const result = await call('POST', `/v1/webhooks/${webhook.id}/test`, { body: { event: 'product.updated' } });
    expect(result.status, result.text).toBe(200);
    expect(Object.keys(result.json)).toEqual(['id', 'webhook_id', 'event', 'status', 'response_code', 'created_at', 'next_attempt_at', 'failure_reason']);
    expect(result.json).toMatchObject({ webhook_id: webhook.id, event: 'product.updated', status: 'delivered', response_code: 200 });
    const arrived = receiver.received.find((r) => r.headers['x-service-delivery-id'] === result.json.id)!;
    expect(JSON.parse(arrived.body).event).toBe('product.updated');

    const defaulted = await call('POST', `/v1/webhooks/${webhook.id}/test`);
    expect(defaulted.json.event).toBe('invoice.paid');
  });

  it('retries a failing endpoint with exponential backoff until it succeeds', async () => {
    let failuresLeft = 2;
    const previous = receiver.respondWith;
    receiver.respondWith = (request) => (request.path === '/flaky' ? (failuresLeft-- > 0 ? 503 : 200) : previous(request));
    try {
      const webhook = await createWebhook('/flaky', ['inventory.changed']);
      const [deliveryId] = await trigger('inventory.changed');
      // Each retry goes once the clock passes its time: the base delay, then twice that.
      const [failedOnce] = await waitForDeliveries(webhook.id, (d) => d.length === 1 && d[0].status === 'failed');
      expect(Date.parse(failedOnce.next_attempt_at) - Date.parse(failedOnce.created_at)).toBeGreaterThanOrEqual(RETRY_BASE_MS);
      clock.advance(RETRY_BASE_MS);
      const [failedTwice] = await waitForDeliveries(webhook.id, (d) => d.length === 2 && d[0].status === 'failed');
      expect(Date.parse(failedTwice.next_attempt_at) - Date.parse(failedTwice.created_at)).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
      clock.advance(2 * RETRY_BASE_MS);
      const items = await waitForDeliveries(webhook.id, (d) => d.length === 3 && d[0].status === 'delivered');
      const attempts = [...items].reverse();
      expect(attempts.map((a) => [a.attempts, a.status, a.response_code])).toEqual([
        [1, 'failed', 503],
        [2, 'failed', 503],
        [3, 'delivered', 200],
      ]);
      expect(attempts[0].id).toBe(deliveryId);
      // Every attempt names its delivery (the sandbox's extension), and a failed one says why.
      expect(attempts.map((a) => a.delivery_id)).toEqual([deliveryId, deliveryId, deliveryId]);
      const second = await call('GET', `/v1/webhooks/webhook-deliveries/${attempts[1].id}`);
      expect(second.json).toMatchObject({ delivery_id: deliveryId, failure_reason: 'endpoint answered 503' });
      expect(second.json.response_body).toBe('answer from the test receiver');
      const times = attempts.map((a) => Date.parse(a.created_at));
      // First retry after the base delay, the second after twice that; generous upper bounds for a loaded machine.
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(RETRY_BASE_MS);
      expect(times[1]! - times[0]!).toBeLessThan(RETRY_BASE_MS + 10_000);
      expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
      expect(times[2]! - times[1]!).toBeLessThan(2 * RETRY_BASE_MS + 10_000);
      const bodies = receiver.received.filter((r) => r.path === '/flaky');
      expect(bodies.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
      expect(new Set(bodies.map((r) => r.body)).size).toBe(1);
      expect(new Set(bodies.map((r) => r.headers['x-service-signature'])).size).toBe(1);
    } finally {
      receiver.respondWith = previous;
    }
  });

  it('stops after max attempts, then a manual retry re-sends the same body and signature as attempt n+1', async () => {
    const previous = receiver.respondWith;
    receiver.respondWith = (request) => (request.path === '/down' ? 500 : previous(request));
    try {
      const webhook = await createWebhook('/down', ['sales_order.created']);
      const [deliveryId] = await trigger('sales_order.created');
      for (let attempts = 1; attempts < 4; attempts += 1) {
        await waitForDeliveries(webhook.id, (d) => d.length === attempts && d[0].status === 'failed');
        clock.advance(RETRY_BASE_MS * 2 ** (attempts - 1));
      }
      await waitForDeliveries(webhook.id, (d) => d.length === 4 && d.every((a) => a.status === 'failed'));
      expect(sandbox.deliveries.byId(deliveryId!)!.next_due_at).toBeNull();

      receiver.respondWith = previous;
      const original = await call('GET', `/v1/webhooks/webhook-deliveries/${deliveryId}`);
      const retried = await call('POST', `/v1/webhooks/webhook-deliveries/${deliveryId}/retry`);
      expect(retried.status, retried.text).toBe(200);
      expect(Object.keys(retried.json)).toEqual([
        'id',
        'webhook_id',
        'event',
        'status',
        'response_code',
        'attempts',
        'created_at',
        'delivery_id',
        'next_attempt_at',
        // The sandbox's own field, as on a test send: why the attempt failed, so that retry says it.
        'failure_reason',
      ]);
      expect(retried.json).toMatchObject({
        webhook_id: webhook.id,
        event: 'sales_order.created',
        status: 'delivered',
        response_code: 200,
        attempts: 5,
        delivery_id: deliveryId,
      });
      expect(retried.json.id).not.toBe(deliveryId);
      const detail = await call('GET', `/v1/webhooks/webhook-deliveries/${retried.json.id}`);
      expect(detail.json.signature).toBe(original.json.signature);
      expect(detail.json.payload).toEqual(original.json.payload);
      const sends = receiver.received.filter((r) => r.path === '/down');
      expect(sends).toHaveLength(5);
      expect(sends[4]!.body).toBe(sends[0]!.body);
      expect(sends[4]!.headers['x-service-delivery-id']).toBe(deliveryId);

      // The delivery got through: retrying one of its failed attempts would only send it twice.
      expectApiError(await call('POST', `/v1/webhooks/webhook-deliveries/${deliveryId}/retry`), 409, 'already_delivered');

      const failed = await call('GET', `/v1/webhooks/${webhook.id}/deliveries?status=failed`);
      expect(failed.json.data).toHaveLength(4);
      const delivered = await call('GET', `/v1/webhooks/${webhook.id}/deliveries?status=delivered`);
      expect(delivered.json.data.map((d: { id: string }) => d.id)).toEqual([retried.json.id]);
    } finally {
      receiver.respondWith = previous;
    }
  });

  it('records a refused connection as failed with response_code 0, an integer as the interface declares, everywhere it is answered', async () => {
    const dead = await startReceiver();
    const url = dead.url;
    await dead.close();
    const created = await call('POST', '/v1/webhooks', { body: { url: `${url}/gone`, events: ['production_order.completed'] } });
    const tested = await call('POST', `/v1/webhooks/${created.json.id}/test`, { body: { event: 'production_order.completed' } });
    expect(tested.json).toMatchObject({ status: 'failed', response_code: 0, failure_reason: 'connection refused' });
    const listed = await call('GET', `/v1/webhooks/${created.json.id}/deliveries`);
    expect(listed.json.data.map((d: { response_code: unknown }) => d.response_code)).toEqual([0]);
    const retrieved = await call('GET', `/v1/webhooks/webhook-deliveries/${tested.json.id}`);
    expect(retrieved.json).toMatchObject({ response_code: 0, failure_reason: 'connection refused' });
    const retried = await call('POST', `/v1/webhooks/webhook-deliveries/${tested.json.id}/retry`);
    expect(retried.json).toMatchObject({ status: 'failed', response_code: 0 });
    await call('DELETE', `/v1/webhooks/${created.json.id}`);
  });

  it('sends nothing to inactive webhooks, nor to deleted ones, whose due retries are dropped', async () => {
    const paused = await createWebhook('/paused', ['product.updated'], { active: false });
    const previous = receiver.respondWith;
    receiver.respondWith = (request) => (request.path === '/doomed' ? 500 : previous(request));
    try {
      const doomed = await createWebhook('/doomed', ['product.updated']);
      const triggered = await trigger('product.updated');
      const deliveries = triggered.filter((id) => sandbox.deliveries.byId(id)?.webhook_id === doomed.id);
      expect(deliveries).toHaveLength(1);
      expect(triggered.filter((id) => sandbox.deliveries.byId(id)?.webhook_id === paused.id)).toEqual([]);
      await waitForDeliveries(doomed.id, (d) => d.length === 1 && d[0].status === 'failed');
      expect((await call('DELETE', `/v1/webhooks/${doomed.id}`)).status).toBe(204);
      expect(sandbox.deliveries.byId(deliveries[0]!)).toBeUndefined();
      expectApiError(await call('GET', `/v1/webhooks/webhook-deliveries/${deliveries[0]}`), 404, 'not_found');
      // Nothing more will arrive: the retry the failure scheduled went with the webhook, and the deliverer sends only what the store holds due.
      expect(sandbox.log.upcoming(1000).filter((due) => due.webhook_id === doomed.id)).toEqual([]);
      // Past its time, then a marker sent after it: a retry would have been sent first.
      clock.advance(RETRY_BASE_MS);
      await createWebhook('/after-doomed', ['product.updated']);
      await trigger('product.updated');
      await receiver.waitFor(1, 20_000, '/after-doomed');
      expect(receiver.received.filter((r) => r.path === '/doomed')).toHaveLength(1);
      expect(receiver.received.filter((r) => r.path === '/paused')).toHaveLength(0);
      const log = await call('GET', `/v1/webhooks/${paused.id}/deliveries`);
      expect(log.json.data).toEqual([]);
    } finally {
      receiver.respondWith = previous;
    }
  });

  it('pages a delivery log with cursors', async () => {
    const webhook = await createWebhook('/many', ['invoice.paid'], { active: true });
    for (let i = 0; i < 5; i++) await call('POST', `/v1/webhooks/${webhook.id}/test`);
    const first = await call('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=2`);
    expect(first.json.data).toHaveLength(2);
    expect(first.json.has_more).toBe(true);
    const second = await call('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=2&cursor=${first.json.next_cursor}`);
    const third = await call('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=2&cursor=${second.json.next_cursor}`);
    expect(third.json).toMatchObject({ has_more: false, next_cursor: null });
    const ids = [...first.json.data, ...second.json.data, ...third.json.data].map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(5);
  });
});

describe('platform name', () => {
  it('signs with X-<Name>-Signature', async () => {
    const acme = createSandbox({ policy: { platformName: 'Acme' } });
    const acmeBase = await acme.listen(0, '127.0.0.1');
    try {
      const acmeToken = await getToken(acmeBase, acme.clients[0]!.client_id, acme.clients[0]!.client_secret);
      const created = await http(acmeBase, 'POST', '/v1/webhooks', { token: acmeToken, body: { url: `${receiver.url}/acme`, events: ['invoice.paid'] } });
      await http(acmeBase, 'POST', `/v1/webhooks/${created.json.id}/test`, { token: acmeToken });
      const [request] = (await receiver.waitFor(1, 20_000, '/acme')) as [Received];
      expect(request.headers['x-service-signature']).toBeUndefined();
      expect(request.headers['x-acme-signature']).toBe('sha256=' + createHmac('sha256', created.json.signing_secret).update(request.body).digest('hex'));
      expect(request.headers['x-acme-event']).toBe('invoice.paid');
    } finally {
      await acme.close();
    }
  });
});
