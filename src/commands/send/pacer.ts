import type { Transport, TransportResponse } from '../../api/transport.js';
import { TransportError } from '../../net.js';
import { samplePayload } from '../../protocol/catalog.js';
import { ANSWER_HEAD_BYTES, deliveryBody, madeDelivery, type MadeDelivery } from '../../protocol/delivery.js';
import type { SendResult } from '../../receiver/send-on.js';
import type { ArrivalPlan } from './arrivals.js';
import { LoadStats } from './load-stats.js';

/** The clock the arrivals are set by: this machine's, or a test's (which moves only when told). */
export interface Timers {
  /** Epoch milliseconds: when a delivery is due, and its `Date` header. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** This machine's clock, monotonic (a clock set back while the run goes on moves no delivery). */
export const systemTimers: Timers = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const answered = (answer: TransportResponse): SendResult => ({ status: answer.status });

/** No answer, in the words and code of the transport (net.ts); anything else, such as a bug, all the same a failure counted. */
const unanswered = (error: unknown): SendResult =>
  error instanceof TransportError
    ? { status: null, error: error.message, code: error.code }
    : { status: null, error: (error as Error)?.message ?? String(error), code: 'EUNEXPECTED' };

/** Deliveries started in one turn of the event loop at most; more due wait for the next turn. */
const AT_ONCE = 100;

/** Deliveries kept for a repeat: a repeat is of one sent a while before, as the service's retry comes after a wait. */
const KEPT_FOR_REPEATS = 32;

/** What each delivery of a run is made of: the event types in turn, its sender's headers, the secret. */
export interface DeliveryFacts {
  events: readonly string[];
  /** The share of deliveries that are repeats (0 to 1). */
  repeatShare: number;
  secret: string;
  platformName: string;
  userAgent: string;
}

/**
 * The deliveries of a run, made as the service makes them: each event type of `events` in turn, the catalog's
 * sample, signed, a fresh delivery id, attempt 1; and evenly among them (`repeatShare` of all) a repeat, a delivery
 * sent before, once, with its id and body and attempt 2, as the service sends one again when it heard no answer.
 */
export class Deliveries {
  private made = 0;
  private fresh = 0;
  private readonly kept: MadeDelivery[] = [];

  constructor(private readonly facts: DeliveryFacts) {}

  next(now: Date): { delivery: MadeDelivery; repeat: boolean } {
    const k = this.made;
    this.made += 1;
    // Evenly spread: the k-th is a repeat when the repeats due by it pass a whole number.
    const repeatDue = Math.floor((k + 1) * this.facts.repeatShare + 1e-9) > Math.floor(k * this.facts.repeatShare + 1e-9);
    const earlier = repeatDue ? this.kept.shift() : undefined;
    if (earlier) {
      const delivery = this.make(earlier.body, earlier.event, now, { deliveryId: earlier.deliveryId, attempt: 2 });
      return { delivery, repeat: true };
    }
    const event = this.facts.events[this.fresh % this.facts.events.length]!;
    this.fresh += 1;
    const delivery = this.make(deliveryBody(samplePayload(event, now)), event, now, {});
    this.kept.push(delivery);
    if (this.kept.length > KEPT_FOR_REPEATS) this.kept.shift();
    return { delivery, repeat: false };
  }

  private make(body: Buffer | string, event: string, sentAt: Date, again: { deliveryId?: string; attempt?: number }): MadeDelivery {
    const { secret, platformName, userAgent } = this.facts;
    return madeDelivery(body, { event, platformName, userAgent, sentAt, secret, ...again });
  }
}

export interface PacerDeps {
  transport: Transport;
  timers: Timers;
  /** Milliseconds of this machine, for how long each answer took (real, whatever `timers` are). */
  elapsedMs: () => number;
  /** Fires to end the run now (Ctrl-C): nothing more is started, and those open are not waited for. */
  stop?: AbortSignal | undefined;
  /** Told once, the first time the cap holds a delivery back. */
  onCap?: (() => void) | undefined;
}

/**
 * A run of deliveries at an open arrival rate: each is started when the plan says it is due, by the clock, whatever
 * the receiver does; a slow receiver means more requests open, up to `maxInFlight`, past which a delivery waits for
 * one to end and starts late (counted). Arrivals end with the plan (its duration); the requests still open are then
 * waited for, each up to its own time limit, so the run ends at most that limit after its duration.
 */
export class Pacer {
  readonly stats: LoadStats;
  private next = 0;
  private open = 0;
  private startedAt = 0;
  private timer: unknown;
  private arriving = true;
  private closed = false;
  private capTold = false;
  /** The cap is holding deliveries due back. */
  private held = false;
  private done: () => void = () => {};

