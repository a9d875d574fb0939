import { afterEach, describe, expect, it } from 'vitest';
import { errors } from 'undici';
import { GET_RESET_RETRIES, MAX_RETRY_AFTER_S, MAX_RETRY_AFTER_WAITS } from '../../../src/api/client.js';
import { retryDelivery } from '../../../src/api/endpoints.js';
import { ApiError, AuthError, NetworkError, RequestStopped } from '../../../src/api/errors.js';
import { tokenIdentity } from '../../../src/cli/context.js';
import { proxyCredentials, proxySettings } from '../../../src/net.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  ORIGIN,
  T0,
  fakeDeps,
  finishFakeDeps,
  json,
  jsonReply,
  mockToken,
  pathOnly,
  queryOf,
  rejectionOf,
  type FakeDeps,
} from '../../helpers/fake-deps.js';
import { refusedError, resetError } from '../../helpers/undici-transport.js';

afterEach(finishFakeDeps);

const PAGE = { data: [], has_more: false, next_cursor: null };

describe('ApiClient: token request', () => {
  it('POSTs JSON client credentials with grant_type client_credentials, and the scope when set', async () => {
    const fake = fakeDeps();
    const bodies = mockToken(fake.mock, { token: 'tok_A', scope: 'webhooks:read webhooks:write' });
    const api = fake.client({ credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scope: 'webhooks:read webhooks:write' } });
    const token = await api.token();
    expect(bodies).toEqual([{ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope: 'webhooks:read webhooks:write' }]);
    const sent = fake.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.url.pathname).toBe('/v1/oauth/token');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers.authorization).toBeUndefined();
    expect(token.access_token).toBe('tok_A');
    expect(token.expires_at).toBe(T0 + 3600 * 1000);
    expect(token.scope).toBe('webhooks:read webhooks:write');
  });

  it('sends no scope field when none is set', async () => {
    const fake = fakeDeps();
    const bodies = mockToken(fake.mock);
    await fake.deps.api.token();
    expect(bodies).toEqual([{ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }]);
  });

  it('throws AuthError without credentials, before any request', async () => {
    const fake = fakeDeps({ credentials: null });
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toBeInstanceOf(AuthError);
    expect(fake.requests).toHaveLength(0);
  });

  it('a token endpoint 401 is an AuthError naming the RFC 6749 code', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { status: 401 });
    const error = await rejectionOf(fake.deps.api.token());
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toContain('invalid_client');
    expect(error.message).toContain('client authentication failed');
  });
});

describe('ApiClient: a token that cannot be sent', () => {
  it.each([
    ['CR LF inside it', 'tok_abc\r\nx-injected: 1'],
    ['a character past ASCII', 'tok_€uro'],
    ['a space inside it', 'tok a'],
    ['empty', ''],
  ])('a token with %s is one error, and is not cached: the next run asks again', async (_, bad) => {
    const fake = fakeDeps();
    mockToken(fake.mock, { token: bad });
    const error = await rejectionOf(fake.client({ withCache: true }).json('GET', '/v1/webhooks'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'unexpected_answer', message: 'the token endpoint answered a token that cannot be sent (visible ASCII only)' });
    mockToken(fake.mock, { token: 'tok_good' });
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, PAGE));
    await fake.client({ withCache: true }).json('GET', '/v1/webhooks');
    expect(fake.requests.map((r) => r.url.pathname)).toEqual(['/v1/oauth/token', '/v1/oauth/token', '/v1/webhooks']);
  });
});

describe('ApiClient: a token that cannot be sent, cached by an earlier version', () => {
  it('is not offered: a fresh token is asked for', async () => {
    const fake = fakeDeps();
    await fake.deps.config.tokenCache('default', tokenIdentity(ORIGIN, { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })).write({
      access_token: 'tok_€',
      expires_in: 3600,
      expires_at: T0 + 3600_000,
    });
    mockToken(fake.mock, { token: 'tok_good' });
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, PAGE));
    await fake.client({ withCache: true }).json('GET', '/v1/webhooks');
    expect(fake.requests.map((r) => r.url.pathname)).toEqual(['/v1/oauth/token', '/v1/webhooks']);
  });
});

