import type { Attempt } from '../../api/shapes.js';
import { getAttempt, listAttempts } from '../../api/endpoints.js';
import { Argument, Command, Option } from '@commander-js/extra-typings';
import { pMapIterable } from 'p-map';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { AnswerBudget } from '../../api/answer-budget.js';
import { ApiError } from '../../api/errors.js';
import { deliveryKey, logOf } from '../../api/log.js';
import { checkEventTypes } from '../../cli/catalog.js';
import { collect, collectList, integerIn, oneOf, resourceId, timeBound, type TimeBound } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/context.js';
import { usageError } from '../../cli/errors.js';
import { StreamedList, writeMoreLine, writePages } from '../../cli/output.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../protocol/status.js';
import { ProgressLine } from '../../render/progress.js';
import { andMore, counted, countText, sanitize } from '../../render/text.js';
import { ACROSS_BOUNDS, type AcrossBounds, type AcrossRow, checkWindow, LogsAcross, windowAt } from './shared/across.js';
import { attemptTable } from './shared/view.js';
import { NewestFirst } from './shared/fate.js';

export const command = (runF = run) =>
  new Command('list')
    .description("delivery attempts, newest first: a webhook's log, or without its id every webhook's, filtered")
    .addArgument(new Argument('[webhook-id]', "the webhook whose log to page through (without it: every webhook's)").argParser(resourceId('webhook')))
    .addOption(new Option('--status <status>', 'delivered, failed or pending').argParser(oneOf(DELIVERY_STATUSES)))
    .addOption(
      new Option('--limit <n>', `with a webhook id the page size, 1 to ${PAGE_MOST}; across webhooks the N newest (default ${ACROSS_LIMIT})`).argParser(
        integerIn(1, ACROSS_BOUNDS.read),
      ),
    )
    .option('--cursor <cursor>', "the page of a webhook's log after this cursor")
    .option('--all', 'every page (across webhooks, every match), streamed as it arrives')
    .addOption(
      new Option('--webhook <id>', 'across webhooks: only this webhook (repeatable)').argParser(collect(resourceId('webhook'))).default([] as string[], 'all'),
    )
    .addOption(
      new Option('--event <type>', 'across webhooks: only this event type (repeatable, or a comma list)')
        .argParser(collectList('an event type, such as invoice.paid'))
        .default([] as string[], 'all'),
    )
    .addOption(new Option('--since <when>', 'across webhooks: only attempts since then: 2h, 30m, 3d, or an ISO 8601 time').argParser(timeBound))
    .addOption(new Option('--until <when>', 'across webhooks: only attempts until then (same forms)').argParser(timeBound))
    .option('--payload-id <id>', "across webhooks: only deliveries whose payload has this id (inv_…), each delivery's payload retrieved")
    .addHelpText(
      'after',
      examples(
        'whsvc deliveries list wh_… --status failed',
        'whsvc deliveries list wh_… --all --json',
        'whsvc deliveries list --since 1h --status failed',
        'whsvc deliveries list --payload-id inv_… --event invoice.paid --since 1d',
      ),
    )
    .action(apiAction((deps, webhookId, o) => runF(listOptions(webhookId, o), deps)));

/** The largest page of the service's log: --limit with a webhook id. */
const PAGE_MOST = 200;
/** The rows a list across webhooks shows without --limit or --all: the service's own default page. */
export const ACROSS_LIMIT = 50;

export interface DeliveriesListOptions {
  /** One webhook's log, paged as the service pages it; undefined: the list across webhooks (`across`). */
  webhookId?: string | undefined;
  status?: DeliveryStatus | undefined;
  /** The page size of a webhook's log; across webhooks the most rows shown (none with --all). */
  limit?: number | undefined;
  cursor?: string | undefined;
  all: boolean;
  across?: AcrossFilters | undefined;
}

/** What a list across webhooks takes (the webhook given as an argument is one of `webhooks`). */
export interface AcrossFilters {
  webhooks: string[];
  events: string[];
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
  payloadId?: string | undefined;
}

interface ListFlags {
  status?: DeliveryStatus | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  all?: true | undefined;
  webhook: string[];
  event: string[];
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
  payloadId?: string | undefined;
}

