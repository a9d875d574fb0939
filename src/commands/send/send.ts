import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { defaultTransport, type Transport } from '../../api/transport.js';
import { type ActionContext, action, addVerbs } from '../../cli/actions.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode, usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { forwardUrl, shownUrl } from '../../receiver/routes.js';
import { collect, duration, integerIn, oneOf, once, platformNameOption, requestTimeoutGivenMs, share } from '../../cli/parse.js';
import { checkSecretFilePath } from '../../cli/secret.js';
import { requiredSecret } from '../../receiver/secrets.js';
import { readFileFlag, STDIN } from '../../cli/stdin.js';
import { colorsFor } from '../../render/colors.js';
import { type BlockValue, countText, keyValues, sanitize } from '../../render/text.js';
import { laidOut, terminalColumns } from '../../render/wrap.js';
import { EVENT_TYPES } from '../../protocol/catalog.js';
import { ANSWER_HEAD_BYTES, DELIVERY_TIMEOUT_MS, madeDelivery, type MadeDelivery } from '../../protocol/delivery.js';
import type { RecordLine } from '../../protocol/record-line.js';
import type { SignatureCheck } from '../../protocol/signature.js';
import { deliveryRecord, RecordFile } from '../../receiver/record-file.js';
import { sendAsReceived, type SendResult } from '../../receiver/send-on.js';
import { isDelivered } from '../../protocol/status.js';
import { givenBody, samplePayloadWith, setting, type Setting } from './payload.js';
import { elapsed, noAnswer } from '../../render/words.js';
import { rate, spike } from './arrivals.js';
import { DEFAULT_MAX_IN_FLIGHT, type Load, type LoadDeps, loadOf, runLoad } from './load.js';

/** Defines `send`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

const DEFAULT_EVENT = 'invoice.paid';

/** The longest load: a day. */
const LONGEST_LOAD_MS = 86_400_000;

export const command = (runF = run) =>
  new Command('send')
    .description(
      'send one delivery to any URL exactly as the service sends it (its headers, the signature over the exact bytes, a fresh delivery id, attempt 1): exit 0 when it answers 2xx. With --rate and --duration, a peak day tried: signed deliveries at an open arrival rate, and what the receiver made of them',
    )
    .argument('<url>', 'where to send it: your receiver (http or https)')
    .addOption(
      new Option(
        '--event <type>',
        `the event type: the catalog's sample payload of it is sent (default ${DEFAULT_EVENT}; with --rate, every type in turn)`,
      ).argParser(oneOf(EVENT_TYPES)),
    )
    .addOption(
      new Option(
        '--set <path=value>',
        'change the sample: amount.amount=500, amount.currency=USD (a value is JSON where it parses, else a string); repeatable',
      ).argParser(collect(setting)),
    )
    .option('--data <json|@file|->', 'the body instead of the sample, sent byte for byte: JSON, @FILE, or - for stdin')
    .addOption(
      new Option('--secret-file <path>', 'sign it with the secret in this file (- reads stdin); without it, it goes unsigned').argParser(
        once('a delivery is signed with one secret'),
      ),
    )
    .option('--record <file>', 'append it to FILE in the record format (mode 0600), for `whsvc replay`')
    .addOption(platformNameOption('the platform name of the delivery headers: X-<name>-Signature, X-<name>-Event, …'))
    .addOption(
      new Option('--rate <rate>', 'a load: deliveries a second, due by the clock whatever the receiver does: 200, 12000/m (with --duration)').argParser(rate),
    )
    .addOption(new Option('--duration <duration>', 'how long the load sends, such as 60s or 5m (at most a day)').argParser(duration(LONGEST_LOAD_MS, 1000)))
    .addOption(
      new Option(
        '--spike <rate@start+length>',
        'a while at another rate: 10x@20s+10s (ten times --rate, 20 s in, for 10 s), 2000@1m+30s (2000 a second); repeatable',
      ).argParser(spike),
    )
    .addOption(
      new Option('--repeats <share>', 'the share of a load sent again as the service does (same delivery id, attempt 2): 5% unless given').argParser(share),
    )
    .addOption(
      new Option(
        '--max-in-flight <n>',
        `a load's requests open at once; past it deliveries due wait, and start late (default ${DEFAULT_MAX_IN_FLIGHT})`,
      ).argParser(integerIn(1, 100_000)),
    )
    .option('-y, --yes', 'send a load to another machine without asking')
    .addHelpText(
      'after',
      examples(
        'whsvc send http://localhost:3000/webhooks --secret-file ./whsec.txt',
        'whsvc send http://localhost:3000/webhooks --secret-file ./whsec.txt --event sales_order.created --set total.amount=500',
        'whsvc send http://localhost:3000/webhooks --secret-file ./whsec.txt --data @invoice.json --record sent.ndjson',
        'whsvc send http://localhost:3000/webhooks --secret-file ./whsec.txt --rate 200 --duration 60s --spike 10x@20s+10s',
      ),
    )
    .action(
      action(async (context, url, o) => {
        const { io, globals } = context;
        const load = loadOf(o);
        const code = await runF(
          {
            url,
            event: o.event,
            set: o.set ?? [],
            data: o.data,
            secretFile: o.secretFile,
            record: o.record,
            platformName: o.platformName,
            timeoutMs: requestTimeoutGivenMs(globals, io.env) ?? DELIVERY_TIMEOUT_MS,
            json: globals.json,
            color: globals.color,
            load,
          },
          sendDeps(context, load),
        );
        // Stopped with requests still open: the process ends now, not once the last of them has timed out.
        return load && code === ExitCode.interrupted ? context.exit(code) : code;
      }),
    );

