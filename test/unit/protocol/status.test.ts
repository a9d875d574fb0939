import { describe, expect, it } from 'vitest';
import { DELIVERY_STATUSES, isDelivered, isDeliveryStatus } from '../../../src/protocol/status.js';

describe('isDelivered: what a receiver answers to take a delivery', () => {
  it('is any 2xx, from 200 to 299', () => {
    expect([200, 201, 202, 204, 299].map(isDelivered)).toEqual([true, true, true, true, true]);
  });

  it('is not a 1xx, 3xx, 4xx or 5xx, nor no answer at all', () => {
    expect([100, 199, 300, 301, 304, 400, 404, 429, 500, 503, 0].map(isDelivered)).toEqual(Array(11).fill(false));
    expect(isDelivered(null)).toBe(false);
    expect(isDelivered(undefined)).toBe(false);
  });
});

describe("a delivery's status", () => {
  it("is one of the interface's three words, in the order --status lists them", () => {
    expect(DELIVERY_STATUSES).toEqual(['delivered', 'failed', 'pending']);
    expect(DELIVERY_STATUSES.every(isDeliveryStatus)).toBe(true);
  });

  it('is no other word, whatever its case', () => {
    expect(['', 'Delivered', 'FAILED', 'queued', 'retry_due', 'delivered '].some(isDeliveryStatus)).toBe(false);
  });
});
