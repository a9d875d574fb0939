import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, AuthError } from '../../../../src/api/errors.js';
import { CliError } from '../../../../src/cli/errors.js';
import { run, type ApiOptions } from '../../../../src/commands/api/api.js';
import { fakeDeps, finishFakeDeps, jsonReply, mockToken, rejectionOf } from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const options = (o: Partial<ApiOptions> & { path: string }): ApiOptions => ({ fields: [], headers: [], paginate: false, ...o });

describe('whsvc api: the request', () => {
  it('GET by default; the answer printed as returned, a newline added', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(200, '{"id":"wh_1","extra":{"kept":true}}');
    expect(await run(options({ path: '/v1/webhooks/wh_1' }), fake.deps)).toBe(0);
    expect(fake.stdout.text).toBe('{"id":"wh_1","extra":{"kept":true}}\n');
    expect(fake.requests[1]!.headers.authorization).toBe('Bearer tok_test_1');
  });

  it('POST when fields are given: a JSON body of them; the secret in the answer is warned of on stderr', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    let sent: unknown;
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply((req) => {
      sent = JSON.parse(String(req.body));
      return jsonReply(201, { id: 'wh_2', signing_secret: 'whsec_x' });
    });
    await run(
      options({
        path: 'v1/webhooks',
        fields: [
          { typed: false, text: 'url=https://example.com/h' },
          { typed: false, text: 'events[]=invoice.paid' },
          { typed: true, text: 'active=false' },
        ],
      }),
      fake.deps,
    );
    expect(sent).toEqual({ url: 'https://example.com/h', events: ['invoice.paid'], active: false });
    expect(fake.requests[1]!.headers['content-type']).toBe('application/json');
    expect(fake.stderr.text).toMatch(/signing secret: the service gives it only this once/);
  });

  it('-X GET with fields puts them in the query; -H headers are sent', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks?active=true&limit=1', method: 'GET' }).reply(200, '{"data":[],"has_more":false,"next_cursor":null}');
    await run(
      options({
        path: '/v1/webhooks',
        method: 'GET',
        fields: [
          { typed: false, text: 'active=true' },
          { typed: true, text: 'limit=1' },
        ],
        headers: [['X-Trace', 't1']],
      }),
      fake.deps,
    );
    expect(fake.requests[1]!.headers['x-trace']).toBe('t1');
  });

  it("--input: the body as read, its Content-Type the caller's when given (-H), POST by default", async () => {
    const fake = fakeDeps({ stdin: '{"active": false}' });
    mockToken(fake.mock);
    let body = '';
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'PATCH' }).reply((req) => {
      body = String(req.body);
      return jsonReply(200, { id: 'wh_1', active: false });
    });
    await run(options({ path: '/v1/webhooks/wh_1', method: 'PATCH', input: '-', headers: [['Content-Type', 'application/merge-patch+json']] }), fake.deps);
    expect(body).toBe('{"active": false}');
    expect(fake.requests[1]!.headers['content-type']).toBe('application/merge-patch+json');
  });

  it('a 204 prints nothing', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'DELETE' }).reply(204, '');
    expect(await run(options({ path: '/v1/webhooks/wh_1', method: 'DELETE' }), fake.deps)).toBe(0);
    expect(fake.stdout.text).toBe('');
  });

  it('on a terminal a JSON answer is indented (control characters escaped)', async () => {
    const fake = fakeDeps({ stdoutTTY: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/x', method: 'GET' }).reply(200, '{"a":"\\u001b[2J"}');
    await run(options({ path: '/v1/x' }), fake.deps);
    expect(fake.stdout.text).toBe('{\n  "a": "\\u001b[2J"\n}\n');
  });
});

describe('whsvc api: errors by class, before or after the request', () => {
  it('a 404 is an ApiError (exit 5 in main), its message from the body; nothing on stdout', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_nope', method: 'GET' }).reply(404, '{"error":{"code":"not_found","message":"no webhook with id wh_nope"}}');
    const error = await rejectionOf(run(options({ path: '/v1/webhooks/wh_nope' }), fake.deps));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'no webhook with id wh_nope' });
    expect(fake.stdout.text).toBe('');
  });

  it('a 403 carries the scope it needs (exit 4 in main)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(403, '{"error":{"code":"insufficient_scope","message":"needs webhooks:write"}}');
    const error = await rejectionOf(run(options({ path: '/v1/webhooks', fields: [{ typed: false, text: 'url=x' }] }), fake.deps));
    expect(error).toMatchObject({ status: 403, requiredScope: 'webhooks:write' });
  });

  it('a 401 gets one fresh token and one repeat; a second 401 is an AuthError', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { times: 2 });
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(401, '{}').times(2);
    expect(await rejectionOf(run(options({ path: '/v1/webhooks' }), fake.deps))).toBeInstanceOf(AuthError);
  });

  it('a URL of another host is refused before anything is sent, token request included', async () => {
    const fake = fakeDeps();
    const error = await rejectionOf(run(options({ path: 'https://other.host/v1/webhooks' }), fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(2);
    expect(fake.requests).toHaveLength(0);
  });

  it('--paginate with another method than GET is a usage error', async () => {
    const fake = fakeDeps();
    const error = await rejectionOf(run(options({ path: '/v1/webhooks', method: 'POST', paginate: true }), fake.deps));
    expect(error).toMatchObject({ exitCode: 2 });
  });
});