/** What a run of send works with; for a load, how to ask, and Ctrl-C as the end of the load with its report. */
function sendDeps({ io, globals, prompter, interrupts }: ActionContext, load: Load | undefined): SendDeps {
  const deps: SendDeps = { ...io, transport: defaultTransport(io.env) };
  if (!load) return deps;
  const canPrompt = globals.input && Boolean(io.stdin.isTTY) && Boolean(io.stderr.isTTY);
  // Ctrl-C ends the load with its report so far (exit 130); a second one at once.
  return { ...deps, prompter, canPrompt, stop: interrupts.graceful() };
}

export interface SendOptions {
  url: string;
  /** The event type; invoice.paid when neither it nor --data's body names one. */
  event?: string | undefined;
  set: Setting[];
  /** The body whole: JSON, `@FILE`, or `-` for stdin. */
  data?: string | undefined;
  secretFile?: string | undefined;
  record?: string | undefined;
  platformName: string;
  /** The answer's limit: --request-timeout, else the service's. */
  timeoutMs: number;
  json: boolean;
  color: boolean;
  /** With --rate and --duration: a load of deliveries (load.ts), not one. */
  load?: Load | undefined;
}

export interface SendDeps extends LoadDeps {
  transport: Transport;
  /** The time now, in milliseconds: the delivery's `Date`, and how long the answer took. */
  now?: () => number;
}

/** What a line shows of a body. */
const SHOWN = 200;

/** An answer's body truncated to its head, in words: said where the body is shown. */
const TRUNCATED = `truncated to its first ${countText(ANSWER_HEAD_BYTES)} bytes: the rest was not read`;

export async function run(options: SendOptions, deps: SendDeps): Promise<number> {
  if (options.load) return runLoad({ ...options, load: options.load }, deps);
  const now = deps.now ?? Date.now;
  const url = forwardUrl(options.url, '<url>');
  checkSecretFilePath(options.secretFile);
  if (options.data !== undefined && options.set.length > 0) {
    throw usageError('--set changes the sample; --data gives the whole body, sent as it is: give one of them');
  }
  if (options.data === STDIN && options.secretFile === STDIN) {
    throw usageError('--data - and --secret-file - both read stdin, which can be read once: give one of them a file');
  }
  const { body, event } = await bodyToSend(options, deps, new Date(now()));
  const secret = options.secretFile === undefined ? undefined : await requiredSecret({ secretFile: options.secretFile }, deps);
  // Opened before anything is sent: a path the writer refuses is exit 2, and nothing went out.
  const recording = options.record === undefined ? undefined : new RecordFile(options.record);
  if (recording?.repaired) deps.stderr.write(laidOut(deps.stderr, `whsvc send: ${recording.repaired}\n`));
  const delivery = madeDelivery(body, {
    event,
    platformName: options.platformName,
    userAgent: `whsvc/${WHSVC_VERSION} (send)`,
    sentAt: new Date(now()),
    secret,
  });
  const started = now();
  const result = await sendAsReceived(deps.transport, url, delivery.headers, delivery.body, '/', options.timeoutMs);
  const ms = Math.round(now() - started);
  const signatureCheck: SignatureCheck = secret === undefined ? 'missing' : 'verified';
  try {
    recording?.append(recordOf(url, delivery, signatureCheck, result, now(), options.platformName));
  } finally {
    recording?.close();
  }
  const taken = isDelivered(result.status);
  const sent = { url, delivery, signatureCheck, signedWith: options.secretFile === undefined ? null : secretName(options.secretFile), result, ms };
  if (options.json) deps.jsonOut.line(sentDocument(sent));
  else deps.stdout.write(await sentBlock(sent, options, deps));
  if (secret === undefined)
    deps.stderr.write(laidOut(deps.stderr, 'whsvc send: sent unsigned (no --secret-file): a receiver that checks signatures must refuse it\n'));
  if (recording)
    deps.stderr.write(laidOut(deps.stderr, `whsvc send: recorded to ${recording.path} (send it again with: whsvc replay ${recording.path} --to URL)\n`));
  return taken ? ExitCode.ok : ExitCode.failure;
}