describe('ApiClient: token cache', () => {
  it('reuses the token (no second token request) until shortly before expiry, then fetches a new one', async () => {
    const fake = fakeDeps();
    const first = mockToken(fake.mock, { token: 'tok_1', expiresIn: 3600 });
    const seen: string[] = [];
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'GET' })
      .reply((opts) => {
        seen.push(String((opts.headers as Record<string, string>).authorization));
        return jsonReply(200, PAGE);
      })
      .times(3);
    await fake.deps.api.json('GET', '/v1/webhooks');
    fake.clock.now = T0 + 3600_000 - 60_000; // a minute left: still good
    await fake.deps.api.json('GET', '/v1/webhooks');
    expect(first).toHaveLength(1);

    const second = mockToken(fake.mock, { token: 'tok_2', expiresIn: 3600 });
    fake.clock.now = T0 + 3600_000 - 5_000; // five seconds left: too close
    await fake.deps.api.json('GET', '/v1/webhooks');
    expect(second).toHaveLength(1);
    expect(seen).toEqual(['Bearer tok_1', 'Bearer tok_1', 'Bearer tok_2']);
  });

  it('reads and writes the profile token cache, so another client (process) reuses it', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { token: 'tok_cached' });
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, PAGE)).times(2);
    await fake.client({ withCache: true }).json('GET', '/v1/webhooks');
    // A new client (as a new whsvc run would build) finds the token on disk: no token interceptor left.
    await fake.client({ withCache: true }).json('GET', '/v1/webhooks');
    expect(fake.requests.map((r) => r.url.pathname)).toEqual(['/v1/oauth/token', '/v1/webhooks', '/v1/webhooks']);
    expect(fake.requests[2]!.headers.authorization).toBe('Bearer tok_cached');
  });
});

describe('ApiClient: 401 and 403', () => {
  it('a 401 gets exactly one fresh token and one repeat', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { token: 'tok_old' });
    mockToken(fake.mock, { token: 'tok_new' });
    const auth: string[] = [];
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply((opts) => {
      auth.push(String((opts.headers as Record<string, string>).authorization));
      return jsonReply(401, { error: { code: 'unauthorized', message: 'token expired' } });
    });
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply((opts) => {
      auth.push(String((opts.headers as Record<string, string>).authorization));
      return jsonReply(200, { id: 'wh_1' });
    });
    await expect(fake.deps.api.json('GET', '/v1/webhooks/wh_1')).resolves.toEqual({ id: 'wh_1' });
    expect(auth).toEqual(['Bearer tok_old', 'Bearer tok_new']);
    expect(fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /v1/oauth/token',
      'GET /v1/webhooks/wh_1',
      'POST /v1/oauth/token',
      'GET /v1/webhooks/wh_1',
    ]);
  });

  it('a 401 on a POST also repeats it once, with the same body', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { token: 'tok_old' });
    mockToken(fake.mock, { token: 'tok_new' });
    const bodies: string[] = [];
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply((opts) => {
      bodies.push(String(opts.body));
      return jsonReply(401, { message: 'expired' });
    });
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply((opts) => {
      bodies.push(String(opts.body));
      return jsonReply(201, { id: 'wh_2' });
    });
    await fake.deps.api.json('POST', '/v1/webhooks', { body: { url: 'https://e.example/h', events: ['invoice.paid'] } });
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
  });

  it('a second 401 throws AuthError, with no third request', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { token: 'tok_old' });
    mockToken(fake.mock, { token: 'tok_new' });
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'GET' })
      .reply(json(401, { message: 'no' }))
      .times(2);
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toBeInstanceOf(AuthError);
    expect(fake.requests).toHaveLength(4);
  });

  it('403: requiredScope from the body {error:{required_scope}}', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'POST' })
      .reply(json(403, { error: { code: 'insufficient_scope', message: 'missing scope', required_scope: 'webhooks:admin' } }));
    const error = await rejectionOf(fake.deps.api.json('POST', '/v1/webhooks', { body: {} }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: 'insufficient_scope', requiredScope: 'webhooks:admin', message: 'missing scope' });
  });

  it.each([
    ['GET', '/v1/webhooks', 'webhooks:read'],
    ['POST', '/v1/webhooks', 'webhooks:write'],
    ['PATCH', '/v1/webhooks/wh_1', 'webhooks:write'],
    ['DELETE', '/v1/webhooks/wh_1', 'webhooks:write'],
  ])('403 on %s %s without a scope in the body: requiredScope %s (from the method)', async (method, path, scope) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path, method }).reply(403, 'Forbidden', { headers: { 'content-type': 'text/plain' } });
    const error = await rejectionOf(fake.deps.api.call(method, path));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, requiredScope: scope, message: 'Forbidden' });
  });

  it('404 is an ApiError with the code and message of the body, and no requiredScope', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_x', method: 'GET' }).reply(json(404, { error: { code: 'not_found', message: 'no webhook wh_x' } }));
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks/wh_x'));
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'no webhook wh_x', requiredScope: undefined });
  });
});

