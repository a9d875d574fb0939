import { getAttempt } from '../../../api/endpoints.js';
import { attemptsOf, deliveryKey } from '../../../api/log.js';
import type { Attempt } from '../../../api/shapes.js';
import type { CommandDeps } from '../../../cli/context.js';
import { canonicalJson, numberValue } from '../../../exact-json.js';
import { type Outcome, type ResendResult, resendAll } from '../../deliveries/shared/resend.js';
import { STILL_PENDING, settledAttempt, type WaitClock } from './tries.js';

// What rotate-secret reads of the deliveries around the switch: the events both webhooks were sent (the doubles), and
// the old webhook's deliveries still due, signed with the old secret, which go with it when it is deleted.

/** An event delivered by both webhooks during the switch, under a delivery id of each. */
export interface Double {
  event: string;
  /** The payload's `id`, shown to find it by, never matched on: a resource's id (the invoice's), which several events may carry; null when it has none. */
  payload_id: string | null;
  old_delivery_id: string;
  new_delivery_id: string;
}

/** A margin around the times compared: the service's `Date` is whole seconds, and a twin's send may be a moment after the old one's. */
const SLACK_MS = 2_000;

/** Whether an attempt is its delivery's first send (the only one an event makes: the rest are retries). */
const isFirst = (attempt: Attempt): boolean => (attempt.attempts !== undefined ? numberValue(attempt.attempts) === 1 : deliveryKey(attempt) === attempt.id);

/** The first sends of a webhook's deliveries made since `since` (epoch ms), newest first. */
async function firstSends(api: CommandDeps['api'], webhookId: string, since: number): Promise<Attempt[]> {
  const sends: Attempt[] = [];
  for await (const attempt of attemptsOf(api, webhookId, { since })) if (isFirst(attempt)) sends.push(attempt);
  return sends;
}

/**
 * The event a delivery carries, as its type and its whole payload in one text: the two deliveries of one event carry the
 * same, where two events of one resource (a product updated twice) differ; so do the attempts of one delivery. The
 * payload is the list's when it gives one, else the retrieve's; undefined when neither has one.
 */
async function eventOf(api: CommandDeps['api'], attempt: Attempt): Promise<{ key: string; payloadId: string | null } | undefined> {
  const payload = attempt.payload ?? (await getAttempt(api, attempt.id)).payload;
  if (payload === undefined || payload === null) return undefined;
  const id = typeof payload === 'object' ? (payload as { id?: unknown }).id : undefined;
  return { key: `${attempt.event}\n${canonicalJson(payload)}`, payloadId: typeof id === 'string' || typeof id === 'number' ? String(id) : null };
}

/**
 * The events that went to both webhooks: the old one's deliveries made since the twin was resumed (`since`), matched by
 * event type and whole payload with the twin's made up to the last of them. Each delivery is read once (its payload is
 * on the retrieve only); those of the twin made after the old one stopped are not read, nor the proof's test deliveries
 * (`notEvents`: samples, which a service may make alike). Oldest first.
 */
export async function doublesOf(api: CommandDeps['api'], ids: { old: string; twin: string }, since: number, notEvents: readonly string[]): Promise<Double[]> {
  const sends = async (webhookId: string) =>
    (await firstSends(api, webhookId, since - SLACK_MS)).filter((attempt) => !notEvents.includes(deliveryKey(attempt)));
  const olds = await sends(ids.old);
  if (olds.length === 0) return [];
  const until = Math.max(...olds.map((attempt) => Date.parse(attempt.created_at))) + SLACK_MS;
  const byEvent = new Map<string, string[]>();
  for (const attempt of olds) {
    const event = await eventOf(api, attempt);
    if (event) byEvent.set(event.key, [...(byEvent.get(event.key) ?? []), deliveryKey(attempt)]);
  }
  const doubles: Double[] = [];
  for (const attempt of await sends(ids.twin)) {
    if (Date.parse(attempt.created_at) > until) continue;
    const event = await eventOf(api, attempt);
    const old = event && byEvent.get(event.key)?.shift();
    if (event && old !== undefined) {
      doubles.push({ event: attempt.event, payload_id: event.payloadId, old_delivery_id: old, new_delivery_id: deliveryKey(attempt) });
    }
  }
  return doubles.reverse();
}

/** The old webhook's log as the rotation reads it for what is still due. */
export interface OldLog {
  webhookId: string;
  /** Attempt records never due, now: the proof's samples (no event), and those settled (delivered, or answered 409). */
  notDue: () => readonly string[];
  /**
   * A failed record of a service that does not say when a retry is due (no `next_attempt_at`) counts only when made
   * since this (epoch ms: the twin's making, or the rotation's start): an older one was the service's to retry, or to
   * give up on.
   */
  since: number;
  /** Records settled by a send (delivered, or answered 409), remembered across passes and runs (journaled). */
  settle(records: string[]): void;
}

/**
 * OldLog's `since`: the first of `times` given (ISO 8601: the twin's making, the rotation's start) a moment before (the
 * service's `Date` is whole seconds), or `now` when none is (a rotation not begun yet).
 */
export function dueSince(times: Array<string | undefined>, now: number): number {
  const known = times.map((time) => Date.parse(time ?? '')).find((time) => !Number.isNaN(time));
  return known === undefined ? now : known - SLACK_MS;
}

/** A delivery still due: its newest attempt (the one sent again), and every record of it the log listed. */
export interface Due {
  attempt: Attempt;
  records: string[];
}

