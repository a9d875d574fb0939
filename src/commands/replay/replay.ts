import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { pMapIterable } from 'p-map';
import { defaultTransport, type Transport } from '../../api/transport.js';
import { action, addVerbs } from '../../cli/actions.js';
import { requestTimeoutGivenMs } from '../../cli/parse.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode, usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { forwardUrl, shownUrl } from '../../receiver/routes.js';
import { boundAt, collect, integerIn, timeBound, type TimeBound } from '../../cli/parse.js';
import { requiredSecret } from '../../receiver/secrets.js';
import { STDIN } from '../../cli/stdin.js';
import { colorsFor, type Colors } from '../../render/colors.js';
import { DELIVERY_REF_SHORT, deliveryRef, deliveryRefWidth, StreamLayout } from '../../render/line.js';
import { ProgressLine } from '../../render/progress.js';
import { counted, countText, sanitize } from '../../render/text.js';
import { clockTime, noAnswer, elapsed } from '../../render/words.js';
import { DELIVERY_ID_WIDTH, EVENT_MIN, EVENT_WIDTH } from '../../cli/columns.js';
import { serviceTimeOf, withSignature } from '../../protocol/headers.js';
import { recordedBody, recordedSignatureCheck, type RecordLine } from '../../protocol/record-line.js';
import { sign } from '../../protocol/signature.js';
import { isDelivered } from '../../protocol/status.js';
import { type CheckedRecords, checkRecordFile, type ReadLimits } from './record-reader.js';
import { sendAsReceived, sendOnUrl, type SendResult } from '../../receiver/send-on.js';
import { numberText } from '../../exact-json.js';
import { laidOut } from '../../render/wrap.js';

/** Defines `replay`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

export const command = (runF = run) =>
  new Command('replay')
    .description('send recorded deliveries to an app again, the same bytes and headers: exit 0 when every one got a 2xx (a regression test of a receiver)')
    .argument('<file>', 'a record file, as `whsvc listen --record FILE` writes it (- reads the records from stdin)')
    .requiredOption('--to <url>', 'where to send them (without a path: the path each was received at)')
    .option('--secret-file <path>', "sign each body again with the secret in this file (the app's own test secret; - reads stdin)")
    .addOption(new Option('--event <type>', 'only this event type (repeatable)').argParser(collect((value: string) => value)))
    .addOption(new Option('--delivery <id>', 'only this delivery (repeatable)').argParser(collect((value: string) => value)))
    .addOption(new Option('--since <time>', 'only deliveries recorded since then: 2h, 3d, or an ISO 8601 time').argParser(timeBound))
    .addOption(new Option('--until <time>', 'only deliveries recorded until then (same forms)').argParser(timeBound))
    .addOption(new Option('--concurrency <n>', 'replays in flight at once, 1 to 32; 1 keeps the order recorded').default(1).argParser(integerIn(1, 32)))
    .option('--dry-run', 'list what would be sent, and send nothing')
    .addHelpText(
      'after',
      examples(
        'whsvc replay deliveries.ndjson --to http://localhost:3000/webhooks',
        'whsvc replay deliveries.ndjson --to http://localhost:3000/webhooks --secret-file ./test-secret.txt   # in CI',
        'whsvc replay deliveries.ndjson --to http://localhost:3000 --event invoice.paid --dry-run',
      ),
    )
    .action(
      action(async ({ io, globals, interrupts }, file, o) =>
        runF(
          {
            file,
            to: o.to,
            secretFile: o.secretFile,
            events: o.event,
            deliveries: o.delivery,
            since: o.since,
            until: o.until,
            concurrency: o.concurrency,
            dryRun: Boolean(o.dryRun),
            timeoutMs: requestTimeoutGivenMs(globals, io.env),
            json: globals.json,
            color: globals.color,
          },
          { ...io, transport: defaultTransport(io.env), stop: interrupts.graceful(), stdoutWasClosed: () => interrupts.stdoutWasClosed },
        ),
      ),
    );

export interface ReplayOptions {
  file: string;
  to: string;
  secretFile?: string | undefined;
  events?: string[] | undefined;
  deliveries?: string[] | undefined;
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
  concurrency: number;
  dryRun: boolean;
  /** Each send's limit (--request-timeout); the service's 10 s when not given. */
  timeoutMs?: number | undefined;
  json: boolean;
  color: boolean;
}

