import type { Dispatcher } from 'undici';
import { elapsedClock, type Clock } from './clock.js';
import { newId } from './ids.js';
import { DeliveryCap } from './delivery-cap.js';
import { Lanes } from './lanes.js';
import { RetryTimer } from './retry-timer.js';
import { MOST_CONNECTIONS } from './connections.js';
import { BatchedWrites } from './store/batched-writes.js';
import type { Database } from './store/database.js';
import type { DeliveryRepository } from './store/deliveries.js';
import type { AttemptRow, DeliveryRow, WebhookRow } from './store/rows.js';
import type { WebhookRepository } from './store/webhooks.js';
import { deliveryHeaders, DEFAULT_PLATFORM_NAME } from '../protocol/headers.js';
import { ANSWER_HEAD_BYTES, DELIVERY_TIMEOUT_MS, signedDelivery } from '../protocol/delivery.js';
import { isDelivered, type DeliveryStatus } from '../protocol/status.js';
import { exchange } from '../exchange.js';
import { connectionFor, localFailure, TransportError, toTransportError } from '../net.js';

export interface DeliveryPolicy {
  /** First automatic retry delay; each later one doubles, up to maxDelayMs. */
  retryBaseMs: number;
  maxDelayMs: number;
  /** Automatic attempts per delivery, the first send included. Manual retries do not count. */
  maxAttempts: number;
  /** A send not answered (status line and body) within this is a failed attempt; it runs from the send, never from a wait in the queue. */
  timeoutMs: number;
  /**
   * Sends in flight to one webhook, each on a connection of that webhook's
   * own: more wait in the sandbox's queue, with no timeout running, so an
   * endpoint that hangs can only ever hold its own connections.
   */
  concurrencyPerWebhook: number;
  /**
   * Sends in flight in the whole sandbox, each on a connection (a file
   * descriptor): below the process's file limit (connections.ts), shared
   * between webhooks in turn, so that a thousand webhooks never make it run
   * out of descriptors. More wait in the sandbox's queue, no timeout running.
   */
  maxConnections: number;
  /**
   * A webhook whose connections are all busy and none of whose sends has ended
   * for this long is stalled (an endpoint that hangs or crawls): an event for
   * it is acknowledged without waiting any longer for a turn, and its delivery
   * waits its turn inside the sandbox.
   */
  stalledAfterMs: number;
  /** Deliveries kept (with their attempts): past it the oldest are dropped. Infinity keeps all. */
  maxDeliveries: number;
  /** What the endpoint answered is kept up to this many bytes. */
  responseBodyLimit: number;
  platformName: string;
  userAgent: string;
}

export const DEFAULT_POLICY: DeliveryPolicy = {
  retryBaseMs: 5_000,
  maxDelayMs: 3_600_000,
  maxAttempts: 5,
  timeoutMs: DELIVERY_TIMEOUT_MS,
  concurrencyPerWebhook: 64,
  maxConnections: MOST_CONNECTIONS,
  stalledAfterMs: 1_000,
  maxDeliveries: Number.POSITIVE_INFINITY,
  responseBodyLimit: ANSWER_HEAD_BYTES,
  platformName: DEFAULT_PLATFORM_NAME,
  userAgent: `whsvc-sandbox/${WHSVC_VERSION}`,
};

export interface DelivererDeps {
  /** Its transactions: an attempt begun, the outcomes of a turn. */
  database: Pick<Database, 'transaction'>;
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  clock: Clock;
  /** Where every send goes through: one pool per origin, so webhooks at the same host:port share its connections. */
  dispatcher: Dispatcher;
  policy: DeliveryPolicy;
  /** Real elapsed time, for how long a send takes and when a lane stalls (elapsedClock unless a test gives its own). */
  elapsed?: Clock;
  onAttempt?: (attempt: AttemptRow, webhook: WebhookRow) => void;
  /** Told once, the first time old deliveries are dropped to keep maxDeliveries. */
  onFirstDrop?: (dropped: number) => void;
  /**
   * A send failed inside the sandbox before it reached the endpoint (out of
   * file descriptors, say): never counted as the endpoint's failure, it is
   * tried again. Told each time, with the reason.
   */
  onLocalFailure?: (reason: string) => void;
  /** Where a failure inside the sandbox is told (SandboxOptions.onInternalError); the console's by default. */
  onInternalError?: (line: string) => void;
}

