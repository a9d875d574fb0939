import type { Attempt } from '../../api/shapes.js';
import { getWebhook } from '../../api/endpoints.js';
import { Command, Option } from '@commander-js/extra-typings';
import { action } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { allWebhooks, deliveryKey } from '../../api/log.js';
import { renderTable, type Column, type SharedLayout } from '../../render/table.js';
import { counted, shellWord } from '../../render/text.js';
import { checkEventTypes } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode, NO_PROMPT, usageError } from '../../cli/errors.js';
import { checkWindow, logAcross, windowAt } from './shared/across.js';
import { printJson, tableLayout } from '../../cli/output.js';
import { collect, oneOf, resourceId, timeBound, type TimeBound } from '../../cli/parse.js';
import { ResendReport, concurrencyOption, resendAll, type ResendTarget, verboseOption } from './shared/resend.js';
import { attemptCode } from './shared/view.js';
import { attemptWords } from './shared/fate.js';
import { CODE_WIDTH, DELIVERY_ID_WIDTH, EVENT_MIN, EVENT_WIDTH, STATUS_WIDTH, WEBHOOK_ID_WIDTH } from '../../cli/columns.js';
import { numberText } from '../../exact-json.js';
import type { DeliveryStatus } from '../../protocol/status.js';
import { laidOut } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('recover')
    .description('after an outage: re-send every failed delivery (of all webhooks, or those named), each once')
    .addOption(new Option('--webhook <id>', 'only this webhook (repeatable)').argParser(collect(resourceId('webhook'))).default([] as string[], 'all'))
    .addOption(new Option('--since <when>', 'only deliveries tried since then: 2h, 30m, 3d, or an ISO 8601 time (default: the whole log)').argParser(timeBound))
    .addOption(new Option('--until <when>', 'only deliveries tried until then (same forms)').argParser(timeBound))
    .addOption(new Option('--event <type>', 'only this event type (repeatable)').argParser(collect((v) => v)).default([] as string[], 'all'))
    .addOption(
      new Option('--status <status>', 'which deliveries: failed (also those with a retry due), or pending (under way for too long)')
        .argParser(oneOf(['failed', 'pending']))
        .default('failed' as const),
    )
    .option('--dry-run', 'list what would be re-sent, and send nothing')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(concurrencyOption())
    .addOption(verboseOption())
    .addHelpText(
      'after',
      examples(
        'whsvc deliveries recover --since 2h --dry-run',
        'whsvc deliveries recover --since 2h --yes',
        'whsvc deliveries recover --webhook wh_… --event invoice.paid --since 2026-11-23T08:00:00Z --yes --json',
      ),
    )
    .action(
      action(async (context, o) => {
        const deps = await context.deps();
        return runF(
          recoverOptions(
            {
              status: o.status,
              webhooks: [...new Set(o.webhook)],
              events: o.event,
              since: o.since,
              until: o.until,
              dryRun: Boolean(o.dryRun),
              yes: Boolean(o.yes),
              concurrency: o.concurrency,
              verbose: Boolean(o.verbose),
              stop: context.interrupts.graceful(),
              argv: [...context.argv],
            },
            deps.canPrompt,
          ),
          deps,
        );
      }),
    );

export interface RecoverOptions {
  status: Exclude<DeliveryStatus, 'delivered'>;
  webhooks: string[];
  events: string[];
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
  dryRun: boolean;
  yes: boolean;
  concurrency: number;
  /** A line on stderr for each delivery that did not get through. */
  verbose?: boolean | undefined;
  /** Fires when the user asks to stop (Ctrl-C): no new delivery is taken, those in flight finish. */
  stop?: AbortSignal | undefined;
  /** The command line as given (after `whsvc`), to say how to resume. */
  argv?: string[] | undefined;
}

/** A delivery chosen for a re-send, with what the log says of it. */
interface Candidate extends ResendTarget {
  attempt: Attempt;
}

/**
 * The deliveries to re-send, found by walking each webhook's log newest first.
 * A delivery's newest attempt is its state now: it is taken when that state is
 * the one asked for (failed, or pending) and one of its attempts was made in
 * the window. Each delivery is taken once; one delivered since (by an
 * automatic retry or someone else's) is not taken at all. Memory: one entry
 * per delivery seen in the window (its key), never the attempts themselves.
 */