describe('whsvc api --paginate', () => {
  it('follows next_cursor with the same query, and prints one envelope of every page (has_more false, next_cursor null)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks?limit=2', method: 'GET' })
      .reply(200, JSON.stringify({ data: [{ id: 'a' }, { id: 'b' }], has_more: true, next_cursor: 'c1' }));
    fake.mock
      .intercept({ path: '/v1/webhooks?limit=2&cursor=c1', method: 'GET' })
      .reply(200, JSON.stringify({ data: [{ id: 'c', new_field: 1 }], has_more: false, next_cursor: null }));
    await run(options({ path: '/v1/webhooks?limit=2', paginate: true }), fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual({ data: [{ id: 'a' }, { id: 'b' }, { id: 'c', new_field: 1 }], has_more: false, next_cursor: null });
  });

  it('an answer that is not a list is printed as returned', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(200, '{"id":"wh_1"}');
    await run(options({ path: '/v1/webhooks/wh_1', paginate: true }), fake.deps);
    expect(fake.stdout.text).toBe('{"id":"wh_1"}\n');
  });
});

describe("whsvc api: the service's numbers as it wrote them", () => {
  const ITEM = '{"id":"a","n":12345678901234567890123,"m":1e400,"k":1.5}';
  it.each([
    ['--paginate', { paginate: true }, false],
    ['indented on a terminal', {}, true],
  ])('%s: a 23-digit number and 1e400 kept', async (_, flags, stdoutTTY) => {
    const fake = fakeDeps({ stdoutTTY });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(200, `{"data":[${ITEM}],"has_more":false,"next_cursor":null}`);
    await run(options({ path: '/v1/webhooks', ...flags }), fake.deps);
    expect(fake.stdout.text).toMatch(/"n": 12345678901234567890123,\s+"m": 1e400,\s+"k": 1.5\s/);
  });
});

describe('whsvc api --paginate and fields', () => {
  it('fields with --paginate are the query of a GET (no -X needed)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks?limit=1', method: 'GET' })
      .reply(200, JSON.stringify({ data: [{ id: 'a' }], has_more: false, next_cursor: null }));
    await run(options({ path: '/v1/webhooks', paginate: true, fields: [{ typed: true, text: 'limit=1' }] }), fake.deps);
    expect(JSON.parse(fake.stdout.text).data).toEqual([{ id: 'a' }]);
  });
});

describe('whsvc api: the answer is bounded as every answer is (--max-answer-size)', () => {
  it('an answer longer than the limit is an error naming the limit and the flag; nothing is printed', async () => {
    const fake = fakeDeps({ maxAnswerBytes: 1024 });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/export', method: 'GET' }).reply(200, 'x'.repeat(4096));
    const error = await rejectionOf(run(options({ path: '/v1/export' }), fake.deps));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'answer_too_large', message: expect.stringMatching(/GET \/v1\/export is longer than 1 KiB.*--max-answer-size/) });
    expect(fake.stdout.text).toBe('');
  });

  it('--paginate: a page past the limit ends the envelope short of a false end (the error, not has_more false)', async () => {
    const fake = fakeDeps({ maxAnswerBytes: 1024 });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(200, JSON.stringify({ data: [{ id: 'a' }], has_more: true, next_cursor: 'c1' }));
    fake.mock
      .intercept({ path: '/v1/webhooks?cursor=c1', method: 'GET' })
      .reply(200, JSON.stringify({ data: [{ id: 'x'.repeat(4096) }], has_more: false, next_cursor: null }));
    const error = await rejectionOf(run(options({ path: '/v1/webhooks', paginate: true }), fake.deps));
    expect(error).toMatchObject({ code: 'answer_too_large' });
    expect(fake.stdout.text).not.toContain('"has_more":false');
  });
});
