import type { SendResult } from '../../receiver/send-on.js';

/**
 * Answer times in a fixed number of counters, whatever the number of answers (HdrHistogram's log-linear buckets):
 * exact below 128 µs, then 64 buckets per power of two, each within 1/64 of its value; a time is read back as its
 * bucket's middle, within 0.8% of the time itself. Microseconds up to 2^41 (25 days): 2,304 counters.
 */
export class AnswerTimes {
  private static readonly EXACT = 128;
  private static readonly HALF = 64;
  private static readonly TOP_SHIFT = 34;
  private readonly counts = new Float64Array(AnswerTimes.EXACT + AnswerTimes.TOP_SHIFT * AnswerTimes.HALF);
  count = 0;
  private most = 0;

  record(ms: number): void {
    const us = Math.max(0, Math.round(ms * 1000));
    this.counts[AnswerTimes.indexOf(us)]! += 1;
    this.count += 1;
    this.most = Math.max(this.most, ms);
  }

  /** The longest time recorded, as it was. */
  get max(): number {
    return this.most;
  }

  /**
   * The time that `share` (0.5, 0.99) of the answers took at most: the one of rank ⌈share × count⌉ (nearest rank),
   * in milliseconds; undefined with no answer.
   */
  quantile(share: number): number | undefined {
    if (this.count === 0) return undefined;
    const rank = Math.max(1, Math.ceil(share * this.count));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.most, AnswerTimes.middleOf(i) / 1000);
    }
    return this.most;
  }

  private static indexOf(us: number): number {
    if (us < AnswerTimes.EXACT) return us;
    const shift = Math.min(Math.floor(Math.log2(us)) - 6, AnswerTimes.TOP_SHIFT);
    const top = Math.min(Math.floor(us / 2 ** shift), 2 * AnswerTimes.HALF - 1);
    return AnswerTimes.EXACT + (shift - 1) * AnswerTimes.HALF + (top - AnswerTimes.HALF);
  }

  private static middleOf(index: number): number {
    if (index < AnswerTimes.EXACT) return index;
    const shift = Math.floor((index - AnswerTimes.EXACT) / AnswerTimes.HALF) + 1;
    const top = ((index - AnswerTimes.EXACT) % AnswerTimes.HALF) + AnswerTimes.HALF;
    return top * 2 ** shift + 2 ** (shift - 1);
  }
}

/** Why a delivery got no answer, in the kinds a receiver's owner acts on. */
export type NoAnswerKind = 'refused' | 'reset' | 'timed_out' | 'broken' | 'local' | 'other';

/** The kind of a failure by its transport code (net.ts). `local`: this machine's own limit (EMFILE, no port), never the receiver's. */
export function noAnswerKind(code: string | undefined): NoAnswerKind {
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'reset';
    case 'ETIMEDOUT':
      return 'timed_out';
    case 'EBADANSWER':
      return 'broken';
    case 'EMFILE':
    case 'ENFILE':
    case 'ENOBUFS':
    case 'ENOMEM':
    case 'EADDRNOTAVAIL':
      return 'local';
    default:
      return 'other';
  }
}

export type AnswerClass = '2xx' | '3xx' | '4xx' | '5xx';

/**
 * A second is failing when more than this share of the deliveries due in it that were answered or refused failed
 * (anything but a 2xx in time; this machine's own failures aside). 1%: one failure in 100, a stray one at a low rate.
 */
export const FAILING_SHARE = 0.01;

/** A delivery started more than this after it was due counts as a late start: the cap held it back, or this machine could not keep up. */
export const LATE_MS = 100;

/**
 * What a run saw, in memory that does not grow with the deliveries: counts, answer times in a histogram, a few
 * counters for each second of the run (by the second each delivery was due in), and the first words of each kind of
 * failure. Bodies are never kept.
 */
export class LoadStats {
  sent = 0;
  repeats = 0;
  /** Deliveries due that were never started: the run ended while the cap held them back. */
  missed = 0;
  /** Started more than LATE_MS after they were due, and the most behind one. */
  late = 0;
  mostLateMs = 0;
  /** Still open when the run was stopped (Ctrl-C): neither answered nor failed. */
  cancelled = 0;
  readonly answers: Record<AnswerClass, number> = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
  readonly noAnswer: Record<NoAnswerKind, number> = { refused: 0, reset: 0, timed_out: 0, broken: 0, local: 0, other: 0 };
  /** The first words said of each kind of no answer (`connection refused`, `no answer within 10 s`). */
  readonly noAnswerWords = new Map<NoAnswerKind, string>();
  readonly times = new AnswerTimes();
  /** Each second of the run: deliveries due in it that were sent, answered 2xx, and failed. */
  readonly perSecond: { sent: Uint32Array; ok: Uint32Array; failed: Uint32Array };
  /** The first second the cap of open requests was reached, if it was. */
  capReachedAt: number | undefined;

  /** Deliveries sent of those due in each phase of the plan. */
  readonly phaseSent: number[];
  /** How long deliveries were started for: the run's duration, or until it was stopped. */
  arrivalsMs = 0;

  constructor(durationMs: number, phases: number) {
    this.phaseSent = new Array<number>(phases).fill(0);
    const seconds = Math.max(1, Math.ceil(durationMs / 1000));
    this.perSecond = { sent: new Uint32Array(seconds), ok: new Uint32Array(seconds), failed: new Uint32Array(seconds) };
  }

  started(second: number, phase: number, repeat: boolean, lateMs: number): void {
    this.sent += 1;
    this.phaseSent[phase]! += 1;
    if (repeat) this.repeats += 1;
    this.perSecond.sent[second]! += 1;
    if (lateMs > LATE_MS) this.late += 1;
    this.mostLateMs = Math.max(this.mostLateMs, lateMs);
  }

  /** What came of a delivery due in `second`, which took `ms` when it was answered. */
  ended(second: number, result: SendResult, ms: number): void {
    if (result.status !== null) {
      this.times.record(ms);
      const answerClass = `${Math.floor(result.status / 100)}xx` as AnswerClass;
      if (answerClass in this.answers) this.answers[answerClass] += 1;
      if (answerClass === '2xx') this.perSecond.ok[second]! += 1;
      else this.perSecond.failed[second]! += 1;
      return;
    }
    const kind = noAnswerKind(result.code);
    this.noAnswer[kind] += 1;
    if (!this.noAnswerWords.has(kind)) this.noAnswerWords.set(kind, result.error ?? kind);
    if (kind !== 'local') this.perSecond.failed[second]! += 1;
  }

  /** Deliveries that failed: any answer but a 2xx, and no answer. */
  get failed(): number {
    const answered = Object.values(this.answers).reduce((a, b) => a + b, 0);
    const unanswered = Object.values(this.noAnswer).reduce((a, b) => a + b, 0);
    return answered - this.answers['2xx'] + unanswered;
  }

  /** The first second (from 0) in which more than FAILING_SHARE of the deliveries that ended failed; undefined if none. */
  failingSince(): number | undefined {
    const { ok, failed } = this.perSecond;
    for (let second = 0; second < failed.length; second++) {
      const ended = ok[second]! + failed[second]!;
      if (failed[second]! > 0 && failed[second]! > FAILING_SHARE * ended) return second;
    }
    return undefined;
  }
}