describe('ApiClient: Retry-After', () => {
  it('429 with Retry-After: 2 waits 2000 ms (injected sleep), tells the user, and repeats', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(429, { message: 'slow down' }, { 'retry-after': '2' }));
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, PAGE));
    await expect(fake.deps.api.json('GET', '/v1/webhooks')).resolves.toEqual(PAGE);
    expect(fake.sleeps).toEqual([2000]);
    expect(fake.notices).toHaveLength(1);
    expect(fake.notices[0]).toMatch(/429/);
    expect(fake.notices[0]).toMatch(/2 s/);
  });

  it('503 with an HTTP-date Retry-After waits until then', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const date = new Date(T0 + 5_000).toUTCString();
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(503, '', { headers: { 'retry-after': date } });
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, PAGE));
    await fake.deps.api.json('GET', '/v1/webhooks');
    expect(fake.sleeps).toEqual([5000]);
  });

  it.each([429, 503])('a POST answered %i is sent once, whatever Retry-After asks: it may have been acted on', async (status) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(json(status, { message: 'busy' }, { 'retry-after': '1' }));
    const error = await rejectionOf(fake.deps.api.json('POST', '/v1/webhooks', { body: {} }));
    expect(error).toMatchObject({ status, message: 'busy; not sent again, since the service may have acted on it all the same' });
    expect(fake.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toHaveLength(1);
    expect(fake.sleeps).toEqual([]);
  });

  it('a POST whose endpoint allows it is repeated after that wait only: a delivery retry after a 429, not a 503', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const path = '/v1/webhooks/webhook-deliveries/dlv_1/retry';
    const attempt = {
      id: 'dlv_2',
      webhook_id: 'wh_1',
      event: 'invoice.paid',
      status: 'delivered',
      response_code: 200,
      attempts: 2,
      created_at: '2025-01-15T12:00:00Z',
    };
    fake.mock.intercept({ path, method: 'POST' }).reply(json(429, {}, { 'retry-after': '1' }));
    fake.mock.intercept({ path, method: 'POST' }).reply(json(200, attempt));
    await expect(retryDelivery(fake.deps.api, 'dlv_1')).resolves.toEqual(attempt);
    expect(fake.sleeps).toEqual([1000]);
    fake.mock.intercept({ path, method: 'POST' }).reply(json(503, {}, { 'retry-after': '1' }));
    expect(await rejectionOf(retryDelivery(fake.deps.api, 'dlv_1'))).toMatchObject({ status: 503 });
    expect(fake.requests.filter((r) => r.url.pathname === path)).toHaveLength(3);
  });

  it('the token request, which does nothing twice, is repeated after a 503', async () => {
    const fake = fakeDeps();
    fake.mock.intercept({ path: '/v1/oauth/token', method: 'POST' }).reply(json(503, {}, { 'retry-after': '1' }));
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, PAGE));
    await expect(fake.deps.api.json('GET', '/v1/webhooks')).resolves.toEqual(PAGE);
    expect(fake.sleeps).toEqual([1000]);
  });

  it('a Retry-After over the cap is not waited for: the 429 is the answer', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'GET' })
      .reply(json(429, { message: 'rate limited' }, { 'retry-after': String(MAX_RETRY_AFTER_S + 1) }));
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429 });
    expect(error.message).toBe(
      `rate limited; it asked to wait ${MAX_RETRY_AFTER_S + 1} s (Retry-After), longer than whsvc waits (${MAX_RETRY_AFTER_S} s): gave up; try again then`,
    );
    expect(fake.sleeps).toEqual([]);
  });

  it('a 400 that says nothing still says what was refused', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(400, '');
    const error = await rejectionOf(fake.deps.api.json('POST', '/v1/webhooks', { body: {} }));
    expect(error).toMatchObject({ status: 400, message: 'the service refused POST /v1/webhooks without saying why' });
  });

  it(`waits at most ${MAX_RETRY_AFTER_WAITS} times`, async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'GET' })
      .reply(json(429, {}, { 'retry-after': '1' }))
      .times(MAX_RETRY_AFTER_WAITS + 1);
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toMatchObject({ status: 429 });
    expect(error.message).toContain(`still busy after ${MAX_RETRY_AFTER_WAITS} waits`);
    expect(fake.sleeps).toEqual(Array.from({ length: MAX_RETRY_AFTER_WAITS }, () => 1000));
  });
});

