import { describe, expect, it } from 'vitest';
import { AnswerTimes, LoadStats, noAnswerKind } from '../../../../src/commands/send/load-stats.js';

/** The nearest-rank quantile of `values`, exactly. */
const exactQuantile = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.max(1, Math.ceil(share * values.length)) - 1]!;

describe('send --rate: answer times in a histogram', () => {
  it('reads p50 and p99 back within 1% of the exact ones, from tenths of a millisecond to minutes', () => {
    // A spread like a receiver's: most fast, a tail slow, a few very slow; a fixed sequence, not random.
    const values: number[] = [];
    for (let i = 0; i < 20_000; i++) values.push(0.05 + ((i * 7919) % 1000) / 100);
    for (let i = 0; i < 300; i++) values.push(200 + i * 13.7);
    for (let i = 0; i < 10; i++) values.push(60_000 + i * 1111);
    const times = new AnswerTimes();
    for (const value of values) times.record(value);
    expect(times.count).toBe(values.length);
    expect(times.max).toBe(Math.max(...values));
    for (const share of [0.5, 0.9, 0.99, 0.999, 1]) {
      const exact = exactQuantile(values, share);
      expect(Math.abs(times.quantile(share)! - exact) / exact, `p${share * 100}: ${times.quantile(share)} against ${exact}`).toBeLessThan(0.01);
    }
  });

  it('is exact below 128 µs, says nothing with no answer, and never reads a time past the longest', () => {
    const times = new AnswerTimes();
    expect(times.quantile(0.5)).toBeUndefined();
    times.record(0.042);
    expect(times.quantile(0.5)).toBe(0.042);
    times.record(7);
    expect(times.quantile(1)).toBe(7);
  });

  it('holds the same counters for a million answers as for one: its memory does not grow', () => {
    const one = new AnswerTimes();
    one.record(3);
    const many = new AnswerTimes();
    for (let i = 0; i < 1_000_000; i++) many.record((i % 5000) / 10);
    const counters = (times: AnswerTimes) => (times as unknown as { counts: Float64Array }).counts.length;
    expect(counters(many)).toBe(counters(one));
    expect(counters(one)).toBe(2304);
    // Longer than its top bucket (25 days) counts in the top one.
    many.record(90 * 86_400_000);
    expect(many.count).toBe(1_000_001);
  });
});

describe('send --rate: what a run saw', () => {
  it('names each kind of no answer by the transport code', () => {
    expect(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EBADANSWER', 'EMFILE', 'EADDRNOTAVAIL', 'ETLS', undefined].map(noAnswerKind)).toEqual([
      'refused',
      'reset',
      'reset',
      'timed_out',
      'broken',
      'local',
      'local',
      'other',
      'other',
    ]);
  });

  it('counts answers by class and failures by kind, keeping the first words of each kind', () => {
    const stats = new LoadStats(3000, 1);
    for (let i = 0; i < 4; i++) stats.started(0, 0, i === 3, 0);
    stats.ended(0, { status: 200 }, 2);
    stats.ended(0, { status: 503 }, 4);
    stats.ended(0, { status: null, error: 'connection refused', code: 'ECONNREFUSED' }, 0);
    stats.ended(0, { status: null, error: 'no answer within 10 s', code: 'ETIMEDOUT' }, 10_000);
    expect(stats.sent).toBe(4);
    expect(stats.repeats).toBe(1);
    expect(stats.answers).toEqual({ '2xx': 1, '3xx': 0, '4xx': 0, '5xx': 1 });
    expect(stats.noAnswer).toMatchObject({ refused: 1, timed_out: 1, reset: 0 });
    expect(stats.noAnswerWords.get('refused')).toBe('connection refused');
    expect(stats.failed).toBe(3);
    // Only answers have a time.
    expect(stats.times.count).toBe(2);
  });

  it('counts a start more than 100 ms behind its time as late, and the latest', () => {
    const stats = new LoadStats(1000, 1);
    stats.started(0, 0, false, 100);
    stats.started(0, 0, false, 101);
    stats.started(0, 0, false, 450);
    expect(stats.late).toBe(2);
    expect(stats.mostLateMs).toBe(450);
  });

  it('finds the first second in which more than 1% of the deliveries due failed; a stray failure under it is no start', () => {
    const stats = new LoadStats(4000, 1);
    const second = (at: number, ok: number, failed: number) => {
      for (let i = 0; i < ok + failed; i++) stats.started(at, 0, false, 0);
      for (let i = 0; i < ok; i++) stats.ended(at, { status: 200 }, 1);
      for (let i = 0; i < failed; i++) stats.ended(at, { status: 503 }, 1);
    };
    second(0, 200, 0);
    second(1, 199, 1);
    expect(stats.failingSince()).toBeUndefined();
    second(2, 197, 3);
    second(3, 0, 200);
    expect(stats.failingSince()).toBe(2);
    expect(Array.from(stats.perSecond.failed)).toEqual([0, 1, 3, 200]);
  });

  it("leaves this machine's own failures (no file descriptor left) out of when the receiver began to fail", () => {
    const stats = new LoadStats(1000, 1);
    stats.started(0, 0, false, 0);
    stats.ended(0, { status: null, error: 'too many open files (EMFILE): the process is at its file limit', code: 'EMFILE' }, 0);
    expect(stats.failingSince()).toBeUndefined();
    expect(stats.noAnswer.local).toBe(1);
    expect(stats.failed).toBe(1);
  });
});
