import { describe, expect, it } from 'vitest';
import { jumpProgress } from '../../../../src/commands/sandbox/clock.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

describe("a jump's progress line", () => {
  it('says how much of the jump has passed and its attempts, whole within 60 columns (the line is cut at one less)', () => {
    const line = jumpProgress(iso(47 * 3_600_000), { from: iso(0), to: iso(3 * 86_400_000), sent: 12_345, sending: 256, due: 6_789 });
    expect(line).toBe('1 d 23 h of 3 d · 12,345 sent · 256 under way · 6,789 due');
    expect(line.length).toBeLessThanOrEqual(59);
    expect(jumpProgress(iso(75_000), { from: iso(0), to: iso(3_600_000), sent: 18, sending: 6, due: 8 })).toBe(
      '1 min 15 s of 1 h · 18 sent · 6 under way · 8 due',
    );
  });
});