describe('ApiClient: connection failures', () => {
  it(`a GET whose connection is reset is tried again (${GET_RESET_RETRIES} more times at most)`, async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).replyWithError(new errors.SocketError('other side closed'));
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).replyWithError(resetError());
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, PAGE));
    await expect(fake.deps.api.json('GET', '/v1/webhooks')).resolves.toEqual(PAGE);
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(3);
  });

  it('a GET reset more often than that is a NetworkError', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'GET' })
      .replyWithError(resetError())
      .times(GET_RESET_RETRIES + 1);
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toMatch(/reset/);
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(GET_RESET_RETRIES + 1);
  });

  it('a POST whose connection is reset is never repeated: NetworkError with mayHaveActed', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).replyWithError(new errors.SocketError('other side closed'));
    const error = await rejectionOf(fake.deps.api.json('POST', '/v1/webhooks', { body: { url: 'https://e.example' } }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.mayHaveActed).toBe(true);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toHaveLength(1);
  });

  it('a refused connection is a NetworkError that cannot have acted, naming the host', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).replyWithError(refusedError());
    const error = await rejectionOf(fake.deps.api.json('POST', '/v1/webhooks', { body: {} }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.mayHaveActed).toBe(false);
    expect(error.host).toBe('127.0.0.1:4010');
    expect(error.message).toMatch(/refused/);
  });

  it('an answer that breaks HTTP is a NetworkError naming what broke, that may have acted, and is not repeated', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).replyWithError(new errors.HeadersOverflowError());
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe('127.0.0.1:4010 gave a broken answer: its headers pass 16 KiB, more than whsvc reads');
    expect(error.mayHaveActed).toBe(true);
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });

  it('a refused GET is not retried (only resets are)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).replyWithError(refusedError());
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });
});

