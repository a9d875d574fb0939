import { describe, expect, it } from 'vitest';
import { dueTable, jumpProgress } from '../../../../src/commands/sandbox/clock.js';
import { PLAIN } from '../../../../src/render/colors.js';

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

describe('the attempts due next', () => {
  const due = [
    { delivery_id: `dlv_${'a'.repeat(24)}`, webhook_id: `wh_${'b'.repeat(24)}`, event: 'invoice.paid', attempt: 2, due_at: iso(5_000) },
    { delivery_id: `dlv_${'c'.repeat(24)}`, webhook_id: `wh_${'d'.repeat(24)}`, event: 'production_order.completed', attempt: 3, due_at: iso(28_000) },
  ];

  it.each([60, 80, 100, 132])('at %i columns, say when in the long form, as a sentence says a time (`in 5 seconds`, not `in 5s`)', async (width) => {
    const lines = (await dueTable(due, T0, PLAIN, { maxWidth: width })).trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(width);
    expect(lines[1]).toMatch(/ in 5 seconds\b/);
    expect(lines[2]).toMatch(/ in 28 seconds\b/);
  });

  it('takes the compact form only where nothing else can go', async () => {
    const lines = (await dueTable(due, T0, PLAIN, { maxWidth: 50 })).trimEnd().split('\n');
    expect(lines[1]).toMatch(/ in 5s\b/);
  });
});
