import type { Attempt } from '../../../api/shapes.js';
import { askServiceNow } from '../../../api/endpoints.js';
import { ApiError } from '../../../api/errors.js';
import pMap from 'p-map';
import { MAX_PAGE, attemptsOf, webhooksOf } from '../../../api/log.js';
import type { CommandDeps } from '../../../cli/context.js';
import { usageError } from '../../../cli/errors.js';
import { boundAt, type TimeBound } from '../../../cli/parse.js';
import type { DeliveryStatus } from '../../../protocol/status.js';
import { sanitize } from '../../../render/text.js';

// The delivery log read across webhooks, as `deliveries recover` and `deliveries list` (without a webhook id) read it:
// the webhooks named, or every one (api/log.ts webhooksOf); each one's log newest first, down to --since; the window
// --since/--until counted on the service's clock.

/** A window given on the command line: --since and --until, each a duration back from now or a time. */
export interface Window {
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
}

const emptyWindow = () => usageError('--since is later than --until: nothing can be in between');

/**
 * Refuses a window that is empty whatever the time: two durations, or two times, are ordered here, before any
 * request; a duration and a time only against the service's now (windowAt).
 */
export function checkWindow({ since, until }: Window): void {
  if (since && until && 'ago' in since === 'ago' in until && boundAt(since, 0) > boundAt(until, 0)) throw emptyWindow();
}

/**
 * The window in epoch ms, and the now it was counted from. A window counted back from now is counted on the
 * service's clock (asked, when no answer has told it yet), as the times in its log are.
 */
export async function windowAt(
  deps: Pick<CommandDeps, 'api' | 'serviceNow'>,
  { since, until }: Window,
): Promise<{ since: number | undefined; until: number | undefined; now: number }> {
  const countsBack = [since, until].some((bound) => bound !== undefined && 'ago' in bound);
  const now = countsBack ? await askServiceNow(deps.api) : deps.serviceNow();
  const window = { since: since && boundAt(since, now), until: until && boundAt(until, now), now };
  if (window.since !== undefined && window.until !== undefined && window.since > window.until) throw emptyWindow();
  return window;
}

/**
 * One webhook's attempts, newest first, down to `since`, as a walk across webhooks reads them: a webhook deleted
 * while the walk went through the others took its deliveries with it, and its log ends with a line on stderr; one
 * the user named (`named`) is its 404.
 */
export async function* logAcross(
  deps: Pick<CommandDeps, 'api' | 'stderr'>,
  webhookId: string,
  named: boolean,
  options: { status?: DeliveryStatus | undefined; since?: number | undefined; pageSize?: number | undefined } = {},
): AsyncGenerator<Attempt> {
  try {
    yield* attemptsOf(deps.api, webhookId, options);
  } catch (error) {
    if (named || !(error instanceof ApiError) || error.status !== 404) throw error;
    deps.stderr.write(`whsvc: webhook ${sanitize(webhookId)} was deleted while its log was read: skipped\n`);
  }
}

/**
 * What a list across webhooks reads at most. A list stopped by one says so, and its JSON says `has_more: true`.
 * - webhooks: the merge holds a page of each webhook's log (at most MERGE_BUFFER attempts in all), and every
 *   webhook's first page is read before the first row;
 * - eachLog: attempts of one webhook's log (500 pages of 200): past it, its older attempts are not listed;
 * - read: attempts of every log together (5,000 pages of 200), about an hour of requests against a distant service.
 */
export const ACROSS_BOUNDS = { webhooks: 1_000, eachLog: 100_000, read: 1_000_000 };
export type AcrossBounds = typeof ACROSS_BOUNDS;

/** Attempts the merge holds at most (a page of each webhook's log): pages shrink as webhooks grow, to MIN_MERGE_PAGE. */
const MERGE_BUFFER = 20_000;
const MIN_MERGE_PAGE = 10;
/** Webhooks' first pages read at once (as webhooks health reads logs). */
const FIRST_PAGES_AT_ONCE = 4;

/** An attempt as a list across webhooks gives it: as the service's list returned it, with its webhook's id. */
export type AcrossRow = Attempt & { webhook_id: string };

export interface AcrossQuery {
  /** Only these webhooks (each read first: an unknown one is its 404); none: every webhook. */
  webhooks: string[];
  status?: DeliveryStatus | undefined;
  /** Only these event types; none: every type. */
  events: string[];
  since?: number | undefined;
  until?: number | undefined;
  /** The attempts the caller takes at most: no page is read larger than that. */
  wanted?: number | undefined;
}

/** The item with `webhook_id` after its own id, where the service's retrieve of a delivery has it (a value it sent kept). */
const withWebhook = (attempt: Attempt, webhookId: string): AcrossRow => {
  const { id, ...rest } = attempt;
  return { id, webhook_id: webhookId, ...rest };
};

