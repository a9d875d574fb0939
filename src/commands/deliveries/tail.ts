import type { Attempt } from '../../api/shapes.js';
import { askServiceNow, getWebhook } from '../../api/endpoints.js';
import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { action } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { ApiError, NetworkError } from '../../api/errors.js';
import { defaultTransport, type Transport } from '../../api/transport.js';
import { checkEventTypes } from '../../cli/catalog.js';
import { type CommandDeps, sameAddress } from '../../cli/context.js';
import { ExitCode, usageError } from '../../cli/errors.js';
import { checkRoutes, describeRoutes, forwardRoute, type ForwardRoute } from '../../receiver/routes.js';
import {
  boundAt,
  collect,
  duration,
  inSeconds,
  integerIn,
  oneOf,
  requestTimeoutGivenMs,
  resourceId,
  platformNameOption,
  timeBound,
  type TimeBound,
} from '../../cli/parse.js';
import { durationText, relativeTime, elapsed } from '../../render/words.js';
import { secretSource, type SecretSource } from '../../receiver/secrets.js';
import { counted, countText, sanitize } from '../../render/text.js';
import type { Colors } from '../../render/colors.js';
import { laidOut } from '../../render/wrap.js';
import { CheckpointWriter, checkWritable, holdCheckpoint, readCheckpoint, recordedSinceSave, type Checkpoint } from './tail/checkpoint.js';
import { maxSilenceOption, SilenceWatch } from '../../cli/silence.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../protocol/status.js';
import { RecordFile } from '../../receiver/record-file.js';
import { Follower, type Change, type PollReport, type StartAt } from './tail/follow.js';
import { TailPrinter } from './tail/printer.js';
import { ForwardQueue } from './tail/queue.js';
import { checkInteractive, interactiveOption } from '../../cli/interactive.js';
import { TailScreen } from './tail/screen.js';

export const command = (runF = run) =>
  new Command('tail')
    .description('follow the delivery log live: each new attempt and each change of status, once; --forward-to relays new deliveries to a local app')
    .addOption(
      new Option('--webhook <id>', 'only this webhook (repeatable; default every webhook, new ones included)').argParser(collect(resourceId('webhook'))),
    )
    .addOption(new Option('--status <status>', 'only lines of attempts now delivered, failed or pending').argParser(oneOf(DELIVERY_STATUSES)))
    .addOption(new Option('--event <type>', 'only this event type (repeatable)').argParser(collect((value: string) => value)))
    .addOption(new Option('--interval <duration>', 'time between polls (200ms to 5m; default 2s)').argParser(interval))
    .addOption(
      new Option('--timeout <duration>', 'stop after this long (30s, 5m; a bare number is seconds): exit 0, or 6 when --count was not reached').argParser(
        inSeconds(duration(86_400_000, 1000)),
      ),
    )
    .addOption(new Option('--count <n>', 'stop after N lines (exit 0), e.g. --status delivered --count 3 in CI').argParser(integerIn(1, 1_000_000)))
    .addOption(maxSilenceOption('no poll of the log answered'))
    .addOption(new Option('--since <time>', 'start from this time (2h, or ISO 8601) instead of now, when there is no checkpoint').argParser(timeBound))
    .addOption(
      new Option(
        '--forward-to <[pattern=]url>',
        'send each new delivery (once, not its retries) to this URL, as the service sent it; repeatable: invoice.*=URL routes by event type, the first route that matches wins, a bare URL (last) takes the rest',
      ).argParser(collect(forwardRoute)),
    )
    .option(
      '--secret-file <path>',
      "with --forward-to and one --webhook: check that the rebuilt body carries the stored signature, with the webhook's signing secret in this file (- reads stdin)",
    )
    .addOption(platformNameOption("the service's platform name (sandbox start --platform-name): the headers forwarded and recorded are X-<name>-…"))
    .option(
      '--record <file>',
      'append each new delivery (once, not its retries), as the service sent it, to FILE: the format of listen --record, for whsvc replay',
    )
    .option('--checkpoint <file>', 'keep the position in FILE: a restart catches up on what it missed, and forwards none twice')
    .addOption(interactiveOption('retry it through the service (R), send it again to your app (r)'))
    .addHelpText(
      'after',
      examples(
        'whsvc deliveries tail',
        'whsvc deliveries tail --webhook wh_… --status failed',
        'whsvc deliveries tail --json | jq -c \'select(.change == "status")\'',
        'whsvc deliveries tail --webhook wh_… --forward-to http://localhost:3000/webhooks --secret-file whsec.txt --checkpoint tail.json',
        "whsvc deliveries tail --forward-to 'invoice.*=http://localhost:3001' --forward-to http://localhost:3000",
        'whsvc deliveries tail --status delivered --count 3 --timeout 60 --json   # in CI',
        'whsvc deliveries tail --since 1h -i',
      ),
    )
    // Ctrl-C (and SIGTERM) is how a tail ends, exit 0, after the forward under way and the checkpoint are done.
    .action(
      action(async (context, o) => {
        const stopSignal = context.interrupts.stopRequested();
        const deps = await context.deps();
        const code = await runF(
          tailOptions({
            webhookIds: o.webhook,
            status: o.status,
            events: o.event,
            intervalMs: o.interval ?? DEFAULT_INTERVAL_MS,
            timeout: o.timeout,
            maxSilenceMs: o.maxSilence,
            count: o.count,
            since: o.since,
            forwardTo: o.forwardTo,
            secretFile: o.secretFile,
            platformName: o.platformName,
            checkpoint: o.checkpoint,
            record: o.record,
            interactive: Boolean(o.interactive),
            forwardTimeoutMs: requestTimeoutGivenMs(context.globals, context.io.env),
          }),
          { ...deps, stopSignal },
        );
        // A poll abandoned on Ctrl-C may still wait on the service (a Retry-After, say): nothing is left to do.
        return context.exit(code);
      }),
    );