export interface ReplayDeps extends Io {
  transport: Transport;
  /** Fires on Ctrl-C: no replay is started after it; those in flight finish. */
  stop?: AbortSignal | undefined;
  /** Whether the reader of stdout went away (Interrupts.stdoutWasClosed). */
  stdoutWasClosed?: () => boolean;
  now?: () => number;
  readLimits?: ReadLimits;
}

/** A replay's outcome: the app's answer and how long it took, or why there was none. */
interface Replayed {
  record: RecordLine;
  result: SendResult;
  ms: number;
}

export async function run(options: ReplayOptions, deps: ReplayDeps): Promise<number> {
  const now = deps.now ?? Date.now;
  const target = forwardUrl(options.to, '--to');
  if (options.file === STDIN && options.secretFile === STDIN) {
    throw usageError('replay - and --secret-file - both read stdin, which can be read once: give one of them a file');
  }
  const secret = options.secretFile === undefined ? undefined : await requiredSecret({ secretFile: options.secretFile }, deps);
  const records = await checkRecordFile(options.file, chooser(options, now()), deps.readLimits, deps.stdin);
  try {
    return await replayChecked(records, target, secret, options, deps);
  } finally {
    await records.close();
  }
}

async function replayChecked(records: CheckedRecords, target: URL, secret: string | undefined, options: ReplayOptions, deps: ReplayDeps): Promise<number> {
  const now = deps.now ?? Date.now;
  const colors = await colorsFor(deps.stdout, deps.env, !options.color);
  const layout = replayLayout(deps);
  if (records.count === 0) {
    // A regression test that tests nothing must not pass: an empty file, or a filter with a typo, fails it.
    deps.stderr.write(laidOut(deps.stderr, `whsvc: no delivery of ${records.name} matches: nothing sent\n`));
    return ExitCode.failure;
  }
  if (options.dryRun) {
    for await (const record of records.chosen()) {
      const url = shownUrl(sendOnUrl(target, record.path));
      if (options.json) deps.jsonOut.line({ would_send: { ...describe(record), url } });
      else deps.stdout.write(`${line(record, colors, layout, now())}\n`);
    }
    if (options.json) deps.jsonOut.line({ summary: { would_send: records.count, to: shownUrl(target) } });
    deps.stderr.write(
      laidOut(deps.stderr, `whsvc: ${counted(records.count, 'delivery', 'deliveries')} of ${records.name} would be sent to ${shownUrl(target)}\n`),
    );
    return ExitCode.ok;
  }
  // Progress only where a person watches both streams: data lines go to stdout, the progress line to stderr.
  const progress = deps.stderr.isTTY && deps.stdout.isTTY && records.count > 20 ? new ProgressLine(deps.stderr) : undefined;
  const tally = { sent: 0, ok: 0, other_status: 0, no_answer: 0 };
  let refusedSignature = 0;
  const show = (replayed: Replayed) => {
    tally.sent += 1;
    if (replayed.result.status === 401 || replayed.result.status === 403) refusedSignature += 1;
    if (isDelivered(replayed.result.status)) tally.ok += 1;
    else if (replayed.result.status === null) tally.no_answer += 1;
    else tally.other_status += 1;
    progress?.clear();
    if (options.json) {
      const url = shownUrl(sendOnUrl(target, replayed.record.path));
      deps.jsonOut.line({
        replayed: { ...describe(replayed.record), url, status: replayed.result.status, error: replayed.result.error ?? null, ms: replayed.ms },
      });
    } else deps.stdout.write(`${line(replayed.record, colors, layout, now(), replayed)}\n`);
    progress?.update(`replayed ${countText(tally.sent)} of ${countText(records.count)}: ${countText(tally.ok)} answered 2xx`, true);
  };
  try {
    const replays = pMapIterable(
      untilStopped(records.chosen(), deps.stop),
      async (record) => {
        if (deps.stop?.aborted) return;
        const body = recordedBody(record);
        const headers = secret === undefined ? record.headers : withSignature(record.headers, sign(secret, body));
        const started = now();
        const result = await sendAsReceived(deps.transport, target, headers, body, record.path, options.timeoutMs);
        show({ record, result, ms: now() - started });
      },
      { concurrency: options.concurrency, preserveOrder: false },
    );
    for await (const _ of replays);
  } finally {
    progress?.clear();
  }
  const summary = `${counted(tally.sent, 'delivery', 'deliveries')} replayed to ${shownUrl(target)}: ${tally.ok} answered 2xx, ${tally.other_status} answered otherwise, ${tally.no_answer} got no answer`;
  if (options.json) deps.jsonOut.line({ summary: { ...tally, to: shownUrl(target), interrupted: deps.stop?.aborted === true } });
  // A reader of stdout that went away (`| head`) has what it asked for: exit 0, nothing more said, as every command does.
  if (deps.stdoutWasClosed?.()) return ExitCode.ok;
  deps.stderr.write(laidOut(deps.stderr, `whsvc: ${summary}${deps.stop?.aborted ? ` (interrupted: ${records.count - tally.sent} not sent)` : ''}\n`));
  if (refusedSignature > 0) deps.stderr.write(laidOut(deps.stderr, `hint: ${signatureRefusedHint(refusedSignature, options.secretFile)}\n`));
  if (deps.stop?.aborted) return ExitCode.interrupted;
  return tally.ok === tally.sent ? ExitCode.ok : ExitCode.failure;
}