describe('ApiClient: requests', () => {
  it('encodes query parameters and leaves out undefined ones', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const paths: string[] = [];
    fake.mock.intercept({ path: (p) => pathOnly(p) === '/v1/webhooks', method: 'GET' }).reply((opts) => {
      paths.push(opts.path);
      return jsonReply(200, PAGE);
    });
    await fake.deps.api.json('GET', '/v1/webhooks', { query: { cursor: 'a b&c=d/+é?', limit: 20, active: false, status: undefined } });
    const raw = paths[0]!;
    expect(raw).not.toContain(' ');
    expect(raw).toContain('%26');
    expect(raw).not.toContain('status');
    const query = queryOf(raw);
    expect(query.get('cursor')).toBe('a b&c=d/+é?');
    expect(query.get('limit')).toBe('20');
    expect(query.get('active')).toBe('false');
    expect([...query.keys()].sort()).toEqual(['active', 'cursor', 'limit']);
  });

  it('sends the bearer token, JSON content type and the body', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { token: 'tok_X' });
    let headers: Record<string, string> = {};
    let body = '';
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'PATCH' }).reply((opts) => {
      headers = opts.headers as Record<string, string>;
      body = String(opts.body);
      return jsonReply(200, { id: 'wh_1' });
    });
    await fake.deps.api.json('PATCH', '/v1/webhooks/wh_1', { body: { active: false } });
    expect(headers.authorization).toBe('Bearer tok_X');
    expect(headers['content-type']).toBe('application/json');
    expect(JSON.parse(body)).toEqual({ active: false });
  });

  it('a 2xx that is not JSON is an ApiError, not a crash', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(200, '<html>proxy login</html>', { headers: { 'content-type': 'text/html' } });
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toBeInstanceOf(ApiError);
  });
});

describe('ApiClient: --debug', () => {
  it('shows method and path of each exchange, never the client secret, the access token or a signing secret', async () => {
    const fake = fakeDeps({ debug: true });
    const ACCESS = 'tok_DEBUG_very_secret_access_token';
    const SIGNING = 'whsec_DEBUG_signing_secret_123456';
    mockToken(fake.mock, { token: ACCESS });
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(
      json(201, {
        id: 'wh_dbg',
        url: 'https://e.example/h',
        events: ['invoice.paid'],
        active: true,
        signing_secret: SIGNING,
      }),
    );
    fake.mock.intercept({ path: (p) => pathOnly(p) === '/v1/webhooks', method: 'GET' }).reply(json(200, PAGE, { 'set-cookie': `session=${ACCESS}` }));
    await fake.deps.api.json('POST', '/v1/webhooks', { body: { url: 'https://e.example/h', events: ['invoice.paid'] } });
    await fake.deps.api.json('GET', '/v1/webhooks', { query: { limit: 5 } });
    const log = fake.debugLog.join('');
    expect(log).toContain('POST');
    expect(log).toContain('/v1/oauth/token');
    expect(log).toContain('/v1/webhooks');
    expect(log).toContain('GET');
    expect(log).toContain('limit=5');
    expect(log).toContain('201');
    expect(log).toContain('wh_dbg');
    expect(log).not.toContain(CLIENT_SECRET);
    expect(log).not.toContain(ACCESS);
    expect(log).not.toContain(SIGNING);
  });

  it('redacts the token and secret in a form-encoded or pretty-printed body too', async () => {
    const fake = fakeDeps({ debug: true });
    const ACCESS = 'tok_pretty_access_987';
    fake.mock
      .intercept({ path: '/v1/oauth/token', method: 'POST' })
      .reply(200, JSON.stringify({ access_token: ACCESS, token_type: 'Bearer', expires_in: 60 }, null, 2), {
        headers: { 'content-type': 'application/json' },
      });
    await fake.deps.api.token();
    const log = fake.debugLog.join('');
    expect(log).not.toContain(ACCESS);
    expect(log).not.toContain(CLIENT_SECRET);
  });
});