/** A failure inside a sandbox that was given nowhere to tell it (one built by a test). */
export const toConsole = (line: string): void => console.error(line.trimEnd());

interface SendOutcome {
  status: Exclude<DeliveryStatus, 'pending'>;
  response_code: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
}

interface Begun {
  /** The delivery as it stands once this attempt is recorded (auto_attempts counted). */
  delivery: DeliveryRow;
  webhook: WebhookRow;
  kind: 'automatic' | 'manual';
  attemptId: string;
  attempt: number;
  seq: number;
  startedAt: number;
  /** Called once the send has a connection of its webhook's, or is left to wait behind a stalled one. */
  onTurn?: () => void;
}

/** The next automatic attempt's time, said of a failed attempt only. */
const nextAttemptAt = (status: DeliveryStatus, due: number | null | undefined): string | null =>
  status === 'failed' && due !== null && due !== undefined ? new Date(due).toISOString() : null;

/** A clock jump under way (Deliverer.advance): where from and to, its attempts sent, under way, and still due inside it. */
export interface JumpProgress {
  from: number;
  to: number;
  sent: number;
  sending: number;
  due: number;
}

/**
 * Sends deliveries and schedules their automatic retries. A delivery is only
 * ever sent by one of its attempts at a time: every send holds the delivery's
 * lock, and an automatic retry re-reads the delivery under that lock, so a
 * manual retry can never make a scheduled one fire twice.
 */
export class Deliverer {
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Whose turn it is to send: each webhook's share, within the sandbox's budget (lanes.ts). */
  private readonly lanes: Lanes;
  /** Pauses after a failure inside the sandbox, ended at once by a stop. */
  private readonly pauses = new Set<() => void>();
  /** When to look for the automatic retries due (retry-timer.ts). */
  private readonly retries: RetryTimer;
  /** What comes of sends, and new deliveries, written a turn of the event loop at a time, the cap kept at each. */
  private readonly batched: BatchedWrites;
  private stopped = false;
  private advancing: Promise<unknown> = Promise.resolve();
  /** The jump under way, if any: where from and to, and its attempts sent and under way so far. */
  private jump: Omit<JumpProgress, 'due'> | undefined;

  constructor(private readonly deps: DelivererDeps) {
    const { concurrencyPerWebhook, maxConnections, stalledAfterMs } = deps.policy;
    this.lanes = new Lanes({ perWebhook: concurrencyPerWebhook, total: maxConnections, stalledAfterMs }, this.elapsed);
    this.retries = new RetryTimer(
      deps.clock,
      () => deps.deliveries.earliestDue(),
      () => this.sendDue(),
    );
    const cap = new DeliveryCap(deps.deliveries, deps.policy.maxDeliveries, this.locks, deps.onFirstDrop);
    this.batched = new BatchedWrites(deps.database, () => cap.keep());
  }

  /** The sandbox's time. */
  now(): number {
    return this.deps.clock.now();
  }

  /** Recovers attempts cut off by an earlier stop and sends every retry already due. */
  start(): void {
    this.deps.deliveries.recoverInterrupted(this.deps.clock.now());
    this.retries.arm();
  }

  /** Stops scheduling, and waits for the sends under way to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.retries.stop();
    for (const endPause of this.pauses) endPause();
    await this.settle();
  }

  /** Waits for every send under way (and any that one of them starts) to end. */
  private async settle(): Promise<void> {
    while (this.locks.size > 0) await Promise.allSettled([...this.locks.values()]);
  }