/** What 401 or 403 from the app usually means in a replay: it refuses the signature, recorded or made anew. */
function signatureRefusedHint(count: number, secretFile: string | undefined): string {
  const answered = `${counted(count, 'delivery', 'deliveries')} answered 401 or 403`;
  return secretFile === undefined
    ? `${answered}: the app refuses the recorded signature, made with the secret of the webhook that sent it; sign them anew with the secret your app holds: --secret-file FILE`
    : `${answered}: the app refuses the signature made with the secret in ${secretFile}; give replay the secret your app holds`;
}

/** The records until Ctrl-C: the rest of the file is not read. */
async function* untilStopped(records: AsyncIterable<RecordLine>, stop: AbortSignal | undefined): AsyncGenerator<RecordLine> {
  for await (const record of records) {
    if (stop?.aborted) return;
    yield record;
  }
}

/** Whether --event, --delivery, --since and --until choose a record. */
function chooser(options: ReplayOptions, now: number): (record: RecordLine) => boolean {
  const since = options.since && boundAt(options.since, now);
  const until = options.until && boundAt(options.until, now);
  if (since !== undefined && until !== undefined && since > until) throw usageError('--since is after --until: no delivery can match');
  return (record) => {
    const at = Date.parse(record.received_at);
    if (since !== undefined && at < since) return false;
    if (until !== undefined && at > until) return false;
    if (options.events?.length && !options.events.includes(record.event ?? '')) return false;
    if (options.deliveries?.length && !options.deliveries.includes(record.delivery_id ?? '')) return false;
    return true;
  };
}

function describe(record: RecordLine) {
  return {
    received_at: record.received_at,
    event: record.event,
    delivery_id: record.delivery_id,
    attempt: record.attempt,
    recorded_path: record.path,
    signature_check: recordedSignatureCheck(record),
  };
}

type ReplayKey = 'time' | 'event' | 'delivery' | 'answer';

/**
 * The fields of replay's lines, decided once from the terminal's width: the delivery id takes its short form, then the
 * event type is cut between its words, then goes; the time and the answer stay.
 */
function replayLayout(deps: Pick<Io, 'stdout'>): StreamLayout<ReplayKey> {
  return new StreamLayout<ReplayKey>(
    [
      { key: 'time', width: 19 },
      { key: 'event', width: EVENT_WIDTH, min: EVENT_MIN, give: 2, drop: 3, cut: 'words' },
      { key: 'delivery', width: deliveryRefWidth(DELIVERY_ID_WIDTH), min: DELIVERY_REF_SHORT, give: 1, cut: 'id' },
      { key: 'answer', width: 14 },
    ],
    deps.stdout.isTTY ? deps.stdout.columns : undefined,
  );
}

/** One replay's line: the event, the delivery and its attempt, and the app's answer and time, or why there was none. */
function line(record: RecordLine, colors: Colors, layout: StreamLayout<ReplayKey>, now: number, replayed?: Replayed): string {
  const status = replayed?.result.status;
  const answer =
    replayed === undefined
      ? '(not sent: --dry-run)'
      : status === null || status === undefined
        ? { text: `-> ${noAnswer(replayed.result.error)}`, styled: colors.red(`-> ${noAnswer(replayed.result.error)}`) }
        : {
            text: `-> ${status}  ${elapsed(replayed.ms)}`,
            styled: `-> ${isDelivered(status) ? colors.green(String(status)) : colors.red(String(status))}  ${elapsed(replayed.ms)}`,
          };
  return layout.line({
    // The service's time of the delivery, as listen showed it (the date too, when not today).
    time: clockTime(serviceTimeOf(record.headers, record.received_at), now),
    event: sanitize(record.event ?? '(no event)'),
    delivery: deliveryRef(layout, 'delivery', sanitize(record.delivery_id ?? '-'), numberText(record.attempt)),
    answer,
  });
}