describe('ApiClient: secrets the service echoes back are masked in every error and --debug line', () => {
  const TOKEN = 'tok_echoed_access_token_42';
  /** Every text a failure gives a user: its message, its hint, and --debug's lines. */
  const shown = (fake: FakeDeps, error: Error & Record<string, unknown>) => `${error.message}\n${String(error.hint ?? '')}\n${fake.debugLog.join('')}`;

  it('a token endpoint quoting the client secret it was sent (RFC 6749 error, form-encoded, in HTML, cut at 200 characters)', async () => {
    const secret = `${CLIENT_SECRET}/`;
    for (const [status, body] of [
      [401, { error: 'invalid_client', error_description: `bad client_secret=${secret}` }],
      [400, { error: 'invalid_request', error_description: `got client_secret=${encodeURIComponent(secret)}` }],
      [502, `<html><title>Bad gateway for {"client_secret":"${secret}"}</title></html>`],
      [500, `${'x'.repeat(190)}${secret}`],
    ] as const) {
      const fake = fakeDeps({ debug: true });
      fake.mock.intercept({ path: '/v1/oauth/token', method: 'POST' }).reply(status, typeof body === 'string' ? body : JSON.stringify(body));
      const api = fake.client({ credentials: { clientId: CLIENT_ID, clientSecret: secret } });
      const error = await rejectionOf(api.token());
      expect(shown(fake, error)).not.toContain(CLIENT_SECRET.slice(0, 12));
      expect(error.message).toContain('[redacted');
    }
  });

  it('a gateway quoting the JSON body it was sent, escapes and all', async () => {
    const fake = fakeDeps({ debug: true });
    const secret = 'q"uo/te\\d_secret';
    const sent = JSON.stringify({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: secret });
    fake.mock.intercept({ path: '/v1/oauth/token', method: 'POST' }).reply(502, JSON.stringify({ message: `upstream refused ${sent}` }));
    const api = fake.client({ credentials: { clientId: CLIENT_ID, clientSecret: secret } });
    const error = await rejectionOf(api.token());
    expect(error.message).toMatch(/^upstream refused .*"client_secret":"\[redacted\]"/);
    expect(shown(fake, error)).not.toContain('uo/te');
  });

  it('an API error quoting `Bearer <token>`, in --debug too; a 401 after a fresh token as well', async () => {
    const fake = fakeDeps({ debug: true });
    mockToken(fake.mock, { token: TOKEN, times: 2 });
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'GET' })
      .reply(json(400, { error: { code: 'bad_header', message: `Authorization: Bearer ${TOKEN} is odd` } }));
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(error).toMatchObject({ status: 400, message: 'Authorization: Bearer [redacted] is odd' });
    expect(shown(fake, error)).not.toContain(TOKEN);

    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'GET' })
      .reply(json(401, { message: `token ${TOKEN} expired` }))
      .times(2);
    const refused = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    expect(refused).toBeInstanceOf(AuthError);
    expect(shown(fake, refused)).not.toContain(TOKEN);
  });

  it("a proxy's credentials, in every form an echo carries them", async () => {
    const fake = fakeDeps({ debug: true });
    const credentials = proxyCredentials(proxySettings({ HTTPS_PROXY: 'http://carol:pr%2Fxy-pa55@proxy.corp:3128' }));
    expect(credentials).toEqual(['pr/xy-pa55', 'carol:pr/xy-pa55', Buffer.from('carol:pr/xy-pa55').toString('base64')]);
    mockToken(fake.mock);
    const basic = Buffer.from('carol:pr/xy-pa55').toString('base64');
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(502, `Proxy-Authorization: Basic ${basic} refused for pr%2Fxy-pa55`);
    const error = await rejectionOf(fake.client({ secrets: credentials }).json('GET', '/v1/webhooks'));
    expect(error.message).toBe('Proxy-Authorization: Basic [redacted] refused for [redacted]');
    expect(shown(fake, error)).not.toMatch(/pa55|carol/);
  });

  it('server text with no secret in it is left as it is', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(400, { message: 'url must be https' }));
    expect(await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'))).toMatchObject({ message: 'url must be https' });
  });
});