  /** Something changed what is due (a webhook resumed): look again. */
  wake(): void {
    this.retries.arm();
  }

  /**
   * An event occurred: one delivery to each active webhook subscribed to it.
   * Resolves once each delivery and its first attempt are recorded (with
   * those of other events of the same moment, in one transaction), so an
   * acknowledged event survives a stop: a sandbox stopped before the send
   * still sends it when it comes back. It also waits until each send has a
   * connection of its webhook's, so that events come no faster than they are
   * delivered and no queue builds up behind the acknowledgement; a stalled
   * webhook (policy.stalledAfterMs) is not waited for. The sends go on in the background.
   */
  async deliverEvent(accountId: string, type: string, payload: Record<string, unknown>): Promise<string[]> {
    const prepared = this.deps.webhooks.subscribedActive(accountId, type).map((webhook) => this.prepareFirst(webhook, type, payload));
    const recorded: Begun[] = [];
    await this.batched.write(() => {
      for (const first of prepared) if (this.insertFirst(first)) recorded.push(first);
    });
    const turns = recorded.map((first) => {
      const { promise, resolve } = Promise.withResolvers<void>();
      first.onTurn = resolve;
      this.withDeliveryLock(first.delivery.id, () => this.complete(first))
        .catch((error: unknown) => this.reportFailure(first.delivery.id, error))
        .finally(resolve);
      return promise;
    });
    await Promise.all(turns);
    return recorded.map((b) => b.delivery.id);
  }

  /** The test endpoint: a delivery of a sample event, sent at once; resolves with its first attempt (undefined if the webhook is gone). */
  async sendTest(webhook: WebhookRow, type: string, payload: Record<string, unknown>): Promise<AttemptRow | undefined> {
    const first = this.prepareFirst(webhook, type, payload);
    let recorded = false;
    await this.batched.write(() => (recorded = this.insertFirst(first)));
    return recorded ? this.withDeliveryLock(first.delivery.id, () => this.complete(first)) : undefined;
  }

  /**
   * A manual retry of one attempt: a new attempt of the same delivery, same
   * body and signature, sent at once. Looked at again under the lock: a
   * delivery that got through meanwhile (this attempt or another) is not sent
   * again.
   */
  async retry(deliveryId: string, attemptId: string): Promise<AttemptRow | 'already_delivered' | undefined> {
    return this.withDeliveryLock(deliveryId, () => this.sendNext(deliveryId, 'manual', attemptId));
  }

  /**
   * Plays out, in due order, every automatic retry that falls due up to
   * `target` (the manual clock): the clock is moved to each due time, the
   * attempts due then are really sent and recorded, their next retries are
   * scheduled from there, and so on; then the clock is moved to `target`.
   * Sends under way when it is called end first. One advance at a time: a
   * second waits for the first, and its target is computed then, from where
   * the first left the clock (`target` of that time), so that no time is lost
   * to a jump computed in the middle of another. `target` may throw to refuse.
   */
  advance(target: number | ((now: number) => number), moveTo: (time: number) => void): Promise<AttemptRow[]> {
    const run = this.advancing.then(async () => {
      const sent: AttemptRow[] = [];
      await this.settle();
      const from = this.deps.clock.now();
      if (typeof target === 'function') target = target(from);
      const jump = { from, to: target, sent: 0, sending: 0 };
      this.jump = jump;
      try {
        for (;;) {
          const due = this.deps.deliveries.earliestDue();
          if (due === undefined || due > (target as number) || this.stopped) break;
          moveTo(due);
          const deliveries = this.deps.deliveries.due(due, 500);
          const attempts = await Promise.all(
            deliveries.map((delivery) => {
              jump.sending += 1;
              return this.withDeliveryLock(delivery.id, () => this.sendNext(delivery.id, 'automatic')).then((attempt) => {
                jump.sending -= 1;
                if (attempt) jump.sent += 1;
                return attempt;
              });
            }),
          );
          const made = attempts.filter((attempt): attempt is AttemptRow => attempt !== undefined);
          sent.push(...made);
          // Nothing could be sent at that time (never expected): stop rather than spin.
          if (made.length === 0 && this.deps.deliveries.earliestDue() === due) break;
        }
        moveTo(target as number);
      } finally {
        this.jump = undefined;
      }
      return sent;
    });
    this.advancing = run.catch(() => undefined);
    return run;
  }