/** A log's next attempt, the one the merge compares: newest first, ties in the order the webhooks were listed. */
interface Head {
  row: AcrossRow;
  at: number;
  order: number;
  log: AsyncIterator<AcrossRow>;
}

const newer = (a: Head, b: Head) => a.at > b.at || (a.at === b.at && a.order < b.order);

/**
 * The attempts of several webhooks' logs as one list, newest first: each log is read newest first, and the merge
 * takes the newest of their next attempts each time, holding one page of each log. Within the bounds (ACROSS_BOUNDS);
 * what stopped it is kept here for the caller to say.
 */
export class LogsAcross {
  /** Webhooks whose logs are read. */
  webhooks = 0;
  /** Attempts read, of every log. */
  read = 0;
  /** The account has more webhooks than bounds.webhooks: only the first ones listed are read. */
  moreWebhooks = false;
  /** The walk stopped at bounds.read attempts read. */
  stoppedAtRead = false;
  /** Webhooks whose log was read to bounds.eachLog attempts and no further. */
  readonly cutLogs: string[] = [];

  constructor(
    private readonly deps: Pick<CommandDeps, 'api' | 'stderr'>,
    private readonly query: AcrossQuery,
    readonly bounds: AcrossBounds = ACROSS_BOUNDS,
  ) {}

  /** Whether a bound left attempts unread. */
  get incomplete(): boolean {
    return this.moreWebhooks || this.stoppedAtRead || this.cutLogs.length > 0;
  }

  async *rows(): AsyncGenerator<AcrossRow> {
    const ids = await this.webhookIds();
    this.webhooks = ids.length;
    const pageSize = Math.max(MIN_MERGE_PAGE, Math.min(MAX_PAGE, Math.floor(MERGE_BUFFER / Math.max(1, ids.length)), this.query.wanted ?? MAX_PAGE));
    const logs = ids.map((id) => this.log(id, pageSize)[Symbol.asyncIterator]());
    const heads = new Heap<Head>(newer);
    const firsts = await pMap(logs, async (log, order) => ({ log, order, next: await log.next() }), { concurrency: FIRST_PAGES_AT_ONCE });
    for (const { log, order, next } of firsts) if (!next.done) heads.push(head(next.value, order, log));
    for (let top = heads.pop(); top && !this.stoppedAtRead; top = heads.pop()) {
      yield top.row;
      const next = await top.log.next();
      if (!next.done) heads.push(head(next.value, top.order, top.log));
    }
  }

  /** The webhooks named (each read first), or every one listed, up to bounds.webhooks. */
  private async webhookIds(): Promise<string[]> {
    const ids: string[] = [];
    for await (const webhook of webhooksOf(this.deps.api, this.query.webhooks)) {
      if (ids.length === this.bounds.webhooks) {
        this.moreWebhooks = true;
        break;
      }
      ids.push(webhook.id);
    }
    return ids;
  }

  /** One webhook's attempts that the query takes, newest first, within the bounds. */
  private async *log(webhookId: string, pageSize: number): AsyncGenerator<AcrossRow> {
    const { status, since, until } = this.query;
    const events = new Set(this.query.events);
    let read = 0;
    for await (const attempt of logAcross(this.deps, webhookId, this.query.webhooks.length > 0, { status, since, pageSize })) {
      if (this.read === this.bounds.read) {
        this.stoppedAtRead = true;
        return;
      }
      if (read === this.bounds.eachLog) {
        this.cutLogs.push(webhookId);
        return;
      }
      read += 1;
      this.read += 1;
      if (until !== undefined && timeOf(attempt) > until) continue;
      if (events.size > 0 && !events.has(attempt.event)) continue;
      yield withWebhook(attempt, webhookId);
    }
  }
}

/** An attempt's time for the merge; one the service gave no readable time is taken as the oldest. */
const timeOf = (attempt: Attempt) => {
  const at = Date.parse(attempt.created_at);
  return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
};

const head = (row: AcrossRow, order: number, log: AsyncIterator<AcrossRow>): Head => ({ row, at: timeOf(row), order, log });

/** A binary heap: `pop` gives the item `first` puts before every other. */
class Heap<T> {
  private readonly items: T[] = [];
  constructor(private readonly first: (a: T, b: T) => boolean) {}

  push(item: T): void {
    const items = this.items;
    items.push(item);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.first(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    for (let i = 0; ; ) {
      const [left, right] = [2 * i + 1, 2 * i + 2];
      let best = i;
      if (left < items.length && this.first(items[left]!, items[best]!)) best = left;
      if (right < items.length && this.first(items[right]!, items[best]!)) best = right;
      if (best === i) break;
      [items[i], items[best]] = [items[best]!, items[i]!];
      i = best;
    }
    return top;
  }
}