/** --interval: a duration from 200 ms to 5 minutes. */
function interval(value: string): number {
  const ms = duration(300_000)(value);
  if (ms < 200) throw new InvalidArgumentError('must be at least 200ms.');
  return ms;
}

export interface TailOptions {
  /** Only these webhooks; else every webhook, new ones included. */
  webhookIds?: string[] | undefined;
  status?: DeliveryStatus | undefined;
  events?: string[] | undefined;
  intervalMs: number;
  /** Stop after this many seconds. */
  timeout?: number | undefined;
  /** Exit 6 once this long passes with no poll answered (--max-silence). */
  maxSilenceMs?: number | undefined;
  /** Stop after this many lines (attempts and status changes shown). */
  count?: number | undefined;
  since?: TimeBound | undefined;
  /** Where new deliveries are forwarded, by event type (--forward-to [PATTERN=]URL). */
  forwardTo?: ForwardRoute[] | undefined;
  secretFile?: string | undefined;
  platformName: string;
  /** Each forward's limit (--request-timeout); the service's 10 s when not given. */
  forwardTimeoutMs?: number | undefined;
  checkpoint?: string | undefined;
  /** Append each new delivery to this record file (`whsvc replay` sends them again). */
  record?: string | undefined;
  /** -i: the attempts on a full screen (src/screen/), not as lines. */
  interactive?: boolean | undefined;
}

export interface TailDeps extends CommandDeps {
  /** Resolves when the user asks to stop (Ctrl-C, SIGTERM). */
  stopSignal: Promise<unknown>;
  /** The wait between polls; tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** How --forward-to sends (undici, as every request of whsvc). */
  transport?: Transport;
  /** What shows each change and forward in place of the printer's lines: the screen of -i. */
  printer?: Printer;
}

type Printer = Pick<TailPrinter, 'note' | 'change' | 'forward'>;

export const DEFAULT_INTERVAL_MS = 2_000;
/** The longest wait between polls while the service cannot be reached (doubling from the interval). */
export const MAX_BACKOFF_MS = 60_000;

/** A failure worth waiting out: the service busy or unreachable. Anything else (auth, permission, a bug) ends the tail. */
const passing = (error: unknown) =>
  error instanceof NetworkError || (error instanceof ApiError && (error.status === 429 || error.status === 408 || error.status >= 500));