export async function* selectDeliveries(
  deps: Pick<CommandDeps, 'api' | 'stderr'>,
  options: { status: DeliveryStatus; webhooks: string[]; events: string[]; since?: number | undefined; until?: number | undefined },
): AsyncGenerator<Candidate> {
  const wanted = new Set(options.events);
  const named = options.webhooks.length > 0;
  // Those named were each read first (run): an unknown one is its 404 before anything is listed.
  const webhooks = named ? options.webhooks.map((id) => ({ id })) : allWebhooks(deps.api);
  let toldNoDeliveryId = false;
  for await (const webhook of webhooks) {
    // A delivery belongs to one webhook: what is known of deliveries is kept for one log at a time.
    // key → the newest attempt's id while it may still be taken; null once decided.
    const state = new Map<string, string | null>();
    for await (const attempt of logAcross(deps, webhook.id, named, { since: options.since })) {
      if (attempt.delivery_id === undefined && !toldNoDeliveryId) {
        toldNoDeliveryId = true;
        deps.stderr.write(
          laidOut(
            deps.stderr,
            'whsvc: the service does not say which delivery an attempt belongs to (no delivery_id): each failed attempt is taken as a delivery of its own, so one delivered since may be asked again (a 409 then counts as already delivered)\n',
          ),
        );
      }
      const key = deliveryKey(attempt);
      if (!state.has(key)) state.set(key, attempt.status === options.status && (wanted.size === 0 || wanted.has(attempt.event)) ? attempt.id : null);
      const newest = state.get(key);
      if (!newest) continue;
      const at = Date.parse(attempt.created_at);
      if (options.until !== undefined && at > options.until) continue;
      state.set(key, null);
      yield { attemptId: newest, deliveryId: key, webhookId: webhook.id, event: attempt.event, attempt };
    }
  }
}

/**
 * The flags as given, refused when a re-send could not be confirmed (no --yes nor --dry-run, and no terminal to ask
 * on), or when the window is empty: two durations, or two times, are ordered here; a duration and a time only against
 * the service's now, in the run.
 */
function recoverOptions(options: RecoverOptions, canPrompt: boolean): RecoverOptions {
  if (!options.dryRun && !options.yes && !canPrompt) {
    throw usageError(`re-sending needs confirmation: pass --yes, or see what would be re-sent with --dry-run (${NO_PROMPT})`);
  }
  checkWindow(options);
  return options;
}

/** Re-sends what `options` selects (recoverOptions has checked them), asked first on a terminal without --yes. */
export async function run(options: RecoverOptions, deps: CommandDeps): Promise<number> {
  if (options.events.length > 0) await checkEventTypes(deps, options.events, '--event');
  // Each webhook named must exist before anything is listed or sent (an unknown one is exit 5, nothing done).
  for (const id of options.webhooks) await getWebhook(deps.api, id);
  const { since, until, now } = await windowAt(deps, options);
  const select = () => selectDeliveries(deps, { status: options.status, webhooks: options.webhooks, events: options.events, since, until });

  if (options.dryRun) return dryRun(deps, select(), options.status, options.stop);

  let targets: AsyncIterable<Candidate> | Candidate[] = select();
  let total: number | undefined;
  if (!options.yes) {
    // Asking needs the count first: the list is read whole, then re-sent.
    const all: Candidate[] = [];
    for await (const candidate of targets) {
      if (options.stop?.aborted) break;
      all.push(candidate);
    }
    if (options.stop?.aborted) {
      deps.stderr.write(laidOut(deps.stderr, 'whsvc: stopped before anything was re-sent\n'));
      return ExitCode.interrupted;
    }
    if (all.length === 0) return nothingToDo(deps, options.status);
    const webhookCount = new Set(all.map((c) => c.webhookId)).size;
    const sure = await deps.prompter.confirm(
      `Re-send ${counted(all.length, `${options.status} delivery`, `${options.status} deliveries`)} of ${counted(webhookCount, 'webhook')} now?`,
      false,
    );
    if (!sure) throw new CliError('nothing re-sent', ExitCode.failure);
    total = all.length;
    targets = all;
  }

  const report = new ResendReport(deps, total, options.verbose);
  await resendAll(deps, targets, { concurrency: options.concurrency, stop: options.stop, report });
  const interrupted = options.stop?.aborted === true;
  if (report.tally.selected === 0 && !interrupted && !deps.json) return nothingToDo(deps, options.status);
  // The resume command reads the same window later: it ends where this run's did, now unless --until said otherwise.
  return report.finish(interrupted, options.argv && resumeCommand(options.argv, since, until ?? now));
}

function nothingToDo(deps: Pick<CommandDeps, 'stdout' | 'stderr' | 'json' | 'jsonOut'>, status: DeliveryStatus): number {
  if (deps.json)
    printJson(deps, {
      dry_run: false,
      deliveries: [],
      summary: { selected: 0, resent: 0, delivered: 0, failed: 0, pending: 0, already_delivered: 0, errors: 0 },
      interrupted: false,
    });
  else deps.stderr.write(laidOut(deps.stderr, `No ${status} deliveries to re-send.\n`));
  return ExitCode.ok;
}

/** A delivery --dry-run would re-send, as --json writes it. */
const dryRunRow = (c: Candidate) => ({
  delivery_id: c.deliveryId,
  attempt_id: c.attemptId,
  webhook_id: c.webhookId ?? null,
  event: c.attempt.event,
  status: c.attempt.status,
  response_code: c.attempt.response_code,
  attempts: c.attempt.attempts ?? null,
  created_at: c.attempt.created_at,
});