  /** The jump under way, if any, with the automatic attempts still due inside it (more may fall due as it goes). */
  jumpUnderWay(): JumpProgress | undefined {
    if (!this.jump) return undefined;
    return { ...this.jump, due: this.deps.deliveries.countDue(this.jump.to) };
  }

  /** Sends the retries due now, but those whose delivery is busy (the retry timer looks again when a send ends); returns how many were due. */
  private sendDue(): number {
    const due = this.deps.deliveries.due(this.deps.clock.now(), 500);
    for (const delivery of due) {
      if (this.locks.has(delivery.id)) continue;
      this.withDeliveryLock(delivery.id, () => this.sendNext(delivery.id, 'automatic')).catch((error: unknown) => this.reportFailure(delivery.id, error));
    }
    return due.length;
  }

  /** A send nobody awaits failed inside the sandbox (the store, say): reported, never an unhandled rejection. */
  private reportFailure(deliveryId: string, error: unknown): void {
    // Stopped while its send was held back by a failure inside the sandbox: it stays under way, for the next start.
    if (error instanceof CutOffByStop) return;
    // Due retries wait a second rather than spin against the same failure.
    this.retries.pause(1_000);
    (this.deps.onInternalError ?? toConsole)(`whsvc sandbox: delivery ${deliveryId} failed inside the sandbox: ${(error as Error)?.message ?? error}\n`);
  }

  private withDeliveryLock<T>(deliveryId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(deliveryId) ?? Promise.resolve();
    const current = previous.then(work, work);
    const settled = current.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(deliveryId, settled);
    void settled.then(() => {
      if (this.locks.get(deliveryId) === settled) this.locks.delete(deliveryId);
      this.retries.sendEnded();
    });
    return current;
  }

  /** A new delivery and its first attempt, in memory: signed, not yet recorded. */
  private prepareFirst(webhook: WebhookRow, type: string, payload: Record<string, unknown>): Begun {
    const now = this.deps.clock.now();
    const { body, signature } = signedDelivery(webhook.signing_secret, payload);
    const delivery: DeliveryRow = {
      id: newId('dlv'),
      webhook_id: webhook.id,
      event: type,
      body,
      signature,
      auto_attempts: 1,
      next_due_at: null,
      delivered: false,
      created_at: new Date(now).toISOString(),
    };
    // The first attempt's id is the delivery's id.
    return { delivery, webhook, kind: 'automatic', attemptId: delivery.id, attempt: 1, seq: 0, startedAt: now };
  }

  /** Records a prepared delivery with its first attempt under way (inside a transaction); false if its webhook is gone. */
  private insertFirst(first: Begun): boolean {
    const { webhooks, deliveries } = this.deps;
    if (!webhooks.exists(first.webhook.id)) return false;
    deliveries.insert(first.delivery);
    first.seq = deliveries.insertAttempt(
      { id: first.attemptId, delivery_id: first.delivery.id, webhook_id: first.webhook.id, created_at: first.delivery.created_at },
      1,
    ).seq;
    return true;
  }