describe('ApiClient: answers of an unexpected shape', () => {
  it.each([
    ['webhook', { data: [] }, /not a webhook \(an object with an id, url and events\): it has no id$/],
    ['attempt', [1, 2], /not an attempt/],
    ['webhooks', { data: 'x' }, /not a page of webhooks \(a data array of objects with an id, url and events\): it has no data array$/],
    ['catalog', null, /not the event catalog/],
  ] as const)('expecting a %s, %j is an ApiError naming the request, not a crash later', async (shape, body, message) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/x', method: 'GET' }).reply(json(200, body));
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks/x', { expect: shape }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, code: 'unexpected_answer' });
    expect(error.message).toMatch(/^the service answered GET \/v1\/webhooks\/x with something that is /);
    expect(error.message).toMatch(message);
  });
});

describe('ApiClient: one wait for all requests', () => {
  it('a 429 with Retry-After holds back the requests sent beside it, and the wait is told once', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    let releaseSleep!: () => void;
    const slept: number[] = [];
    // A client whose sleep lasts until the test says so: the other request must not go out meanwhile.
    const api = fake.client({
      sleep: (ms) => {
        slept.push(ms);
        return new Promise((resolve) => (releaseSleep = resolve));
      },
    });
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(429, {}, { 'retry-after': '2' }));
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, { id: 'wh_1' }));
    const first = api.json('GET', '/v1/webhooks/wh_1');
    while (slept.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const sentBefore = fake.requests.length;
    fake.mock.intercept({ path: '/v1/webhooks/wh_2', method: 'GET' }).reply(json(200, { id: 'wh_2' }));
    const second = api.json('GET', '/v1/webhooks/wh_2');
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(fake.requests.length).toBe(sentBefore);
    releaseSleep();
    await expect(Promise.all([first, second])).resolves.toEqual([{ id: 'wh_1' }, { id: 'wh_2' }]);
    expect(slept).toEqual([2000]);
    expect(fake.notices.filter((n) => n.includes('Retry-After'))).toHaveLength(1);
  });
});

describe("ApiClient: a question in the background (a progress line's poll)", () => {
  it('a 429 is its error at once: no wait, no note, not sent again, no spinner asked for', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    await fake.deps.api.token();
    fake.mock.intercept({ path: '/_sandbox/clock', method: 'GET' }).reply(json(429, { message: 'slow down' }, { 'retry-after': '1' }));
    const error = await rejectionOf(fake.deps.api.json('GET', '/_sandbox/clock', { background: new AbortController().signal }));
    expect(error).toMatchObject({ status: 429 });
    expect(fake.sleeps).toEqual([]);
    expect(fake.notices).toEqual([]);
    const polls = fake.requests.filter((r) => r.url.pathname === '/_sandbox/clock');
    expect(polls).toHaveLength(1);
    expect(polls[0]!.quiet).toBe(true);
  });

  it('is not sent while a wait another request was asked for is in force, nor waits for it', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const api = fake.client({ sleep: () => new Promise(() => {}) });
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(429, {}, { 'retry-after': '2' }));
    void api.json('GET', '/v1/webhooks').catch(() => undefined);
    while (fake.notices.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const error = await rejectionOf(api.json('GET', '/_sandbox/clock', { background: new AbortController().signal }));
    expect(error).toBeInstanceOf(RequestStopped);
    expect(fake.requests.filter((r) => r.url.pathname === '/_sandbox/clock')).toHaveLength(0);
  });

  it('never renews the token (which can wait and print): refused with a 401, or with none good to send, it is RequestStopped', async () => {
    const fake = fakeDeps();
    const tokenBodies = mockToken(fake.mock, { expiresIn: 60 });
    const { api } = fake.deps;
    await api.token();
    const background = { background: new AbortController().signal };
    fake.mock.intercept({ path: '/_sandbox/clock', method: 'GET' }).reply(json(401, { error: { code: 'invalid_token', message: 'expired' } }));
    expect(await rejectionOf(api.json('GET', '/_sandbox/clock', background))).toBeInstanceOf(RequestStopped);
    // Expired: no token request, nothing sent.
    fake.clock.now += 60_000;
    const sent = fake.requests.length;
    expect(await rejectionOf(api.json('GET', '/_sandbox/clock', background))).toBeInstanceOf(RequestStopped);
    expect(fake.requests.length).toBe(sent);
    expect(tokenBodies).toHaveLength(1);
    expect(fake.notices).toEqual([]);
    // The foreground renews it.
    mockToken(fake.mock, { token: 'tok_test_2' });
    fake.mock.intercept({ path: '/_sandbox/clock', method: 'GET' }).reply(json(200, { now: 'x' }));
    await expect(api.json('GET', '/_sandbox/clock')).resolves.toEqual({ now: 'x' });
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer tok_test_2');
  });
});