/** The flags as given, refused when they cannot work together; a webhook named twice is followed once. */
function tailOptions(given: TailOptions): TailOptions {
  const options: TailOptions = { ...given, webhookIds: given.webhookIds && [...new Set(given.webhookIds)] };
  // Polls come once an interval: a limit no longer than that would stop a tail that hears the service fine.
  if (options.maxSilenceMs !== undefined && options.maxSilenceMs < 2 * options.intervalMs) {
    throw usageError(
      `--max-silence ${durationText(options.maxSilenceMs)} is shorter than two polls (--interval ${durationText(options.intervalMs)}): a tail that hears the service would stop`,
      `give several intervals, such as --max-silence ${durationText(Math.max(60_000, 10 * options.intervalMs))}`,
    );
  }
  checkRoutes(options.forwardTo ?? []);
  if (options.secretFile !== undefined && !options.forwardTo?.length && options.record === undefined) {
    throw usageError('--secret-file checks the deliveries tail forwards or records: it needs --forward-to URL or --record FILE');
  }
  if (options.secretFile !== undefined && options.webhookIds?.length !== 1) {
    throw usageError("--secret-file holds one webhook's signing secret: follow that one webhook with --webhook ID");
  }
  if (options.checkpoint?.trim() === '') throw usageError('--checkpoint is empty: give the path of the file to keep the position in');
  return options;
}

/** What the run checks of the files it was given (tailOptions checked the flags), and the secret it reads. */
async function checkFiles(options: TailOptions, deps: TailDeps): Promise<{ routes: ForwardRoute[]; secret?: SecretSource }> {
  if (options.checkpoint !== undefined) checkWritable(options.checkpoint);
  // Last: --secret-file - reads stdin, once the flags are known to be good.
  const secret = options.secretFile === undefined ? undefined : await secretSource({ secretFile: options.secretFile }, deps);
  if (secret?.current() === undefined && options.secretFile !== undefined) throw usageError(`--secret-file ${options.secretFile} cannot be read, or is empty`);
  return { routes: options.forwardTo ?? [], secret };
}

/** Follows the log as `options` say (tailOptions has checked them), until a stop, a count or a time out. */
export async function run(options: TailOptions, deps: TailDeps): Promise<number> {
  if (options.interactive) checkInteractive(deps.json, deps);
  const checked = await checkFiles(options, deps);
  const release = options.checkpoint === undefined ? undefined : holdCheckpoint(options.checkpoint);
  // -i: the screen, in the printer's place; leaving it stops the tail as Ctrl-C does.
  const screen = options.interactive ? new TailScreen(deps, options, checked.secret) : undefined;
  try {
    if (!screen) return await follow(options, deps, checked);
    await screen.start(deps.colors);
    const stopSignal = Promise.race([deps.stopSignal, screen.left]);
    return screen.exitCode(await follow(options, { ...deps, stderr: screen.stderr, stopSignal, printer: screen }, checked));
  } finally {
    screen?.stop();
    release?.();
  }
}