/**
 * Which list the flags ask for: a webhook's log as the service pages it (`deliveries list wh_…` with --status,
 * --limit, --cursor, --all, as it always was), or, without the id or with a filter the service's log has not, the
 * list across webhooks, which has no cursor: --limit counts its rows, --all takes every match.
 */
function listOptions(webhookId: string | undefined, o: ListFlags): DeliveriesListOptions {
  const { status, limit, cursor } = o;
  const all = Boolean(o.all);
  const filtered = o.webhook.length > 0 || o.event.length > 0 || o.since !== undefined || o.until !== undefined || o.payloadId !== undefined;
  if (webhookId !== undefined && !filtered) {
    if (limit !== undefined && limit > PAGE_MOST) {
      throw usageError(
        `--limit ${limit}: must be an integer from 1 to ${PAGE_MOST}`,
        `a page of a webhook's log holds ${PAGE_MOST} at most: --all reads every page, or \`--webhook ${webhookId} --limit ${limit}\` lists its ${limit} newest`,
      );
    }
    return { webhookId, status, limit, cursor, all };
  }
  if (cursor !== undefined) {
    throw usageError(
      "--cursor pages one webhook's log (deliveries list WEBHOOK_ID --cursor C): the list across webhooks has no cursor",
      'show more with --limit N or --all, or older ones with --until TIME',
    );
  }
  if (all && limit !== undefined) throw usageError('--all lists every match and --limit N the N newest: give one of them');
  if (o.payloadId?.trim() === '') throw usageError('--payload-id is empty: give the id in the payload, such as inv_…');
  checkWindow(o);
  const webhooks = [...new Set([...(webhookId === undefined ? [] : [webhookId]), ...o.webhook])];
  return {
    status,
    limit: all ? undefined : (limit ?? ACROSS_LIMIT),
    all,
    across: { webhooks, events: o.event, since: o.since, until: o.until, payloadId: o.payloadId },
  };
}

export async function run(options: DeliveriesListOptions, deps: CommandDeps, bounds: ListBounds = LIST_BOUNDS): Promise<number> {
  if (options.across) return listAcross(options, options.across, deps, bounds);
  const webhookId = options.webhookId!;
  // A delivery's newest attempt says its fate: known only of a log read from its top, with none of its attempts left out.
  const newest = new NewestFirst(options.cursor === undefined && options.status === undefined);
  await writePages<Attempt>(deps, {
    all: options.all,
    list: logOf(webhookId),
    firstCursor: options.cursor,
    fetchPage: (cursor) => listAttempts(deps.api, webhookId, { limit: options.limit, cursor, status: options.status }),
    renderPage: (items, table) => attemptTable(items, deps.colors, deps.serviceNow(), table, { newest }),
    empty: 'No deliveries.\n',
    nextCommand: (cursor) =>
      [
        'whsvc deliveries list',
        webhookId,
        options.status ? `--status ${options.status}` : '',
        options.limit ? `--limit ${options.limit}` : '',
        `--cursor ${cursor}`,
      ]
        .filter(Boolean)
        .join(' '),
  });
  return 0;
}

/**
 * What a list across webhooks reads at most (ACROSS_BOUNDS); the deliveries whose payload --payload-id retrieves (a
 * request each); and the bytes the answers of the retrieves under way hold at most in all (each a payload of up to
 * --max-answer-size: eight of 64 MiB at once were 869 MB of memory).
 */
export const LIST_BOUNDS = { ...ACROSS_BOUNDS, lookups: 1_000, lookupBytes: 128 * 1024 ** 2 };
export type ListBounds = AcrossBounds & { lookups: number; lookupBytes: number };

/** Rows of a table written at once: a list across webhooks shows its first rows before the walk is done. */
const TABLE_ROWS = 50;

