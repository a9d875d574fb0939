import { describe, expect, it } from 'vitest';
import { forwardLimitMs } from '../../../../src/commands/listen/listen.js';

describe("listen --forward-to: the app's time", () => {
  it("is what is left of the sender's 10 s less half a second, so that listen's 502 reaches the sender before it hangs up", () => {
    expect(forwardLimitMs(0)).toBe(9_500);
    expect(forwardLimitMs(2_000)).toBe(7_500);
    // A request that took the whole limit to come still gets a moment to be forwarded.
    expect(forwardLimitMs(12_000)).toBe(100);
  });
});