  /** The next attempt of an existing delivery: an automatic retry that is due, or a manual one. */
  private async sendNext(deliveryId: string, kind: 'automatic', retried?: undefined): Promise<AttemptRow | undefined>;
  private async sendNext(deliveryId: string, kind: 'manual', retried: string): Promise<AttemptRow | 'already_delivered' | undefined>;
  private async sendNext(deliveryId: string, kind: 'automatic' | 'manual', retried?: string): Promise<AttemptRow | 'already_delivered' | undefined> {
    const { database, webhooks, deliveries, clock } = this.deps;
    const started = clock.now();
    const begun = database.transaction((): Begun | 'already_delivered' | undefined => {
      const delivery = deliveries.byId(deliveryId);
      if (!delivery) return undefined;
      // Once any attempt of a delivery got through, it is delivered: a manual retry would only send it twice.
      if (retried !== undefined && (delivery.delivered || deliveries.attemptStatus(retried) === 'delivered')) return 'already_delivered';
      const webhook = webhooks.byId(delivery.webhook_id);
      if (!webhook) return undefined;
      if (kind === 'automatic') {
        if (this.stopped || delivery.delivered || delivery.next_due_at === null || delivery.next_due_at > started) return undefined;
        // A retry due on a paused webhook waits, still due, until it is resumed.
        if (delivery.auto_attempts > 0 && !webhook.active) return undefined;
        delivery.auto_attempts += 1;
        delivery.next_due_at = null;
        deliveries.updateSchedule(delivery.id, delivery);
      }
      // A delivery recorded but never sent (by an older sandbox) gets its own id for its first attempt.
      const attemptId = kind === 'automatic' && delivery.auto_attempts === 1 ? delivery.id : newId('dlv');
      const { number, seq } = deliveries.insertAttempt({
        id: attemptId,
        delivery_id: delivery.id,
        webhook_id: webhook.id,
        created_at: new Date(started).toISOString(),
      });
      return { delivery, webhook, kind, attemptId, attempt: number, seq, startedAt: started };
    });
    return begun === undefined || begun === 'already_delivered' ? begun : this.complete(begun);
  }

  /**
   * Sends a recorded attempt and records what came of it, with the next
   * automatic retry if one is due. Runs under the delivery's lock, so the
   * delivery read when the attempt began is still the delivery now (or gone
   * with its webhook, in which case the updates change nothing).
   */
  private async complete(begun: Begun): Promise<AttemptRow> {
    const { deliveries, clock, policy } = this.deps;
    const { delivery, webhook } = begun;
    const outcome = await this.post(webhook, delivery, begun);
    let retryAt: number | undefined;
    await this.batched.write(() => {
      deliveries.finishAttempt(begun.attemptId, outcome);
      if (outcome.status === 'delivered') {
        deliveries.updateSchedule(delivery.id, { auto_attempts: delivery.auto_attempts, next_due_at: null, delivered: true });
      } else if (begun.kind === 'automatic' && delivery.auto_attempts < policy.maxAttempts && !delivery.delivered) {
        retryAt = clock.now() + Math.min(policy.maxDelayMs, policy.retryBaseMs * 2 ** (delivery.auto_attempts - 1));
        deliveries.updateSchedule(delivery.id, { auto_attempts: delivery.auto_attempts, next_due_at: retryAt, delivered: false });
      }
    });
    if (retryAt !== undefined) this.retries.arm(retryAt);
    const attempt: AttemptRow = {
      seq: begun.seq,
      id: begun.attemptId,
      delivery_id: delivery.id,
      webhook_id: webhook.id,
      account_id: webhook.account_id,
      event: delivery.event,
      attempt: begun.attempt,
      ...outcome,
      created_at: new Date(begun.startedAt).toISOString(),
      body: delivery.body,
      signature: delivery.signature,
      next_attempt_at: nextAttemptAt(outcome.status, retryAt ?? (begun.kind === 'manual' ? delivery.next_due_at : null)),
    };
    this.deps.onAttempt?.(attempt, webhook);
    return attempt;
  }

  private get elapsed(): Clock {
    return this.deps.elapsed ?? elapsedClock;
  }

