import { ErrorAnswer } from './http.js';
import { counted } from '../render/text.js';
import { elapsed } from '../render/words.js';

/**
 * `sandbox start --rate-limit N`: at most N API requests (/v1, the token
 * request and the sandbox's own routes not counted) per client in each
 * second of the wall clock (never the sandbox's clock, which a manual clock
 * stops); the next one is 429 with the Retry-After a real service sends.
 */
export class RateLimiter {
  private second = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `clientId`, or throws the 429 that refuses it. */
  take(clientId: string): void {
    const now = this.now();
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.counts.clear();
    }
    const count = (this.counts.get(clientId) ?? 0) + 1;
    this.counts.set(clientId, count);
    if (count > this.perSecond) {
      const retryAfter = Math.max(1, Math.ceil(((second + 1) * 1000 - now) / 1000));
      throw new ErrorAnswer(
        429,
        'rate_limited',
        `more than ${counted(this.perSecond, 'request')} in one second from this client; try again in ${elapsed(retryAfter * 1000)}`,
        {
          'retry-after': String(retryAfter),
        },
      );
    }
  }
}
