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
});
