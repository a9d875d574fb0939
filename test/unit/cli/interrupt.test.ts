import { describe, expect, it, vi } from 'vitest';
import { withSystemSignals } from '../../../src/cli/interrupt.js';

describe('withSystemSignals (while jq holds the thread)', () => {
  it("takes whsvc's signal listeners away for the work and gives them back as they were: a once() listener still fires once", () => {
    // The test runner's own listeners are set aside, so that the emits below reach only the test's.
    const runners = process.rawListeners('SIGTERM') as Array<(...args: unknown[]) => void>;
    process.removeAllListeners('SIGTERM');
    const before = 0;
    const once = vi.fn();
    const always = vi.fn();
    process.once('SIGTERM', once);
    process.on('SIGTERM', always);
    try {
      const during = withSystemSignals(() => process.listenerCount('SIGTERM'));
      expect(during).toBe(0);
      expect(process.listenerCount('SIGTERM')).toBe(before + 2);
      process.emit('SIGTERM', 'SIGTERM');
      process.emit('SIGTERM', 'SIGTERM');
      expect(once).toHaveBeenCalledTimes(1);
      expect(always).toHaveBeenCalledTimes(2);
      expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    } finally {
      process.removeAllListeners('SIGTERM');
      for (const listener of runners) process.on('SIGTERM', listener);
    }
  });
});
