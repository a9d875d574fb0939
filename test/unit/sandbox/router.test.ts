import { describe, expect, it } from 'vitest';
import type { ErrorAnswer } from '../../../src/sandbox/http.js';
import { Router } from '../../../src/sandbox/router.js';

const router = new Router<string>(new Set(['webhook-events']))
  .add('GET', 'v1/webhooks/:id', 'get')
  .add('PATCH', 'v1/webhooks/:id', 'update')
  .add('GET', 'v1/webhooks/webhook-events', 'events')
  .add('POST', 'v1/webhooks/:id/test', 'test');
const failure = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as ErrorAnswer;
  }
  throw new Error('no error');
};

describe("the sandbox's router (API and inspector)", () => {
  it('matches a method and a path, naming its parameters', () => {
    expect(router.match('GET', ['v1', 'webhooks', 'wh_1'])).toEqual({ handler: 'get', params: { id: 'wh_1' } });
    expect(router.match('POST', ['v1', 'webhooks', 'wh_1', 'test'])).toEqual({ handler: 'test', params: { id: 'wh_1' } });
  });

  it('a literal segment is never taken as a parameter', () => {
    expect(router.match('GET', ['v1', 'webhooks', 'webhook-events']).handler).toBe('events');
    expect(failure(() => router.match('PATCH', ['v1', 'webhooks', 'webhook-events']))).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
  });

  it('an unknown path is 404; a known path with another method is 405 naming the methods it takes', () => {
    expect(failure(() => router.match('GET', ['v1', 'nothing']))).toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'no such endpoint: GET /v1/nothing',
    });
    expect(failure(() => router.match('DELETE', ['v1', 'webhooks', 'wh_1']))).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD, PATCH' } });
    expect(failure(() => router.match('GET', ['v1', 'webhooks', '']))).toMatchObject({ status: 404 });
  });

  it('HEAD takes the GET route (RFC 9110: wherever GET is), and nothing else', () => {
    expect(router.match('HEAD', ['v1', 'webhooks', 'wh_1'])).toEqual({ handler: 'get', params: { id: 'wh_1' } });
    expect(failure(() => router.match('HEAD', ['v1', 'webhooks', 'wh_1', 'test']))).toMatchObject({ status: 405, headers: { allow: 'POST' } });
  });
});