/** The list across webhooks: the walk's rows (and of them those whose payload has the id), written as they come. */
async function listAcross(options: DeliveriesListOptions, across: AcrossFilters, deps: CommandDeps, bounds: ListBounds): Promise<number> {
  const events = across.events.length > 0 ? await checkEventTypes(deps, across.events, '--event') : [];
  const { since, until } = await windowAt(deps, across);
  // Pages no larger than the rows wanted (and one more, that tells whether more match), unless rows are filtered here.
  const filteredHere = events.length > 0 || until !== undefined || across.payloadId !== undefined;
  const wanted = options.limit === undefined || filteredHere ? undefined : options.limit + 1;
  const walk = new LogsAcross(deps, { webhooks: across.webhooks, status: options.status, events, since, until, wanted }, bounds);
  const search = across.payloadId === undefined ? undefined : new PayloadSearch(deps, across.payloadId, bounds);
  // On a terminal, how far a search has gone: each payload takes a request.
  const progress = deps.stderr.isTTY && search ? new ProgressLine(deps.stderr, deps.now) : undefined;
  if (search && progress) search.onLook = () => progress.update(`payload id ${sanitize(search.payloadId)}: ${searchWords(search, walk)}…`);
  // Newest first across webhooks too: a delivery's first row is its newest attempt, unless --status or --until left that out.
  const newest = new NewestFirst(options.status === undefined && until === undefined);
  const list = new StreamedList<AcrossRow>(
    deps,
    (rows, table) => attemptTable(rows, deps.colors, deps.serviceNow(), table, { newest, withWebhook: true }),
    'No deliveries.\n',
  );
  let batch: AcrossRow[] = [];
  const flush = async () => {
    progress?.clear();
    await list.add(batch);
    batch = [];
  };
  let shown = 0;
  let more = false;
  try {
    for await (const row of search ? search.matches(walk.rows()) : walk.rows()) {
      // One row past the limit: it tells that more match.
      if (shown === options.limit) {
        more = true;
        break;
      }
      batch.push(row);
      shown += 1;
      if (batch.length === TABLE_ROWS || deps.json) await flush();
    }
    await flush();
  } catch (error) {
    progress?.clear();
    list.abandon();
    throw error;
  }
  list.end(more || walk.incomplete || search?.stoppedAtBound === true);
  if (more && !deps.json) writeMoreLine(deps, shown, { flag: '--limit N' });
  for (const line of boundLines(walk, search, bounds)) deps.stderr.write(`whsvc: ${line}\n`);
  if (search) deps.stderr.write(`Payload id ${sanitize(search.payloadId)}: ${searchWords(search, walk)}.\n`);
  return 0;
}

/** How far a payload search went: `2 attempts carry it, of 37 deliveries whose payload was looked at (1,200 attempts read of 3 webhooks)`. */
const searchWords = (search: PayloadSearch, walk: LogsAcross) =>
  `${counted(search.found, 'attempt carries', 'attempts carry')} it, of ${counted(search.looked, 'delivery')} whose payload was looked at (${counted(walk.read, 'attempt')} read of ${counted(walk.webhooks, 'webhook')})`;

/** A line for each bound that left attempts unread, with how to narrow the list. */
function boundLines(walk: LogsAcross, search: PayloadSearch | undefined, bounds: ListBounds): string[] {
  const lines: string[] = [];
  if (walk.moreWebhooks) {
    lines.push(
      `the account has more than ${counted(bounds.webhooks, 'webhook')}, the most one list reads: only the first ${countText(bounds.webhooks)} listed were; name others with --webhook`,
    );
  }
  if (walk.cutLogs.length > 0) {
    const which = andMore(walk.cutLogs.slice(0, 3).map(sanitize), walk.cutLogs.length);
    lines.push(
      `${walk.cutLogs.length === 1 ? 'the log of' : 'the logs of'} ${which} ${walk.cutLogs.length === 1 ? 'was' : 'were'} read to the newest ${counted(bounds.eachLog, 'attempt')}, the most one list reads of a log: older ones are not listed; narrow with --since`,
    );
  }
  if (walk.stoppedAtRead) {
    lines.push(
      `stopped after ${counted(bounds.read, 'attempt')} read, the most one list reads: older ones are not listed; narrow with --since, --webhook or --event`,
    );
  }
  if (search?.stoppedAtBound) {
    lines.push(
      `stopped after looking at ${counted(bounds.lookups, "delivery's payload", "deliveries' payloads")}, the most one search retrieves: older ones were not looked at; narrow with --since or --event`,
    );
  }
  return lines;
}

