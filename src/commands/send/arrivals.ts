import { InvalidArgumentError } from '@commander-js/extra-typings';
import { usageError } from '../../cli/errors.js';
import { durationMs } from '../../cli/parse.js';
import { durationText, elapsed } from '../../render/words.js';

// When each delivery of `send --rate` is due: the arrivals of an open model, set by the clock alone (vegeta's constant
// pacer, k6's constant-arrival-rate), never by the answers. `--rate` over `--duration`, with `--spike`s at rates of
// their own for a while.

/** The most deliveries a second `--rate` and `--spike` take: past what one process sends (docs/benchmarks.md). */
export const MOST_PER_SECOND = 50_000;

const RATE_FORMS = 'a number of deliveries a second (200), or per a duration (200/s, 12000/m, 50/500ms)';

/** `200` (a second), `200/s`, `12000/m`, `50/500ms`, `1/1h`: deliveries a second, or undefined when it is none of them. */
function perSecondOf(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(?:\/(\d*(?:\.\d+)?)(ms|s|m|h))?$/.exec(value.trim());
  if (!match) return undefined;
  const per = match[3] === undefined ? 1000 : durationMs(`${match[2] || '1'}${match[3]}`);
  if (per === undefined || per <= 0) return undefined;
  return (Number(match[1]) * 1000) / per;
}

/** The parser of `--rate`: deliveries a second, more than none, at most MOST_PER_SECOND. */
export function rate(value: string): number {
  const perSecond = perSecondOf(value);
  if (perSecond === undefined) throw new InvalidArgumentError(`must be ${RATE_FORMS}.`);
  checkPerSecond(perSecond);
  return perSecond;
}

function checkPerSecond(perSecond: number): void {
  if (perSecond <= 0) throw new InvalidArgumentError('must be more than none.');
  if (perSecond > MOST_PER_SECOND) throw new InvalidArgumentError(`must be at most ${MOST_PER_SECOND} a second.`);
}

/** A `--spike`: a rate of its own (or a multiple of `--rate`) from `atMs` into the run, for `forMs`. */
export interface Spike {
  /** As given, for messages. */
  given: string;
  /** Deliveries a second; undefined when the spike is a multiple of --rate (`times`). */
  perSecond?: number | undefined;
  times?: number | undefined;
  atMs: number;
  forMs: number;
}

const SPIKE_FORMS = 'RATE@START+LENGTH: 10x@20s+10s (ten times --rate, 20 s in, for 10 s), or 2000@1m+30s (2000 a second)';

/** The parser of `--spike RATE@START+LENGTH` (repeatable): `10x@20s+10s`, `2000@1m+30s`, `2000/s@90s+5s`. */
export function spike(value: string, previous: Spike[] | undefined): Spike[] {
  const match = /^([^@]+)@([^+]+)\+(.+)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError(`must be ${SPIKE_FORMS}.`);
  const [, rateText, atText, forText] = match as unknown as [string, string, string, string];
  const times = /^(\d+(?:\.\d+)?)x$/i.exec(rateText.trim());
  const perSecond = times ? undefined : perSecondOf(rateText);
  if (!times && perSecond === undefined) throw new InvalidArgumentError(`its rate ${rateText} must be a multiple of --rate (10x) or ${RATE_FORMS}.`);
  if (times && !(Number(times[1]) > 0)) throw new InvalidArgumentError('its multiple of --rate must be more than none.');
  if (perSecond !== undefined) checkPerSecond(perSecond);
  const atMs = durationMs(atText);
  const forMs = durationMs(forText);
  if (atMs === undefined || forMs === undefined || forMs <= 0) {
    throw new InvalidArgumentError(`its start and length must be durations such as 20s, 1m or 500ms (a length more than none): ${SPIKE_FORMS}.`);
  }
  return [...(previous ?? []), { given: value, perSecond, times: times ? Number(times[1]) : undefined, atMs, forMs }];
}

/** A stretch of the run at one rate: from `fromMs` to `toMs` into the run, `perSecond` deliveries a second. */
export interface Phase {
  fromMs: number;
  toMs: number;
  perSecond: number;
  /** The spike it is, as given; undefined for the base --rate. */
  spike?: string | undefined;
}

/**
 * The run's phases, in order, end to end from 0 to `durationMs`: `--rate` where no spike is. A spike that ends past
 * the run, or overlaps another, is a usage error (which rate would hold there is not for whsvc to guess).
 */
export function phasesOf(perSecond: number, durationMs: number, spikes: readonly Spike[]): Phase[] {
  const sorted = [...spikes].sort((a, b) => a.atMs - b.atMs);
  const phases: Phase[] = [];
  let at = 0;
  for (const [i, each] of sorted.entries()) {
    const end = each.atMs + each.forMs;
    if (end > durationMs) {
      throw usageError(`--spike ${each.given} ends ${elapsed(end)} into the run, past --duration ${durationText(durationMs)}`, 'a spike lies within the run');
    }
    const before = sorted[i - 1];
    if (before && each.atMs < before.atMs + before.forMs) throw usageError(`--spike ${before.given} and --spike ${each.given} overlap: give spikes apart`);
    const spikeRate = each.perSecond ?? perSecond * each.times!;
    if (spikeRate > MOST_PER_SECOND) throw usageError(`--spike ${each.given} is ${spikeRate} a second: at most ${MOST_PER_SECOND}`);
    if (each.atMs > at) phases.push({ fromMs: at, toMs: each.atMs, perSecond });
    phases.push({ fromMs: each.atMs, toMs: end, perSecond: spikeRate, spike: each.given });
    at = end;
  }
  if (at < durationMs) phases.push({ fromMs: at, toMs: durationMs, perSecond });
  return phases;
}

/** Counts of arrivals rounded to this: 100/h over 36 s is 1, not 0.9999999999. */
const COUNT_PRECISION = 1e6;
const rounded = (count: number) => Math.round(count * COUNT_PRECISION) / COUNT_PRECISION;

/**
 * The arrivals of a run: delivery k (from 0) is due at the moment the phases' rates have made k deliveries due
 * (evenly spaced within a phase, the first at 0), and the run holds every k due before its end: 200 a second for
 * 10 s is 2,000, due every 5 ms from 0 to 9,995 ms.
 */
export class ArrivalPlan {
  /** Deliveries due before each phase starts (its first is due at the least k not below it). */
  private readonly before: number[] = [];
  /** Deliveries due in the whole run. */
  readonly total: number;

  constructor(readonly phases: readonly Phase[]) {
    let count = 0;
    for (const phase of phases) {
      this.before.push(count);
      count = rounded(count + (phase.perSecond * (phase.toMs - phase.fromMs)) / 1000);
    }
    this.total = Math.ceil(count);
  }

  get durationMs(): number {
    return this.phases.at(-1)?.toMs ?? 0;
  }

  /** The phase delivery k is due in (its index), for k below total. */
  phaseOf(k: number): number {
    let i = 0;
    while (i + 1 < this.phases.length && this.before[i + 1]! <= k) i += 1;
    return i;
  }

  /** When delivery k is due, in milliseconds into the run; Infinity for k past the run. */
  dueAt(k: number): number {
    if (k >= this.total) return Number.POSITIVE_INFINITY;
    const i = this.phaseOf(k);
    const phase = this.phases[i]!;
    return phase.fromMs + ((k - this.before[i]!) * 1000) / phase.perSecond;
  }

  /** Deliveries due in phase i. */
  dueIn(i: number): number {
    return Math.min(this.total, Math.ceil(this.before[i + 1] ?? this.total)) - Math.ceil(this.before[i]!);
  }
}
