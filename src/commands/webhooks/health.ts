import type { Attempt, Webhook } from '../../api/shapes.js';
import { Argument, Command, Option } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import pMap from 'p-map';
import type { ApiClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import { answeredStatus, attemptsOf, deliveryKey, webhooksOf } from '../../api/log.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson, tableLayout, writeEmptyNote } from '../../cli/output.js';
import { boundAt, collect, percentage, resourceId, timeBound, type TimeBound } from '../../cli/parse.js';
import type { Colors } from '../../render/colors.js';
import { renderTable, type Column, type TableOptions } from '../../render/table.js';
import { counted, countText, sanitize } from '../../render/text.js';
import { NO_ANSWER } from '../../render/words.js';
import { CODE_WIDTH, URL_MIN, WEBHOOK_ID_WIDTH } from '../../cli/columns.js';
import { laidOut } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('health')
    .description(
      'delivered share, failures and a verdict per webhook, worst first; exit 1 when one is unhealthy (under 95% delivered, or its newest delivery failed)',
    )
    .addArgument(new Argument('[ids...]', 'webhook ids (default: every webhook)').argParser(collect(resourceId('webhook'))))
    .addOption(new Option('--since <time>', 'the window: a duration back from now (30m, 2h, 3d) or an ISO 8601 time; default 24h').argParser(timeBound))
    .addOption(
      new Option('--fail-under <pct>', 'a webhook that delivered less than this percentage of its deliveries (95 or 95%; 0: never) is unhealthy')
        .default(DEFAULT_FAIL_UNDER, `${DEFAULT_FAIL_UNDER}%`)
        .argParser(percentage),
    )
    .addHelpText(
      'after',
      examples(
        'whsvc webhooks health',
        'whsvc webhooks health wh_… --since 2h',
        'whsvc webhooks health --json               # in a cron job or CI: exit 1 when one is unhealthy',
        'whsvc webhooks health --fail-under 99      # stricter than the default 95%',
      ),
    )
    .action(apiAction((deps, ids, o) => runF({ ids: ids ?? [], since: o.since, failUnder: o.failUnder }, deps)));

export interface HealthOptions {
  /** The webhooks to look at; every webhook of the account when empty. */
  ids: string[];
  /** The window's start; 24 hours back by default. */
  since?: TimeBound | undefined;
  /** A percentage (0 to 100): a webhook whose delivered share is below it is unhealthy; DEFAULT_FAIL_UNDER when not given. */
  failUnder?: number | undefined;
}

/** One webhook's figures over the window, as `--json` prints them. */
export interface WebhookHealth {
  id: string;
  url: string;
  active: boolean;
  /** Deliveries whose newest attempt is in the window (attempts grouped by delivery). */
  deliveries: number;
  delivered: number;
  failed: number;
  /** Of the failed, those whose automatic retry is due (when the service says so: `next_attempt_at`). */
  retry_due: number;
  pending: number;
  /** Shares of `deliveries`, 0 to 1; null when there are none. */
  delivered_share: number | null;
  failed_share: number | null;
  pending_share: number | null;
  /** The newest delivered / failed attempt in the window. */
  last_delivered_at: string | null;
  last_failed_at: string | null;
  /** The response code of that failed attempt (null too when it got no HTTP response). */
  last_failure_code: number | null;
  /** The most recent finished deliveries that failed, one after another (pending ones are passed over). */
  failing_streak: number;
  /** False exactly when the webhook is unhealthy (what the exit code counts); true too with no deliveries in the window. */
  healthy: boolean;
  /** The verdict in one word: `healthy`, `unhealthy`, or `no_data` (no deliveries in the window). */
  health: Health;
}

export type Health = 'healthy' | 'unhealthy' | 'no_data';

/**
 * The delivered share under which a webhook is unhealthy when --fail-under is not given: 95%, as a user would call a
 * webhook healthy (one delivery in twenty may fail, and be retried); 13% delivered is never healthy, whatever its
 * newest delivery did.
 */
export const DEFAULT_FAIL_UNDER = 95;

export const DEFAULT_SINCE: TimeBound = { ago: 24 * 3_600_000 };
/** Webhooks whose logs are read at once. */
const CONCURRENCY = 4;

/**
 * Counts one webhook's deliveries from its attempts, fed newest first. The
 * first attempt seen of a delivery is its newest, so it gives the delivery's
 * state; later (older) ones only count for the last-failure and
 * last-delivered times. Memory: the set of the window's delivery ids, dropped
 * with the tally.
 */
export class HealthTally {
  deliveries = 0;
  delivered = 0;
  failed = 0;
  retryDue = 0;
  pending = 0;
  lastDeliveredAt: string | null = null;
  lastFailedAt: string | null = null;
  lastFailureCode: number | null = null;
  failingStreak = 0;
  private streakOpen = true;
  private readonly seen = new Set<string>();

  add(attempt: Attempt): void {
    if (attempt.status === 'delivered' && this.lastDeliveredAt === null) this.lastDeliveredAt = attempt.created_at;
    if (attempt.status === 'failed' && this.lastFailedAt === null) {
      this.lastFailedAt = attempt.created_at;
      this.lastFailureCode = answeredStatus(attempt.response_code) ?? null;
    }
    const key = deliveryKey(attempt);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.deliveries += 1;
    if (attempt.status === 'delivered') this.delivered += 1;
    else if (attempt.status === 'failed') {
      this.failed += 1;
      if (attempt.next_attempt_at) this.retryDue += 1;
    }
    // pending, or a state this version does not know: not finished.
    else this.pending += 1;
    if (this.streakOpen) {
      if (attempt.status === 'failed') this.failingStreak += 1;
      else if (attempt.status === 'delivered') this.streakOpen = false;
    }
  }

  /** The figures of `webhook` and its verdict, with `failUnder` (percent) the share under which it is unhealthy. */
  result(webhook: Pick<Webhook, 'id' | 'url' | 'active'>, failUnder = DEFAULT_FAIL_UNDER): WebhookHealth {
    const share = (n: number) => (this.deliveries === 0 ? null : n / this.deliveries);
    const row: WebhookHealth = {
      id: webhook.id,
      url: webhook.url,
      active: webhook.active,
      deliveries: this.deliveries,
      delivered: this.delivered,
      failed: this.failed,
      retry_due: this.retryDue,
      pending: this.pending,
      delivered_share: share(this.delivered),
      failed_share: share(this.failed),
      pending_share: share(this.pending),
      last_delivered_at: this.lastDeliveredAt,
      last_failed_at: this.lastFailedAt,
      last_failure_code: this.lastFailureCode,
      failing_streak: this.failingStreak,
      healthy: true,
      health: 'no_data',
    };
    if (this.deliveries > 0) row.health = this.failingStreak === 0 && !isBelow(row, failUnder) ? 'healthy' : 'unhealthy';
    row.healthy = row.health !== 'unhealthy';
    return row;
  }
}

/** How many unhealthy webhooks the closing line names. */
const NAMED_UNHEALTHY = 3;

/** Why a row is unhealthy, in a few words: its newest deliveries failing, its delivered share below --fail-under, or both. */
function whyUnhealthy(row: WebhookHealth, failUnder: number): string {
  const reasons: string[] = [];
  if (row.failing_streak > 0)
    reasons.push(row.failing_streak === 1 ? 'its newest delivery failed' : `its newest ${counted(row.failing_streak, 'delivery')} failed`);
  if (isBelow(row, failUnder)) reasons.push(`${percent(row.delivered_share)} delivered, under ${failUnder}%`);
  return reasons.join('; ');
}

/** Whether a webhook's delivered share is below `failUnder` percent (never, with no deliveries). */
export function isBelow(row: Pick<WebhookHealth, 'deliveries' | 'delivered'>, failUnder: number | undefined): boolean {
  // In whole numbers where it can: 19 of 20 is not below 95.
  return failUnder !== undefined && row.deliveries > 0 && row.delivered * 100 < failUnder * row.deliveries;
}

/** Worst first: the longest failing streak, then the smallest delivered share (none at all last), then by id. */
export function worstFirst(a: WebhookHealth, b: WebhookHealth): number {
  if (a.failing_streak !== b.failing_streak) return b.failing_streak - a.failing_streak;
  const share = (row: WebhookHealth) => row.delivered_share ?? Infinity;
  if (share(a) !== share(b)) return share(a) - share(b);
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

async function healthOf(api: ApiClient, webhook: Webhook, since: () => number, failUnder: number): Promise<WebhookHealth> {
  const tally = new HealthTally();
  for await (const attempt of attemptsOf(api, webhook.id, { since: since() })) tally.add(attempt);
  return tally.result(webhook, failUnder);
}

const percent = (share: number | null): string => {
  if (share === null) return '-';
  const p = share * 100;
  let text = Number.isInteger(p) ? String(p) : p.toFixed(1);
  // Never round a partial share up to all, or down to none.
  if (text === '100.0') text = '99.9';
  if (text === '0.0') text = '0.1';
  return `${text}%`;
};

const orDash = (value: unknown) => (value === null || value === undefined ? '-' : String(value));

/** The verdict as the HEALTH column and the piped rows say it. */
export const healthWords = (health: Health) => (health === 'no_data' ? 'no data' : health);

/** The last failure's code: its status, `no answer` (codeWords), or `-` with no failure in the window. */
const lastFailureCode = (row: WebhookHealth) => (row.last_failed_at === null ? '-' : (row.last_failure_code?.toString() ?? NO_ANSWER));

/**
 * The health table's columns by width (the rows never change them): at every width the id, the URL, the verdict
 * (HEALTH, in words, so that it survives NO_COLOR and a paste), and from 70 columns the share delivered (`16.7% of
 * 24`), which goes below that so that a URL keeps its host whole; then, as the terminal widens, the failing streak, the
 * last failure's time and its code (together, never one alone), the id whole, the webhook's status (active or paused), the last
 * delivered time, the failed and pending shares. The URL is laid out as webhooks list lays it out: where its host
 * would be cut, the id takes its short form first, and every row drops its scheme when one must (render/table.ts).
 */
const healthColumns = (now: number): Column[] => [
  { title: 'ID', kind: 'id', width: WEBHOOK_ID_WIDTH, give: 6 },
  { title: 'URL', kind: 'url', width: 40, min: URL_MIN, give: 4 },
  { title: 'STATUS', width: 6, drop: 5 },
  { title: 'HEALTH', width: 9 },
  // `99.9% of 999`: a wider count widens the column.
  { title: 'DELIVERED', width: 12, drop: 10 },
  { title: 'FAILED', width: 5, drop: 1 },
  { title: 'PENDING', width: 5, drop: 0 },
  { title: 'FAILING STREAK', width: 4, drop: 8 },
  { title: 'LAST DELIVERED', kind: 'time', now, drop: 3 },
  { title: 'LAST FAILED', kind: 'time', now, give: 2, drop: 7 },
  // The last failure's code: with its time, never alone (its `-` would read as an attempt under way).
  { title: 'CODE', width: CODE_WIDTH, dropsWith: 'LAST FAILED' },
];

export async function healthTable(rows: WebhookHealth[], colors: Colors, now: number, options: TableOptions = {}): Promise<string> {
  if (options.plain) {
    // For scripts: the shares as in --json (0 to 1), times in ISO 8601.
    return renderTable(
      [],
      rows.map((r) => [
        r.id,
        r.url,
        r.active ? 'active' : 'paused',
        String(r.deliveries),
        orDash(r.delivered_share),
        orDash(r.failed_share),
        orDash(r.pending_share),
        String(r.failing_streak),
        orDash(r.last_delivered_at),
        orDash(r.last_failed_at),
        lastFailureCode(r),
        healthWords(r.health),
      ]),
      colors,
      options,
    );
  }
  const text = await renderTable(
    healthColumns(now),
    rows.map((r) => [
      r.id,
      r.url,
      r.active ? 'active' : 'paused',
      healthWords(r.health),
      r.deliveries === 0 ? '-' : `${percent(r.delivered_share)} of ${countText(r.deliveries)}`,
      percent(r.failed_share),
      percent(r.pending_share),
      String(r.failing_streak),
      orDash(r.last_delivered_at),
      orDash(r.last_failed_at),
      lastFailureCode(r),
    ]),
    colors,
    options,
  );
  if (!colors.enabled) return text;
  // Colour whole rows (cells are sanitised, so colour cannot go into them): red for the unhealthy, yellow for failures
  // since got over. The HEALTH column says the same in words.
  const lines = text.slice(0, -1).split('\n');
  if (lines.length !== rows.length + 1) return text;
  return `${lines
    .map((line, i) => {
      const row = rows[i - 1];
      if (!row) return line;
      if (row.health === 'unhealthy') return colors.red(line);
      return row.failed > 0 ? colors.yellow(line) : line;
    })
    .join('\n')}\n`;
}

export async function run(options: HealthOptions, deps: CommandDeps): Promise<number> {
  const failUnder = options.failUnder ?? DEFAULT_FAIL_UNDER;
  // Counted back from the service's now, known once it has answered (the webhooks are read first).
  let sinceAt: number | undefined;
  const since = () => (sinceAt ??= boundAt(options.since ?? DEFAULT_SINCE, deps.serviceNow()));
  // CONCURRENCY webhooks' logs read at a time; the first error stops the taking of more.
  const found = await pMap(
    webhooksOf(deps.api, options.ids),
    async (webhook) => {
      try {
        return await healthOf(deps.api, webhook, since, failUnder);
      } catch (error) {
        // Deleted while the others were read: it has no health left to tell (a webhook named on the line is an error, 404).
        if (options.ids.length > 0 || !(error instanceof ApiError) || error.status !== 404) throw error;
        deps.stderr.write(laidOut(deps.stderr, `whsvc: webhook ${sanitize(webhook.id)} was deleted while its log was read: left out\n`));
        return undefined;
      }
    },
    { concurrency: CONCURRENCY },
  );
  const rows = found.filter((row): row is WebhookHealth => row !== undefined);
  rows.sort(worstFirst);
  if (deps.json) {
    printJson(deps, { since: new Date(since()).toISOString(), fail_under: failUnder / 100, webhooks: rows });
  } else {
    const layout = tableLayout(deps.stdout);
    if (rows.length === 0) writeEmptyNote(deps, layout, 'No webhooks. Create one with: whsvc webhooks create --url URL --events TYPE\n');
    else deps.stdout.write(await healthTable(rows, deps.colors, deps.serviceNow(), layout));
  }
  const unhealthy = rows.filter((row) => !row.healthy);
  if (unhealthy.length === 0) return 0;
  // One is named with why; several, the worst few each with why, and how many more.
  if (unhealthy.length === 1)
    deps.stderr.write(laidOut(deps.stderr, `whsvc: 1 webhook is unhealthy: ${sanitize(unhealthy[0]!.id)} (${whyUnhealthy(unhealthy[0]!, failUnder)})\n`));
  else {
    const named = unhealthy.slice(0, NAMED_UNHEALTHY).map((row) => `  ${sanitize(row.id)}: ${whyUnhealthy(row, failUnder)}\n`);
    const more = unhealthy.length - named.length;
    // Where the rest are: a terminal's table is above this; a pipe's rows went to stdout, another program or file.
    const rest = deps.json ? '' : tableLayout(deps.stdout).plain ? ' (in the rows on stdout)' : ' (the table above)';
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `whsvc: ${counted(unhealthy.length, 'webhook')} are unhealthy${more > 0 ? `, the worst ${named.length}` : ''}:\n${named.join('')}${more > 0 ? `  and ${countText(more)} more${rest}\n` : ''}`,
      ),
    );
  }
  return 1;
}