/** Payload ids looked up at once: reads, each of a delivery, in the walk's order. */
const LOOKUPS_AT_ONCE = 8;

type Checked = { row: AcrossRow; carries: boolean } | { row: AcrossRow; stop: true } | { row: AcrossRow; error: unknown };

/**
 * The rows whose delivery's payload has the id asked for. The list gives no payload: each delivery's is retrieved
 * once (through the first of its attempts met, its newest), LOOKUPS_AT_ONCE at a time, in the walk's order, and at
 * most `bounds.lookups` deliveries' payloads in all. The answers under way hold at most `bounds.lookupBytes`: each
 * is read to its share of them first, and one longer is asked again, up to --max-answer-size, with fewer beside it.
 */
class PayloadSearch {
  /** Deliveries whose payload was retrieved. */
  looked = 0;
  /** Rows that carry the id. */
  found = 0;
  /** The search stopped at `most` payloads looked at. */
  stoppedAtBound = false;
  /** Told after each payload looked at. */
  onLook: () => void = () => {};
  /** Delivery → whether its payload has the id: one entry for each delivery looked at. */
  private readonly verdicts = new Map<string, Promise<boolean>>();
  private readonly budget: AnswerBudget;

  constructor(
    private readonly deps: Pick<CommandDeps, 'api'>,
    readonly payloadId: string,
    private readonly bounds: Pick<ListBounds, 'lookups' | 'lookupBytes'>,
  ) {
    this.budget = new AnswerBudget(bounds.lookupBytes);
  }

  async *matches(rows: AsyncIterable<AcrossRow>): AsyncGenerator<AcrossRow> {
    // Each lookup's failure is handed on as a value, thrown here in the walk's order: none is left unhandled.
    const checked = pMapIterable(rows, (row) => this.check(row), { concurrency: LOOKUPS_AT_ONCE, backpressure: 2 * LOOKUPS_AT_ONCE });
    for await (const result of checked) {
      if ('error' in result) throw result.error;
      if ('stop' in result) {
        this.stoppedAtBound = true;
        return;
      }
      if (!result.carries) continue;
      this.found += 1;
      yield result.row;
    }
  }

  private async check(row: AcrossRow): Promise<Checked> {
    const key = deliveryKey(row);
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      if (this.looked === this.bounds.lookups) return { row, stop: true };
      this.looked += 1;
      verdict = this.carries(row.id);
      this.verdicts.set(key, verdict);
    }
    try {
      return { row, carries: await verdict };
    } catch (error) {
      return { row, error };
    }
  }

  private async carries(attemptId: string): Promise<boolean> {
    try {
      return (await this.payloadIdIn(attemptId)) === this.payloadId;
    } catch (error) {
      // Gone with its webhook since the walk read it: nothing of it is listed.
      if (error instanceof ApiError && error.status === 404) return false;
      throw error;
    } finally {
      this.onLook();
    }
  }

  /**
   * The id in the payload of an attempt, read within the budget (the answer dropped before its share is given back):
   * first to a share that lets LOOKUPS_AT_ONCE be read at once, and, when the answer is longer, again, to
   * --max-answer-size (then fewer at once: the budget over that size).
   */
  private async payloadIdIn(attemptId: string): Promise<string | undefined> {
    const most = this.deps.api.maxAnswerBytes;
    const share = Math.min(most, Math.floor(this.bounds.lookupBytes / LOOKUPS_AT_ONCE));
    const read = (bytes: number) =>
      this.budget.reading(bytes, async () => payloadIdOf((await getAttempt(this.deps.api, attemptId, { maxAnswerBytes: bytes })).payload));
    try {
      return await read(share);
    } catch (error) {
      if (share === most || !(error instanceof ApiError && error.code === 'answer_too_large')) throw error;
    }
    return read(most);
  }
}

/** A payload's own id (the invoice's `inv_…`), as text. */
function payloadIdOf(payload: unknown): string | undefined {
  const id = payload !== null && typeof payload === 'object' ? (payload as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}
