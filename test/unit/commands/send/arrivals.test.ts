import { describe, expect, it } from 'vitest';
import { ArrivalPlan, phasesOf, rate, type Spike, spike } from '../../../../src/commands/send/arrivals.js';

const spikes = (...given: string[]): Spike[] => given.reduce<Spike[]>((all, value) => spike(value, all), []);

describe('send --rate: the rate and spike flags', () => {
  it('takes a rate a second, or per a duration, as vegeta writes it', () => {
    expect(rate('200')).toBe(200);
    expect(rate('200/s')).toBe(200);
    expect(rate('12000/m')).toBe(200);
    expect(rate('50/500ms')).toBe(100);
    expect(rate('1/1h')).toBeCloseTo(1 / 3600, 12);
    expect(rate('2.5')).toBe(2.5);
    for (const bad of ['', 'fast', '-5', '200/x', '200/0s']) expect(() => rate(bad), bad).toThrow(/must be a number of deliveries a second/);
    expect(() => rate('0')).toThrow('must be more than none.');
    expect(() => rate('50001')).toThrow('must be at most 50000 a second.');
  });

  it('takes a spike as RATE@START+LENGTH: a multiple of --rate, or a rate of its own; repeatable', () => {
    expect(spikes('10x@20s+10s', '2000@1m+30s', '600/m@90s+500ms')).toEqual([
      { given: '10x@20s+10s', perSecond: undefined, times: 10, atMs: 20_000, forMs: 10_000 },
      { given: '2000@1m+30s', perSecond: 2000, times: undefined, atMs: 60_000, forMs: 30_000 },
      { given: '600/m@90s+500ms', perSecond: 10, times: undefined, atMs: 90_000, forMs: 500 },
    ]);
    expect(() => spikes('10x')).toThrow('must be RATE@START+LENGTH: 10x@20s+10s');
    expect(() => spikes('tenx@20s+10s')).toThrow('its rate tenx must be a multiple of --rate (10x)');
    expect(() => spikes('0x@20s+10s')).toThrow('its multiple of --rate must be more than none.');
    expect(() => spikes('10x@soon+10s')).toThrow('its start and length must be durations');
    expect(() => spikes('10x@20s+0s')).toThrow('its start and length must be durations');
  });
});

describe('send --rate: the phases of a run', () => {
  it('is --rate throughout without a spike', () => {
    expect(phasesOf(200, 10_000, [])).toEqual([{ fromMs: 0, toMs: 10_000, perSecond: 200 }]);
  });

  it('puts each spike in its place, at its rate or the multiple of --rate, and --rate around them', () => {
    expect(phasesOf(100, 60_000, spikes('2000@50s+10s', '10x@20s+10s'))).toEqual([
      { fromMs: 0, toMs: 20_000, perSecond: 100 },
      { fromMs: 20_000, toMs: 30_000, perSecond: 1000, spike: '10x@20s+10s' },
      { fromMs: 30_000, toMs: 50_000, perSecond: 100 },
      { fromMs: 50_000, toMs: 60_000, perSecond: 2000, spike: '2000@50s+10s' },
    ]);
    expect(phasesOf(100, 20_000, spikes('10x@0s+10s', '5x@10s+10s')).map((p) => p.perSecond)).toEqual([1000, 500]);
  });

  it('refuses a spike past the run, spikes that overlap, and a multiple past the most a second', () => {
    expect(() => phasesOf(100, 60_000, spikes('10x@55s+10s'))).toThrow('--spike 10x@55s+10s ends 1 min 5 s into the run, past --duration 1m');
    expect(() => phasesOf(100, 60_000, spikes('10x@20s+10s', '2x@25s+10s'))).toThrow('--spike 10x@20s+10s and --spike 2x@25s+10s overlap');
    expect(() => phasesOf(10_000, 60_000, spikes('10x@20s+10s'))).toThrow('--spike 10x@20s+10s is 100000 a second: at most 50000');
  });
});

describe('send --rate: when each delivery is due', () => {
  it('200 a second for 10 s: 2,000, every 5 ms from 0 to 9,995 ms', () => {
    const plan = new ArrivalPlan(phasesOf(200, 10_000, []));
    expect(plan.total).toBe(2000);
    expect(plan.durationMs).toBe(10_000);
    expect([0, 1, 2, 999, 1000, 1999].map((k) => plan.dueAt(k))).toEqual([0, 5, 10, 4995, 5000, 9995]);
    expect(plan.dueAt(2000)).toBe(Number.POSITIVE_INFINITY);
    expect(plan.dueIn(0)).toBe(2000);
  });

  it('a spike: ten times as close together for its while, then back', () => {
    const plan = new ArrivalPlan(phasesOf(100, 30_000, spikes('10x@10s+10s')));
    expect(plan.total).toBe(1000 + 10_000 + 1000);
    expect([999, 1000, 1001, 10_999, 11_000, 11_001].map((k) => plan.dueAt(k))).toEqual([9990, 10_000, 10_001, 19_999, 20_000, 20_010]);
    expect([0, 1, 2].map((i) => plan.dueIn(i))).toEqual([1000, 10_000, 1000]);
    expect([999, 1000, 10_999, 11_000].map((k) => plan.phaseOf(k))).toEqual([0, 1, 1, 2]);
  });

  it('rates that do not fit their phases whole: each delivery due where the count passes it, none lost or doubled at a border', () => {
    const plan = new ArrivalPlan(phasesOf(3, 2500, spikes('7@500ms+1s')));
    // 1.5 due in the first 500 ms, 7 in the spike, 3 in the last second: 11.5, so 12 (k from 0 to 11).
    expect(plan.total).toBe(12);
    const times = Array.from({ length: 12 }, (_, k) => plan.dueAt(k));
    expect(times.slice(0, 3)).toEqual([0, 1000 / 3, 500 + (0.5 * 1000) / 7]);
    for (let k = 1; k < times.length; k++) expect(times[k]!).toBeGreaterThan(times[k - 1]!);
    expect(times.at(-1)!).toBeLessThan(2500);
    expect([0, 1, 2].map((i) => plan.dueIn(i)).reduce((a, b) => a + b)).toBe(12);
    // An hour's rate over 36 s is one delivery, not 0.99999.
    expect(new ArrivalPlan(phasesOf(rate('100/h'), 36_000, [])).total).toBe(1);
  });
});