  /**
   * Sends the attempt when it has its turn. A failure inside the sandbox
   * before anything reached the endpoint (out of file descriptors) is not the
   * endpoint's: the send is tried again, after a pause, until it gets through
   * or the sandbox stops.
   */
  private async post(webhook: WebhookRow, delivery: DeliveryRow, begun: Begun): Promise<SendOutcome> {
    for (let tries = 0; ; tries++) {
      // An attempt that has to wait for its turn is marked queued in the store meanwhile: a sandbox killed then never
      // sent it (see recoverInterrupted).
      const turn = await this.lanes.turn(webhook.id, {
        waits: () => this.deps.deliveries.markQueued(begun.attemptId, begun.kind),
        starts: () => this.deps.deliveries.markQueued(begun.attemptId, undefined),
        acknowledge: begun.onTurn,
      });
      let result: SendOutcome | { local: string };
      try {
        result = await this.send(this.deps.dispatcher, webhook, delivery, begun);
      } finally {
        this.lanes.end(turn);
      }
      if (!('local' in result)) return result;
      this.deps.onLocalFailure?.(result.local);
      await this.pause(Math.min(5_000, 100 * 2 ** tries));
      if (this.stopped) throw new CutOffByStop();
    }
  }

  /** Waits `ms` of real time, or until the sandbox stops. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        this.pauses.delete(end);
        this.elapsed.clearTimeout(timer);
        resolve();
      };
      const timer = this.elapsed.setTimeout(end, ms);
      this.pauses.add(end);
    });
  }

  private async send(
    dispatcher: Dispatcher,
    webhook: WebhookRow,
    delivery: DeliveryRow,
    { attempt, attemptId, startedAt }: Begun,
  ): Promise<SendOutcome | { local: string }> {
    const { policy } = this.deps;
    // Started only now that a connection of this webhook's is free: it measures the receiver, not the queue.
    // Real time, not the sandbox's: a manual clock stands still while the receiver takes its time.
    const started = this.elapsed.now();
    try {
      const url = new URL(webhook.url);
      const { origin, host } = connectionFor(url);
      const headers = deliveryHeaders(policy.platformName, policy.userAgent, {
        signature: delivery.signature,
        event: delivery.event,
        deliveryId: delivery.id,
        attempt,
        attemptId,
        sentAt: new Date(startedAt).toISOString(),
      });
      // One bound on the whole exchange, whatever the dispatcher honours of headersTimeout and bodyTimeout.
      const answer = await exchange(
        dispatcher,
        {
          origin,
          path: url.pathname + url.search,
          method: 'POST',
          headers: host ? { ...headers, host } : headers,
          body: delivery.body,
          headersTimeout: policy.timeoutMs,
          bodyTimeout: policy.timeoutMs,
        },
        { bodyLimit: policy.responseBodyLimit, timeoutMs: policy.timeoutMs },
      );
      const ok = isDelivered(answer.statusCode);
      return {
        status: ok ? 'delivered' : 'failed',
        response_code: answer.statusCode,
        response_body: answer.body,
        error: ok ? null : `endpoint answered ${answer.statusCode}`,
        duration_ms: Math.round(this.elapsed.now() - started),
      };
    } catch (error) {
      const local = localFailure(error);
      if (local !== undefined) return { local };
      return {
        status: 'failed',
        response_code: null,
        response_body: null,
        error: describeSendError(error, policy.timeoutMs),
        duration_ms: Math.round(this.elapsed.now() - started),
      };
    }
  }
}

/** A send that a stop cut off while a failure inside the sandbox held it back: left under way, sent again at the next start. */
class CutOffByStop extends Error {}

function describeSendError(error: unknown, timeoutMs: number): string {
  const failure = toTransportError(error, timeoutMs);
  return failure instanceof TransportError ? failure.message : ((error as Error).message ?? String(error));
}