async function follow(options: TailOptions, deps: TailDeps, { routes, secret }: Awaited<ReturnType<typeof checkFiles>>): Promise<number> {
  const events = options.events?.length ? await checkEventTypes(deps, options.events, '--event') : undefined;
  const err = deps.errColors;
  const note = (text: string) => deps.stderr.write(laidOut(deps.stderr, `whsvc: ${text}\n`));
  const { checkpoint, follower, printer, recorder, queue, writer, save } = await prepare(options, deps, routes, secret, note);
  const wants = (attempt: Attempt) => events === undefined || events.includes(attempt.event);

  // --- the loop ---------------------------------------------------------------------------------
  const stop = stopConditions(deps.stopSignal, options.timeout, options.maxSilenceMs);
  const { ended, interrupted } = stop;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const matches = (change: Change) => (options.status === undefined || change.attempt.status === options.status) && wants(change.attempt);

  let printed = 0;
  let polls = 0;
  const pace = new PollPace(options.intervalMs, deps.now(), (text) => note(text));
  try {
    while (!ended()) {
      const pollStart = deps.now();
      if (polls > 0) pace.noteLongPause(pollStart);
      let report: PollReport;
      try {
        const polling = follower.poll();
        // Abandoned when the user stops: its end, whatever it is, no longer matters.
        polling.catch(() => undefined);
        const outcome = await Promise.race([polling, interrupted.then(() => undefined)]);
        if (outcome === undefined) break;
        report = outcome;
      } catch (error) {
        // Before the first poll went through, nothing is followed yet: a failure then is the command's.
        if (polls === 0 || !passing(error)) throw error;
        await Promise.race([sleep(pace.failed((error as Error).message, err.yellow('cannot poll the delivery log'))), interrupted]);
        continue;
      }
      // Polls until stopped, in one process; the code they need is loaded once the first went through.
      pace.answered(pollStart);
      stop.heard();
      for (const id of report.gone) {
        writer?.drop(id);
        note(`${sanitize(id)} is gone (deleted): no longer followed`);
      }
      if (options.webhookIds && follower.webhookIds.length === 0) {
        save();
        note('none of the webhooks named with --webhook is left to follow');
        return ExitCode.failure;
      }
      if (polls > 0) noteNewWebhooksAndLag(report, note);
      printed = takeChanges(report.changes, printed, { count: options.count, printer, queue, matches, wants });
      if (polls === 0) note(followingLine(options, follower.webhookIds.length, report, checkpoint !== undefined, routes));
      polls += 1;
      if (queue) await drainQueue(queue, () => stop.stopRequested, save, note, err);
      save();
      if (options.count !== undefined && printed >= options.count) return ExitCode.ok;
      if (ended()) break;
      await Promise.race([sleep(options.intervalMs), interrupted]);
    }
  } finally {
    stop.clear();
    recorder?.close();
  }
  if (queue && queue.size > 0)
    note(
      `${counted(queue.size, 'delivery')} ${queue.size === 1 ? 'was' : 'were'} not forwarded yet${options.checkpoint ? ': the checkpoint keeps them for the next run' : ''}`,
    );
  if (stop.silent) {
    note(`no poll of the delivery log answered for ${elapsed(options.maxSilenceMs!)} (--max-silence): stopping, exit 6`);
    return ExitCode.timedOut;
  }
  if (stop.timedOut && options.count !== undefined) {
    note(`${countText(printed)} of ${counted(options.count, 'line')} within ${elapsed((options.timeout ?? 0) * 1000)}`);
    return ExitCode.timedOut;
  }
  return ExitCode.ok;
}

/**
 * Prints the changes one poll brought that --status and --event let through,
 * up to --count lines in all, and queues each new delivery to forward; returns
 * the count of lines printed so far.
 */
function takeChanges(
  changes: Change[],
  printed: number,
  {
    count,
    printer,
    queue,
    matches,
    wants,
  }: {
    count: number | undefined;
    printer: Printer;
    queue: ForwardQueue | undefined;
    matches: (change: Change) => boolean;
    wants: (attempt: Attempt) => boolean;
  },
): number {
  printer.note(changes);
  for (const change of changes) {
    // --count N: N lines, even when one poll brings more; what comes after them is still forwarded (and checkpointed).
    if (matches(change) && (count === undefined || printed < count)) {
      printer.change(change);
      printed += 1;
    }
    // Forwarded: each delivery once, the first attempt of it seen; retries of it are not.
    if (queue && change.kind === 'new' && wants(change.attempt)) queue.offer(change);
  }
  return printed;
}

/** Forwards what is queued; the service busy or out of reach while a delivery was retrieved leaves the rest for the next poll. */
async function drainQueue(queue: ForwardQueue, stopRequested: () => boolean, save: () => void, note: (text: string) => void, err: Colors): Promise<void> {
  try {
    await queue.drain(stopRequested, save);
  } catch (error) {
    if (!passing(error)) throw error;
    note(`${err.yellow('cannot retrieve the next delivery to forward')}: ${(error as Error).message}; trying again at the next poll`);
  }
}

/**
 * The follower of the log, each webhook starting where the checkpoint left it
 * (one created since it was saved: from its start), else at --since or now.
 * Each webhook named must exist (exit 5 otherwise), before anything is followed.
 */