/** The body to send and its event type: --data as given, or the catalog's sample with each --set applied. */
async function bodyToSend(options: SendOptions, deps: Io, now: Date): Promise<{ body: Buffer; event: string }> {
  if (options.data === undefined) {
    const event = options.event ?? DEFAULT_EVENT;
    const payload = samplePayloadWith(event, options.set, now);
    // The event header says what the body says, --set event=… included: a receiver reads the type from the signed body.
    return { body: Buffer.from(JSON.stringify(payload), 'utf8'), event: typeof payload.event === 'string' ? payload.event : event };
  }
  const { data } = options;
  const terminal = '--data - reads the body from stdin, which is a terminal: pipe it in, or give --data @FILE';
  if (data === '@') throw usageError('--data @ names no file: --data @body.json reads body.json');
  const given =
    data === STDIN
      ? givenBody(await readFileFlag('--data', STDIN, deps.stdin, terminal), '(stdin)')
      : data.startsWith('@')
        ? givenBody(await readFileFlag('--data', data.slice(1), deps.stdin, terminal), data)
        : givenBody(Buffer.from(data, 'utf8'), '(the value given)');
  if (options.event !== undefined && given.event !== undefined && given.event !== options.event) {
    throw usageError(`--event ${options.event}, but the body's event is ${JSON.stringify(given.event)}: the receiver reads the signed body, so give one type`);
  }
  return { body: given.body, event: given.event ?? options.event ?? DEFAULT_EVENT };
}

/** A secret file as lines name it (never the secret): its path as given, or stdin. */
const secretName = (path: string) => (path === STDIN ? 'stdin' : path);

interface Sent {
  url: URL;
  delivery: MadeDelivery;
  signatureCheck: SignatureCheck;
  signedWith: string | null;
  result: SendResult;
  ms: number;
}

/** send --json: what was sent (headers, body, signature) and what came back. */
function sentDocument({ url, delivery, signatureCheck, signedWith, result, ms }: Sent) {
  return {
    url: shownUrl(url),
    event: delivery.event,
    delivery_id: delivery.deliveryId,
    attempt: delivery.attempt,
    signature: delivery.signature ?? null,
    signature_check: signatureCheck,
    signed_with: signedWith,
    headers: delivery.headers,
    body: delivery.body.toString('utf8'),
    status: result.status,
    ms,
    error: result.error ?? null,
    response_body: result.body ?? null,
    response_body_truncated: result.cut === true,
  };
}

/** What a person reads: the delivery sent (where, which, signed how, its body's head) and the answer. */
async function sentBlock({ url, delivery, signedWith, result, ms }: Sent, options: Pick<SendOptions, 'color'>, deps: Io): Promise<string> {
  const colors = await colorsFor(deps.stdout, deps.env, !options.color);
  const taken = isDelivered(result.status);
  const answer = result.status === null ? noAnswer(result.error) : `${result.status} in ${elapsed(ms)}`;
  // The signature and the bodies are shown, not copied (--json has them whole): wider than the line, each is shortened as an id is.
  const body = head(delivery.body.toString('utf8'));
  const pairs: Array<[string, BlockValue]> = [
    ['sent to', shownUrl(url)],
    ['event', delivery.event],
    ['delivery', `${delivery.deliveryId}, attempt ${delivery.attempt}`],
    [
      'signature',
      delivery.signature === undefined ? 'none: sent unsigned' : { text: `${delivery.signature} (the secret in ${signedWith})`, shorten: [delivery.signature] },
    ],
    ['body', { text: `${countText(delivery.body.length)} bytes: ${body}`, shorten: [body] }],
    ['answer', { styled: (taken ? colors.green : colors.red)(sanitize(answer)) }],
  ];
  if (result.body) pairs.push(['answered', { text: `${head(result.body)}${result.cut ? ` (${TRUNCATED})` : ''}`, shorten: [head(result.body)] }]);
  return keyValues(pairs, colors.dim, terminalColumns(deps.stdout));
}

/** The start of a body, on one line. */
const head = (text: string) => {
  const line = sanitize(text).trim();
  return line.length > SHOWN ? `${line.slice(0, SHOWN - 1)}…` : line;
};

/** The delivery as a record file keeps it (listen's format: header names in lower case), for `replay`. */
function recordOf(url: URL, delivery: MadeDelivery, signatureCheck: SignatureCheck, result: SendResult, at: number, platformName: string): RecordLine {
  return deliveryRecord({
    receivedAt: new Date(at).toISOString(),
    path: url.pathname,
    headers: delivery.headers,
    body: delivery.body,
    signatureCheck,
    event: delivery.event,
    deliveryId: delivery.deliveryId,
    attempt: delivery.attempt,
    // What the receiver answered; 0 when it gave no answer, as the service's response_code says it.
    answered: result.status ?? 0,
    platformName,
  });
}