  constructor(
    private readonly url: URL,
    private readonly plan: ArrivalPlan,
    private readonly limits: { timeoutMs: number; maxInFlight: number },
    private readonly deliveries: Deliveries,
    private readonly deps: PacerDeps,
  ) {
    this.stats = new LoadStats(plan.durationMs, plan.phases.length);
  }

  /** Runs the plan; resolves with what came of it once every delivery started has ended, or at a stop. */
  run(): Promise<LoadStats> {
    this.startedAt = this.deps.timers.now();
    const finished = new Promise<void>((resolve) => (this.done = resolve));
    if (this.deps.stop?.aborted) this.stopNow();
    else {
      this.deps.stop?.addEventListener('abort', () => this.stopNow(), { once: true });
      this.tick();
    }
    return finished.then(() => this.stats);
  }

  /** Milliseconds into the run, by the arrivals' clock. */
  get elapsed(): number {
    return this.deps.timers.now() - this.startedAt;
  }

  /** Requests open now. */
  get inFlight(): number {
    return this.open;
  }

  /** Starts every delivery due by now (as the cap allows), then waits for the next one to fall due, or the end. */
  private tick(): void {
    this.deps.timers.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.arriving) return;
    const now = this.elapsed;
    const over = now >= this.plan.durationMs;
    // Those due before the end start even when the timer came late (a busy machine): late, not missed.
    let started = 0;
    while (this.next < this.plan.total && this.plan.dueAt(this.next) <= now) {
      if (this.open >= this.limits.maxInFlight) {
        if (over) this.endArrivals();
        else this.capReached(now);
        return;
      }
      if (started === AT_ONCE) {
        // More are due than a turn starts (this process was held off its CPU): the answers that came meanwhile are
        // read before the rest start, so that a stall of this machine's own does not fill the cap in one turn.
        this.timer = this.deps.timers.setTimeout(() => this.tick(), 0);
        return;
      }
      this.start(this.next, now);
      this.next += 1;
      started += 1;
    }
    if (over || this.next >= this.plan.total) {
      this.endArrivals();
      return;
    }
    const wake = Math.min(this.plan.dueAt(this.next), this.plan.durationMs);
    this.timer = this.deps.timers.setTimeout(() => this.tick(), wake - now);
  }

  /** The cap holds the deliveries due back: the next to end starts them (ended); the run's end is still kept. */
  private capReached(now: number): void {
    this.held = true;
    this.stats.capReachedAt ??= Math.floor(now / 1000);
    if (!this.capTold) {
      this.capTold = true;
      this.deps.onCap?.();
    }
    this.timer = this.deps.timers.setTimeout(() => this.tick(), this.plan.durationMs - now);
  }

  private start(k: number, now: number): void {
    const due = this.plan.dueAt(k);
    const second = Math.min(Math.floor(due / 1000), this.stats.perSecond.sent.length - 1);
    const { delivery, repeat } = this.deliveries.next(new Date(this.deps.timers.now()));
    this.stats.started(second, this.plan.phaseOf(k), repeat, now - due);
    this.open += 1;
    const began = this.deps.elapsedMs();
    // Straight to the transport, not through sendAsReceived: the headers are ours, with nothing of a hop to leave out,
    // and neither a copy of them nor the answer's text is made, thousands of times a second.
    this.deps
      .transport({
        method: 'POST',
        url: this.url,
        headers: delivery.headers,
        body: delivery.body,
        timeoutMs: this.limits.timeoutMs,
        bodyLimit: ANSWER_HEAD_BYTES,
      })
      .then(answered, unanswered)
      .then((result) => this.ended(second, result, this.deps.elapsedMs() - began));
  }

  private ended(second: number, result: SendResult, ms: number): void {
    if (this.closed) return;
    this.open -= 1;
    this.stats.ended(second, result, ms);
    if (this.held) {
      // Held back by the cap: this one's place goes to the next due.
      this.held = false;
      this.tick();
    } else if (!this.arriving && this.open === 0) this.finish();
  }

  /** The run's duration is over (or every delivery is started): what was due and not started is missed. */
  private endArrivals(): void {
    this.arriving = false;
    this.held = false;
    // Every delivery due was started (or the duration is over): the arrivals held the whole duration.
    this.stats.arrivalsMs = this.plan.durationMs;
    this.stats.missed = this.plan.total - this.next;
    if (this.open === 0) this.finish();
  }

  private stopNow(): void {
    if (this.closed) return;
    this.deps.timers.clearTimeout(this.timer);
    this.arriving = false;
    this.stats.arrivalsMs = Math.min(this.elapsed, this.plan.durationMs);
    this.stats.cancelled = this.open;
    this.finish();
  }

  private finish(): void {
    this.closed = true;
    this.done();
  }
}