/**
 * Which delivery an attempt record is of: the service's `delivery_id`, else its event and whole payload (the same for
 * every attempt of one delivery, as sent again), else the record alone.
 */
async function deliveryOf(api: CommandDeps['api'], attempt: Attempt): Promise<string> {
  if (typeof attempt.delivery_id === 'string') return `id\n${attempt.delivery_id}`;
  const event = await eventOf(api, attempt);
  return event ? `payload\n${event.key}` : `id\n${attempt.id}`;
}

/**
 * The deliveries of the old webhook still due, each by its newest attempt: those under way (pending), and those
 * failed whose automatic retry is scheduled (`next_attempt_at`); of a service that does not say (no such field), those
 * failed since `log.since`. Pending first: one that fails between the two reads is found by the second. Records of
 * one delivery are one (deliveryOf), never sent again side by side.
 */
export async function dueDeliveries(api: CommandDeps['api'], log: Pick<OldLog, 'webhookId' | 'notDue' | 'since'>): Promise<Due[]> {
  const due = new Map<string, Due>();
  const notDue = new Set(log.notDue());
  for (const status of ['pending', 'failed'] as const) {
    for await (const attempt of attemptsOf(api, log.webhookId, { status })) {
      if (notDue.has(attempt.id) || notDue.has(deliveryKey(attempt))) continue;
      if (status === 'failed' && attempt.next_attempt_at === null) continue;
      if (status === 'failed' && attempt.next_attempt_at === undefined && !(Date.parse(attempt.created_at) >= log.since)) continue;
      const key = await deliveryOf(api, attempt);
      const known = due.get(key);
      if (known) known.records.push(attempt.id);
      else due.set(key, { attempt, records: [attempt.id] });
    }
  }
  return [...due.values()];
}

/** An old webhook's delivery sent again before it is deleted, and what came of it. */
export interface Resent {
  delivery_id: string;
  event: string;
  outcome: Outcome;
  /** Why it did not get through. */
  reason?: string | undefined;
}

const gotThrough = (resent: Resent) => resent.outcome === 'delivered' || resent.outcome === 'already_delivered';

/** How many times the due deliveries are read and sent: a second read finds none, unless one failed meanwhile. */
const PASSES = 3;

/** What a delivery still due after the last pass is said to be. */
const DUE_STILL = `due again after ${PASSES} rounds of sending`;

/** The deliveries given sent again now (the retry endpoint), each with what came of it; those that got through settled. */
async function resent(deps: Pick<CommandDeps, 'api'>, due: Due[], log: OldLog): Promise<Resent[]> {
  const results: ResendResult[] = [];
  const report = { taken() {}, scanned() {}, failed() {}, waiting() {}, result: (result: ResendResult) => void results.push(result) };
  const targets = due.map(({ attempt }) => ({ attemptId: attempt.id, deliveryId: deliveryKey(attempt), event: attempt.event }));
  await resendAll(deps, targets, { concurrency: 8, report });
  const records = new Map(due.map(({ attempt, records }) => [attempt.id, records]));
  const settled = results.filter((result) => result.outcome === 'delivered' || result.outcome === 'already_delivered');
  if (settled.length > 0) log.settle(settled.flatMap(({ target }) => records.get(target.attemptId) ?? [target.attemptId]));
  return results.map(
    ({ target, outcome, reason, error }): Resent => ({ delivery_id: target.deliveryId, event: target.event ?? '', outcome, reason: reason ?? error }),
  );
}

/**
 * Sends now every delivery of the old webhook still due (dueDeliveries), while the receiver still takes the old
 * secret: paused, the webhook would hold them until it is resumed, and deleting it would drop them. One under way is
 * waited for (settledAttempt, on `clock`), never sent again beside it; one that failed meanwhile is sent. Those that
 * got through (delivered, or answered 409: delivered already) are settled, never sent again. Read again after each
 * round, until a read finds none due. `left`: those that did not get through, or are under way still (the webhook
 * must stay).
 */
export async function resendDue(deps: Pick<CommandDeps, 'api'>, log: OldLog, clock: WaitClock): Promise<{ resent: Resent[]; left: Resent[] }> {
  const sent: Resent[] = [];
  for (let pass = 1; ; pass += 1) {
    const due = await dueDeliveries(deps.api, log);
    const asDue = due.map(({ attempt }): Resent => ({ delivery_id: deliveryKey(attempt), event: attempt.event, outcome: attempt.status, reason: DUE_STILL }));
    if (due.length === 0 || pass > PASSES) return { resent: sent, left: asDue };
    const settled = await Promise.all(
      due.map(async (one) => (one.attempt.status === 'pending' ? { ...one, attempt: await settledAttempt(deps.api, one.attempt, clock) } : one)),
    );
    const underWay = settled
      .filter(({ attempt }) => attempt.status === 'pending')
      .map(({ attempt }): Resent => ({ delivery_id: deliveryKey(attempt), event: attempt.event, outcome: 'pending', reason: STILL_PENDING }));
    // Those delivered while waited for got through by themselves.
    const round = await resent(
      deps,
      settled.filter(({ attempt }) => attempt.status === 'failed'),
      log,
    );
    sent.push(...round);
    const left = [...round.filter((one) => !gotThrough(one)), ...underWay];
    if (left.length > 0) return { resent: sent, left };
  }
}
