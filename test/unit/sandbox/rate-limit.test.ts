import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/sandbox/rate-limit.js';
import { ErrorAnswer } from '../../../src/sandbox/http.js';

describe('RateLimiter', () => {
  it('lets N requests of a client through in a second, refuses the next with 429 and Retry-After, and starts again the next second', () => {
    let now = 10_250;
    const limiter = new RateLimiter(3, () => now);
    for (let i = 0; i < 3; i++) limiter.take('a');
    limiter.take('b');
    let refused: unknown;
    try {
      limiter.take('a');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ErrorAnswer);
    expect((refused as ErrorAnswer).status).toBe(429);
    expect((refused as ErrorAnswer).headers['retry-after']).toBe('1');
    now = 11_000;
    expect(() => limiter.take('a')).not.toThrow();
  });

  it.each([
    [1, 'more than 1 request in one second from this client; try again in 1 s'],
    [1_000, 'more than 1,000 requests in one second from this client; try again in 1 s'],
  ])('a refusal of --rate-limit %i says its count in words', (perSecond, message) => {
    const limiter = new RateLimiter(perSecond, () => 10_250);
    for (let i = 0; i < perSecond; i++) limiter.take('a');
    expect(() => limiter.take('a')).toThrow(message);
  });
});