async function startFollower(options: TailOptions, deps: TailDeps, checkpoint: Checkpoint | undefined, note: (text: string) => void): Promise<Follower> {
  const named = new Map<string, string | undefined>();
  for (const id of options.webhookIds ?? []) {
    const webhook = await getWebhook(deps.api, id);
    named.set(id, webhook.created_at);
  }

  // --since 2h is counted back from the service's now, as the times in its log are.
  const since = options.since && boundAt(options.since, 'ago' in options.since ? await askServiceNow(deps.api) : 0);
  const initialStart: StartAt = since !== undefined ? { kind: 'since', at: since } : { kind: 'now' };
  const fromCheckpoint = (webhook: { id: string; created_at?: string | undefined }): StartAt | undefined => {
    if (!checkpoint) return undefined;
    const entry = checkpoint.webhooks[webhook.id];
    if (entry) {
      if (entry.after) return { kind: 'after', id: entry.after.id, createdAt: entry.after.created_at };
      return entry.since ? { kind: 'since', at: Date.parse(entry.since) } : { kind: 'all' };
    }
    // Not in the checkpoint: created since it was saved (its whole log is new), or not followed then.
    const created = webhook.created_at ?? named.get(webhook.id);
    if (created !== undefined && Date.parse(created) >= Date.parse(checkpoint.saved_at)) return { kind: 'all' };
    note(`${sanitize(webhook.id)} is not in the checkpoint: following it from ${options.since ? 'the --since time' : 'now'}`);
    return undefined;
  };
  return new Follower(deps.api, { webhookIds: options.webhookIds, initialStart, startFor: fromCheckpoint });
}

/** What the first poll says: what is followed, from when, how often, and where deliveries are forwarded. */
function followingLine(options: TailOptions, followed: number, report: PollReport, fromCheckpoint: boolean, routes: ForwardRoute[]): string {
  const which = options.webhookIds ? counted(options.webhookIds.length, 'webhook') : `every webhook (${countText(followed)} now; new ones are picked up)`;
  const caughtUp = report.changes.filter((change) => change.kind === 'new').length;
  const from = fromCheckpoint ? `from the checkpoint (${counted(caughtUp, 'attempt')} since)` : options.since ? 'from the --since time' : 'from now';
  return `following ${which} ${from}, every ${elapsed(options.intervalMs)}${routes.length ? `; forwarding each new delivery to ${describeRoutes(routes)}` : ''}${options.record ? `; recording each new delivery to ${options.record}` : ''}; ${options.interactive ? 'q' : 'Ctrl-C'} to stop`;
}

/** After the first poll: the webhooks created since, and those whose new attempts filled more than a page. */
function noteNewWebhooksAndLag(report: PollReport, note: (text: string) => void): void {
  for (const added of report.added) note(`following the new webhook ${sanitize(added.webhookId)}`);
  for (const behind of report.behind) {
    if (report.added.some((added) => added.webhookId === behind.webhookId)) continue;
    note(
      `${sanitize(behind.webhookId)}: ${behind.count} new attempts since the last poll, more than one page: falling behind, reading on (a shorter --interval helps)`,
    );
  }
}

/**
 * When a tail ends: the user asks (Ctrl-C, SIGTERM), --timeout runs out, or
 * --max-silence passes with no poll answered (heard() says one was).
 * `interrupted` resolves at any of them, so that a poll or a wait can be
 * abandoned; `clear` ends the timers.
 */
function stopConditions(stopSignal: Promise<unknown>, timeoutSeconds: number | undefined, maxSilenceMs: number | undefined) {
  const state = { stopRequested: false, timedOut: false, silent: false };
  void stopSignal.then(() => (state.stopRequested = true));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    if (timeoutSeconds === undefined) return;
    timer = setTimeout(() => {
      state.timedOut = true;
      resolve();
    }, timeoutSeconds * 1000);
  });
  const { promise: silence, resolve: silent } = Promise.withResolvers<void>();
  // Counted from the first poll answered: the first may catch up on a long --since, or a checkpoint's backlog.
  const watch = new SilenceWatch(
    maxSilenceMs,
    () => {
      state.silent = true;
      silent();
    },
    false,
  );
  return {
    get stopRequested() {
      return state.stopRequested;
    },
    get timedOut() {
      return state.timedOut;
    },
    get silent() {
      return state.silent;
    },
    heard: () => watch.heard(),
    ended: () => state.stopRequested || state.timedOut || state.silent,
    interrupted: Promise.race([stopSignal, deadline, silence]),
    clear: () => {
      clearTimeout(timer);
      watch.stop();
    },
  };
}

/**
 * The pace of polls through a bad patch: a service that does not answer is
 * waited out, the interval doubled at each failure up to MAX_BACKOFF_MS, each
 * new failure said once; its return is said, and so is a long pause between
 * two polls (the machine slept).
 */