/** --dry-run --json: one document, its rows written as they are found, then a summary. */
async function dryRunAsJson(deps: CommandDeps, candidates: AsyncIterable<Candidate>, stop: AbortSignal | undefined): Promise<number> {
  const webhooks = new Set<string | undefined>();
  const document = deps.jsonOut.stream('deliveries', { dry_run: true });
  const summary = () => ({ summary: { selected: document.count, webhooks: webhooks.size }, interrupted: stop?.aborted === true });
  try {
    for await (const candidate of candidates) {
      if (stop?.aborted) break;
      document.item(dryRunRow(candidate));
      webhooks.add(candidate.webhookId);
    }
  } catch (error) {
    if (document.started) document.end({ ...summary(), error: (error as Error).message });
    throw error;
  }
  document.end(summary());
  return stop?.aborted && !deps.interrupts.stdoutWasClosed ? ExitCode.interrupted : ExitCode.ok;
}

/** --dry-run: what would be re-sent, as it is found, and how many; nothing is sent. */
async function dryRun(deps: CommandDeps, candidates: AsyncIterable<Candidate>, status: DeliveryStatus, stop: AbortSignal | undefined): Promise<number> {
  if (deps.json) return dryRunAsJson(deps, candidates, stop);
  let count = 0;
  const webhooks = new Set<string | undefined>();
  // Printed a page of rows at a time, the pages sharing the first one's column widths.
  const layout = tableLayout(deps.stdout);
  const shared: SharedLayout = {};
  let rows: Candidate[] = [];
  const now = deps.serviceNow();
  // By width, the rows never changing it (the pages share the first one's): the time takes its compact form; the attempt
  // is left out; the event type is cut between its words; the status (the one asked for, with what follows it: a retry
  // due, or no more retries), the code, the time and the webhook are left out, in this order.
  const columns: Column[] = [
    { title: 'DELIVERY', kind: 'id', width: DELIVERY_ID_WIDTH },
    { title: 'WEBHOOK', kind: 'id', width: WEBHOOK_ID_WIDTH, drop: 6 },
    { title: 'EVENT', kind: 'words', width: EVENT_WIDTH, min: EVENT_MIN, give: 2 },
    { title: 'STATUS', width: STATUS_WIDTH, drop: 3 },
    { title: 'CODE', width: CODE_WIDTH, drop: 4 },
    { title: 'ATTEMPT', width: 7, drop: 1 },
    { title: 'LAST ATTEMPT', kind: 'time', now, give: 0, drop: 5 },
  ];
  const flush = async () => {
    if (rows.length === 0) return;
    // Each is its delivery's newest attempt (selectDeliveries): its status says the delivery's fate.
    const status = (c: Candidate) => (layout.plain ? c.attempt.status : attemptWords(c.attempt, c.attempt.delivery_id !== undefined));
    const cells = rows.map((c) => [
      c.deliveryId,
      c.webhookId ?? '',
      c.attempt.event,
      status(c),
      attemptCode(c.attempt),
      numberText(c.attempt.attempts) ?? '',
      c.attempt.created_at,
    ]);
    deps.stdout.write(await renderTable(layout.plain ? [] : columns, cells, deps.colors, { ...layout, withHead: shared.layout === undefined, shared }));
    rows = [];
  };
  for await (const candidate of candidates) {
    if (stop?.aborted) break;
    rows.push(candidate);
    count += 1;
    webhooks.add(candidate.webhookId);
    if (rows.length === 50) await flush();
  }
  await flush();
  // A reader that has what it wanted (`| head`): as with any list, a quiet end.
  if (deps.interrupts.stdoutWasClosed) return ExitCode.ok;
  if (stop?.aborted) {
    deps.stderr.write(laidOut(deps.stderr, `whsvc: stopped: ${count} found so far\n`));
    return ExitCode.interrupted;
  }
  if (count === 0) deps.stderr.write(laidOut(deps.stderr, `No ${status} deliveries to re-send.\n`));
  else
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `Would re-send ${counted(count, 'delivery')} of ${counted(webhooks.size, 'webhook')} (dry run: nothing sent). Without --dry-run, add --yes to skip the question.\n`,
      ),
    );
  return ExitCode.ok;
}

/**
 * The command line that runs this selection again, without a question: how
 * to resume after a stop. A window given as a duration back from now is
 * written as the times it meant, and a window with no end ends where the
 * stopped run began (`until`), so that resuming later reads the same window.
 */
export function resumeCommand(argv: string[], since?: number, until?: number): string {
  const words: string[] = [];
  let untilWritten = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--dry-run') continue;
    const [flag, inline] = word.includes('=') ? [word.slice(0, word.indexOf('=')), true] : [word, false];
    const at = flag === '--since' ? since : flag === '--until' ? until : undefined;
    if (at !== undefined) {
      words.push(flag, new Date(at).toISOString());
      untilWritten ||= flag === '--until';
      if (!inline) i += 1;
      continue;
    }
    words.push(word);
  }
  if (until !== undefined && !untilWritten) words.push('--until', new Date(until).toISOString());
  if (!words.includes('--yes') && !words.includes('-y')) words.push('--yes');
  return ['whsvc', ...words.map(shellWord)].join(' ');
}
