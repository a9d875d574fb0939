import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { fakeDeps, finishFakeDeps, mockToken, rejectionOf } from '../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

describe("ApiClient.send: a request whose answer is the caller's, whatever its status", () => {
  it('answers a 4xx as it came, with the token and its refresh as for every call', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_x', method: 'GET' }).reply(404, '{"error":{"code":"not_found","message":"no such webhook"}}');
    const response = await fake.deps.api.send('GET', '/v1/webhooks/wh_x');
    expect(response.status).toBe(404);
    expect(fake.deps.api.errorFor('GET', '/v1/webhooks/wh_x', response)).toMatchObject({ status: 404, code: 'not_found', message: 'no such webhook' });
  });

  it("sends the body as given (bytes too) and the caller's headers, never in place of the token", async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(201, '{}');
    await fake.deps.api.send('POST', '/v1/webhooks', {
      body: new TextEncoder().encode('{"url":"u"}'),
      headers: { 'X-Trace': 'a', Authorization: 'Bearer other' },
    });
    const sent = fake.requests[1]!;
    expect(Buffer.from(sent.body as Uint8Array).toString()).toBe('{"url":"u"}');
    expect(sent.headers['x-trace']).toBe('a');
    expect(sent.headers.authorization).toBe('Bearer tok_test_1');
  });

  it('a path that would take the request (and its token) to another host is refused, nothing sent', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const error = await rejectionOf(fake.deps.api.send('GET', '@other.host/v1/webhooks'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toContain('is not a path at http://127.0.0.1:4010: nothing was sent');
    // The token was fetched (from the service's own address); nothing went anywhere else.
    expect(fake.requests.map((r) => r.url.host)).toEqual(['127.0.0.1:4010']);
  });
});