class PollPace {
  private failures = 0;
  private lastError = '';

  constructor(
    private readonly intervalMs: number,
    private lastPoll: number,
    private readonly note: (text: string) => void,
  ) {}

  /** A poll failed with `message`: the wait before the next one. */
  failed(message: string, what: string): number {
    this.failures += 1;
    const wait = Math.min(this.intervalMs * 2 ** this.failures, Math.max(MAX_BACKOFF_MS, this.intervalMs));
    if (message !== this.lastError) {
      this.note(`${what}: ${message}; trying again in ${elapsed(wait)} (what the service logged meanwhile is caught up on once it answers)`);
    }
    this.lastError = message;
    return wait;
  }

  answered(pollStart: number): void {
    if (this.failures > 0) this.note(`the service answers again after ${elapsed(pollStart - this.lastPoll)}: catching up`);
    this.failures = 0;
    this.lastError = '';
    this.lastPoll = pollStart;
  }

  noteLongPause(pollStart: number): void {
    if (this.failures === 0 && pollStart - this.lastPoll > this.intervalMs * 3 + 30_000) {
      const gap = relativeTime(new Date(this.lastPoll).toISOString(), pollStart).replace(/ ago$/, '');
      this.note(`the last poll was ${gap} ago (the machine slept, or was too busy): catching up`);
    }
  }
}

/**
 * What a tail works with, set up before its first poll: the checkpoint it
 * resumes from (one of another service is refused), the follower of the log,
 * the printer, the queue of deliveries to forward or record, and the writer
 * of the checkpoint with the save that keeps it.
 */
async function prepare(options: TailOptions, deps: TailDeps, routes: ForwardRoute[], secret: SecretSource | undefined, note: (text: string) => void) {
  const checkpoint = options.checkpoint === undefined ? undefined : readCheckpoint(options.checkpoint);
  if (checkpoint && !sameAddress(checkpoint.base_url, deps.api.baseUrl)) {
    throw usageError(
      `the checkpoint ${options.checkpoint} follows ${sanitize(checkpoint.base_url)}, not ${deps.api.baseUrl}`,
      'give each service its own --checkpoint FILE',
    );
  }
  const follower = await startFollower(options, deps, checkpoint, note);

  if (checkpoint) {
    // Saved on the service's clock, counted from its now: asked first when nothing has told it yet (no request made).
    note(
      `catching up from the checkpoint ${options.checkpoint} (saved ${relativeTime(checkpoint.saved_at, await askServiceNow(deps.api))}, ${checkpoint.saved_at})`,
    );
  } else if (options.checkpoint !== undefined) {
    note(`no checkpoint at ${options.checkpoint} yet: starting from ${options.since ? 'the --since time' : 'now'}; the position is kept there from now on`);
  }

  const printer = deps.printer ?? new TailPrinter(deps, routes);
  const recorder = options.record === undefined ? undefined : new RecordFile(options.record, note);
  if (recorder?.repaired) note(recorder.repaired);
  // Recorded by a run killed before it saved the checkpoint: not recorded (nor forwarded) again.
  const recordedSince = recorder ? await recordedSinceSave(checkpoint, recorder.path, recorder.size()) : [];
  const queue =
    routes.length > 0 || recorder
      ? new ForwardQueue(
          deps.api,
          { routes, platform: options.platformName, secret, send: deps.transport ?? defaultTransport(deps.env), timeoutMs: options.forwardTimeoutMs },
          printer,
          note,
          [...(checkpoint?.forwarded ?? []), ...recordedSince],
          recorder,
        )
      : undefined;
  const writer =
    options.checkpoint === undefined
      ? undefined
      : new CheckpointWriter(
          options.checkpoint,
          { baseUrl: deps.api.baseUrl, forwardTo: routes.length ? describeRoutes(routes) : (checkpoint?.forward_to ?? null) },
          checkpoint,
          deps.serviceNow,
          recorder && { file: recorder.path, size: () => recorder.size() },
        );
  const save = () => writer?.save(follower.positions(), (id) => queue?.heldBack(id), queue?.forwarded ?? checkpoint?.forwarded ?? []);
  return { checkpoint, follower, printer, recorder, queue, writer, save };
}