describe('ApiClient: the most of an answer read (--max-answer-size)', () => {
  const LIMIT = 1024;
  const longPage = () => ({ data: [{ id: 'wh_1', url: `https://example.com/${'x'.repeat(2 * LIMIT)}` }], has_more: false, next_cursor: null });

  it('a 2xx longer than the limit is one error naming the limit and the flag (exit 1 by its class), not a crash or an empty success', async () => {
    const fake = fakeDeps({ maxAnswerBytes: LIMIT });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, longPage()));
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks', { expect: 'webhooks' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, code: 'answer_too_large' });
    expect(error.message).toBe(
      'the answer to GET /v1/webhooks is longer than 1 KiB, the most whsvc reads: --max-answer-size (or WHSVC_MAX_ANSWER_SIZE) raises it',
    );
    expect(fake.requests.map((r) => r.bodyLimit)).toEqual([LIMIT, LIMIT]);
  });

  it('an answer of exactly the limit is read whole', async () => {
    const fake = fakeDeps({ maxAnswerBytes: LIMIT });
    mockToken(fake.mock);
    const text = JSON.stringify({ data: [], has_more: false, next_cursor: null, pad: '' });
    const exact = { data: [], has_more: false, next_cursor: null, pad: 'p'.repeat(LIMIT - text.length) };
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, exact));
    await expect(fake.deps.api.json('GET', '/v1/webhooks', { expect: 'webhooks' })).resolves.toEqual(exact);
  });

  it('holds for every answer: the token endpoint, and send (whsvc api)', async () => {
    const fake = fakeDeps({ maxAnswerBytes: LIMIT });
    mockToken(fake.mock, { body: { access_token: 'tok', expires_in: 3600, padding: 'p'.repeat(2 * LIMIT) } });
    expect(await rejectionOf(fake.deps.api.token())).toMatchObject({ code: 'answer_too_large', message: expect.stringContaining('POST /v1/oauth/token') });
    const other = fakeDeps({ maxAnswerBytes: LIMIT });
    mockToken(other.mock);
    other.mock.intercept({ path: '/v1/anything', method: 'GET' }).reply(200, 'z'.repeat(2 * LIMIT));
    expect(await rejectionOf(other.deps.api.send('GET', '/v1/anything'))).toMatchObject({ code: 'answer_too_large' });
  });

  it('an error answer is read for its message from its head: its status stands (a 404 stays not found), however long it goes on', async () => {
    const fake = fakeDeps({ maxAnswerBytes: LIMIT, debug: true });
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks/wh_gone', method: 'GET' })
      .reply(404, `no such webhook\n${'-'.repeat(200 * 1024)}`, { headers: { 'content-type': 'text/plain' } });
    const error = await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks/wh_gone'));
    expect(error).toMatchObject({ status: 404, message: 'no such webhook' });
    // Read up to its head (64 KiB), not to the end.
    const logged = fake.debugLog.find((text) => text.startsWith('< 404'))!;
    expect(logged.length).toBeLessThan(65 * 1024);
  });

  it('--debug does not print a 2xx refused for its length', async () => {
    const fake = fakeDeps({ maxAnswerBytes: LIMIT, debug: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(json(200, longPage()));
    await rejectionOf(fake.deps.api.json('GET', '/v1/webhooks'));
    const logged = fake.debugLog.findLast((text) => text.startsWith('< 200'))!;
    expect(logged).toContain('(longer than 1 KiB: the rest not read)');
    expect(logged).not.toContain('example.com');
  });
});
