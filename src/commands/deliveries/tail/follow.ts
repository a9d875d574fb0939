import type { Attempt, Page } from '../../../api/shapes.js';
import type { DeliveryStatus } from '../../../protocol/status.js';
import { getAttempt, listAttempts } from '../../../api/endpoints.js';
import type { ApiClient } from '../../../api/client.js';
import { ApiError } from '../../../api/errors.js';
import { MAX_PAGE, PageWalk, allWebhooks, logOf } from '../../../api/log.js';

/**
 * Following the delivery log of several webhooks by polling, without reading
 * whole logs again: each poll reads a webhook's log newest first, from the
 * top, until it reaches an attempt it has seen (the log is keyset-paginated
 * and newest first, so everything newer than a seen attempt is above it). An
 * attempt's status can still change after it was seen (`pending` while its
 * send is under way); those are re-checked in the pages read anyway, or else
 * retrieved one by one.
 */

/** The first page of a poll: the service's default size; a poll that finds more reads on in pages of MAX_PAGE. */
export const FIRST_PAGE = 50;
/** Attempts remembered per webhook to know where a poll stops (the newest ones; a poll stops at the first it meets). */
export const SEEN_BOUND = 2_000;
/** Pending attempts not met in a poll's pages that are retrieved one by one, per poll (the others wait their turn). */
export const RECHECKS_PER_POLL = 20;

/** Where a webhook's log is read from the first time. */
export type StartAt =
  /** From now: what the log holds now is known, not shown (its pending attempts are followed). */
  | { kind: 'now' }
  /** Everything above this attempt (a checkpoint's position); a time floor should the attempt be gone. */
  | { kind: 'after'; id: string; createdAt: string }
  /** Everything created at or after this time (epoch ms). */
  | { kind: 'since'; at: number }
  /** The whole log (a webhook created while following, or a checkpoint's webhook whose log was empty). */
  | { kind: 'all' };

/** One thing to print: an attempt seen for the first time, or a change of a seen attempt's status. */
export interface Change {
  kind: 'new' | 'status';
  webhookId: string;
  attempt: Attempt;
  /** The status it had, for a change. */
  previous?: DeliveryStatus;
  /** The attempt just older in the webhook's log, when known (null: the start of the log): a checkpoint's position. */
  before?: Position | null;
}

/** A place in a webhook's log: an attempt, with its time as the fallback should it be gone. */
export interface Position {
  id: string;
  created_at: string;
}

interface WebhookState {
  id: string;
  /** The attempts seen (id → last status), newest last, bounded by SEEN_BOUND. */
  seen: Map<string, DeliveryStatus>;
  /** Attempts seen pending, whose change is awaited: id → the attempt as last seen. */
  pending: Map<string, Attempt>;
  /** Until the first walk: where it starts. */
  start: StartAt | undefined;
  /** A position that ends every walk (a checkpoint's), and a time floor below which nothing is new. */
  marker: Position | undefined;
  floor: number | undefined;
  /** The --since time it started from, if so (kept by a checkpoint while nothing is seen). */
  since: number | undefined;
  /** The newest attempt seen (or the marker): where a checkpoint resumes when nothing waits. */
  top: Position | null;
  /** The attempts the pages of this poll showed: a pending one among them needs no retrieving. */
  shown: Set<string>;
}

export interface PollReport {
  changes: Change[];
  /** Webhooks whose new attempts did not fit on one page (the poll read on). */
  behind: Array<{ webhookId: string; count: number }>;
  /** Webhooks followed for the first time in this poll, with where they start. */
  added: Array<{ webhookId: string; start: StartAt }>;
  /** Webhooks gone (deleted): no longer followed. */
  gone: string[];
}

export interface FollowerOptions {
  /** Only these webhooks (else every webhook, listed again on each poll). */
  webhookIds?: string[] | undefined;
  /** Where webhooks known at the first poll start; `startFor` may say otherwise per webhook (a checkpoint). */
  initialStart: StartAt;
  startFor?: (webhook: { id: string; created_at?: string | undefined }) => StartAt | undefined;
}

const isGone = (error: unknown) => error instanceof ApiError && error.status === 404;

export class Follower {
  private readonly webhooks = new Map<string, WebhookState>();
  /** Whether the webhooks were listed once: those found then start as asked, later ones from their log's start. */
  private listed = false;
  /**
   * What a poll found before it failed (the service unreachable half-way):
   * handed on with the next poll's, since the state already counts it as seen.
   */
  private carry: PollReport = { changes: [], behind: [], added: [], gone: [] };
  /** Round-robin position of the one-by-one re-checks. */
  private recheckTurn = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly options: FollowerOptions,
  ) {}

  /** The webhooks followed, in the order they were found. */
  get webhookIds(): string[] {
    return [...this.webhooks.keys()];
  }

  /**
   * Where each webhook's log has been read up to: the newest attempt seen
   * (null: none yet), and the --since time it started from, if so.
   */
  positions(): Map<string, { after: Position | null; since: number | undefined }> {
    return new Map([...this.webhooks.values()].map((w) => [w.id, { after: w.top, since: w.since }]));
  }

  /**
   * One poll. Each webhook's state changes only once its walk is whole, and
   * what it found is kept until handed out: a poll that fails half-way loses
   * nothing, and the next one hands it out.
   */
  async poll(): Promise<PollReport> {
    const report = this.carry;
    await this.refreshWebhooks(!this.listed, report);
    this.listed = true;
    for (const state of [...this.webhooks.values()]) {
      try {
        report.changes.push(...(await this.walk(state, report)));
      } catch (error) {
        if (!isGone(error)) throw error;
        this.webhooks.delete(state.id);
        report.gone.push(state.id);
      }
    }
    await this.recheckPending(report.changes);
    this.carry = { changes: [], behind: [], added: [], gone: [] };
    // The poll's changes in the order of the attempts' times (stable: a webhook's own order holds at equal times).
    report.changes = sortByTime(report.changes);
    return report;
  }

  private async refreshWebhooks(first: boolean, report: PollReport): Promise<void> {
    if (this.options.webhookIds) {
      if (!first) return;
      for (const id of this.options.webhookIds) this.add({ id }, this.options.startFor?.({ id }) ?? this.options.initialStart, report);
      return;
    }
    const listed = new Set<string>();
    for await (const webhook of allWebhooks(this.api)) {
      listed.add(webhook.id);
      if (this.webhooks.has(webhook.id)) continue;
      // One created since the last poll: its whole log is new.
      this.add(webhook, first ? (this.options.startFor?.(webhook) ?? this.options.initialStart) : { kind: 'all' }, report);
    }
    for (const id of [...this.webhooks.keys()]) {
      if (!listed.has(id)) {
        this.webhooks.delete(id);
        report.gone.push(id);
      }
    }
  }

  private add(webhook: { id: string }, start: StartAt, report: PollReport): void {
    const state: WebhookState = {
      id: webhook.id,
      seen: new Map(),
      pending: new Map(),
      start,
      marker: undefined,
      floor: undefined,
      since: undefined,
      top: null,
      shown: new Set(),
    };
    if (start.kind === 'after') {
      state.marker = { id: start.id, created_at: start.createdAt };
      state.floor = Date.parse(start.createdAt);
      state.top = state.marker;
    } else if (start.kind === 'since') state.floor = state.since = start.at;
    this.webhooks.set(webhook.id, state);
    report.added.push({ webhookId: webhook.id, start });
  }

  private async page(webhookId: string, limit: number, cursor: string | undefined): Promise<Page<Attempt>> {
    return listAttempts(this.api, webhookId, { limit, cursor });
  }

  /** Whether an attempt ends the walk for new ones: seen, the marker, or older than the floor. */
  private known(state: WebhookState, attempt: Attempt): boolean {
    if (state.seen.has(attempt.id) || attempt.id === state.marker?.id) return true;
    return state.floor !== undefined && Date.parse(attempt.created_at) < state.floor;
  }

  private async walk(state: WebhookState, report: PollReport): Promise<Change[]> {
    const changes: Change[] = [];
    state.shown.clear();
    if (state.start?.kind === 'now') {
      // From now: the top page is known, not shown; its pending attempts are followed.
      const page = await this.page(state.id, FIRST_PAGE, undefined);
      for (const attempt of page.data) state.shown.add(attempt.id);
      state.start = undefined;
      for (const attempt of [...page.data].reverse()) this.remember(state, attempt);
      if (page.data[0]) state.top = position(page.data[0]);
      return changes;
    }
    const fresh: Attempt[] = [];
    /** Seen attempts the pages show with another status, applied once the walk is whole. */
    const moved: Array<{ attempt: Attempt; previous: DeliveryStatus }> = [];
    let stop: Attempt | undefined;
    let cursor: string | undefined;
    let pages = 0;
    const walk = new PageWalk(logOf(state.id));
    for (;;) {
      const page = await this.page(state.id, pages === 0 ? FIRST_PAGE : MAX_PAGE, cursor);
      pages += 1;
      for (const attempt of page.data) {
        state.shown.add(attempt.id);
        if (stop === undefined && !this.known(state, attempt)) {
          fresh.push(attempt);
          continue;
        }
        stop ??= attempt;
        // Below the new ones, the page shows the seen ones' status for free.
        const before = state.seen.get(attempt.id);
        if (before !== undefined && before !== attempt.status) moved.push({ attempt, previous: before });
      }
      if (stop !== undefined) break;
      cursor = walk.next(page);
      if (cursor === undefined) break;
    }
    state.start = undefined;
    for (const { attempt, previous } of moved) changes.push(this.changed(state, attempt, previous));
    if (pages > 1) report.behind.push({ webhookId: state.id, count: fresh.length });
    // Oldest first; each new attempt knows the one before it (a checkpoint resumes there while it waits to be forwarded).
    for (let i = fresh.length - 1; i >= 0; i--) {
      const attempt = fresh[i]!;
      const older = i + 1 < fresh.length ? fresh[i + 1]! : stop;
      changes.push({ kind: 'new', webhookId: state.id, attempt, before: older ? position(older) : (state.marker ?? null) });
      this.remember(state, attempt);
    }
    if (fresh[0]) state.top = position(fresh[0]);
    return changes;
  }

  private changed(state: WebhookState, attempt: Attempt, previous: DeliveryStatus): Change {
    this.remember(state, attempt);
    return { kind: 'status', webhookId: state.id, attempt, previous };
  }

  private remember(state: WebhookState, attempt: Attempt): void {
    state.seen.delete(attempt.id);
    state.seen.set(attempt.id, attempt.status);
    if (attempt.status === 'pending') state.pending.set(attempt.id, attempt);
    else state.pending.delete(attempt.id);
    // Only the newest are needed to stop a walk; pending ones are kept apart.
    while (state.seen.size > SEEN_BOUND) state.seen.delete(state.seen.keys().next().value!);
  }

  /**
   * Pending attempts whose change the pages read did not show: retrieved one
   * by one, at most RECHECKS_PER_POLL per poll, in turn.
   */
  private async recheckPending(changes: Change[]): Promise<void> {
    const waiting: Array<[WebhookState, Attempt]> = [];
    for (const state of this.webhooks.values()) {
      for (const attempt of state.pending.values()) if (!state.shown.has(attempt.id)) waiting.push([state, attempt]);
    }
    if (waiting.length === 0) return;
    const start = this.recheckTurn % waiting.length;
    const turn = [...waiting.slice(start), ...waiting.slice(0, start)].slice(0, RECHECKS_PER_POLL);
    this.recheckTurn = start + turn.length;
    for (const [state, attempt] of turn) {
      // Already changed in a page of this poll.
      if (!state.pending.has(attempt.id)) continue;
      let now: Attempt;
      try {
        now = await getAttempt(this.api, attempt.id);
      } catch (error) {
        if (!isGone(error)) throw error;
        state.pending.delete(attempt.id);
        continue;
      }
      if (now.status !== 'pending') changes.push(this.changed(state, { ...attempt, ...pick(now) }, 'pending'));
    }
  }
}

/**
 * A retrieved attempt's fields that a list item has (the retrieve answer also holds payload and signature). Its retry
 * due is kept when the service names one (only ever on a delivery's newest attempt), never its null: retrieved alone,
 * an attempt with none due may have a retry made since, which the next poll shows (so no more retries is not said).
 */
function pick(attempt: Attempt): Partial<Attempt> {
  const { id, event, status, response_code, attempts, created_at, delivery_id, next_attempt_at } = attempt;
  return {
    id,
    event,
    status,
    response_code,
    ...(attempts === undefined ? {} : { attempts }),
    created_at,
    ...(delivery_id === undefined ? {} : { delivery_id }),
    next_attempt_at: typeof next_attempt_at === 'string' ? next_attempt_at : undefined,
  };
}

const position = (attempt: Attempt): Position => ({ id: attempt.id, created_at: attempt.created_at });

/**
 * Sorted by the attempts' times, so that an attempt's failure comes before
 * its retry; equal (or unreadable) times keep their order (the sort is stable).
 */
const sortByTime = (changes: Change[]): Change[] => {
  const time = (change: Change) => Date.parse(change.attempt.created_at) || 0;
  return [...changes].sort((a, b) => time(a) - time(b));
};
