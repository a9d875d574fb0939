import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { action, addVerbs } from '../../cli/actions.js';
import { DEFAULT_BASE_URL } from '../../cli/defaults.js';
import { examples } from '../../cli/examples.js';
import { collect, distinctList, duration, inSeconds, integerIn, requestTimeoutGivenMs, share } from '../../cli/parse.js';
import { bytesText, elapsed } from '../../render/words.js';
import { ConfigStore } from '../../config/store.js';
import { defaultTransport, type Transport } from '../../api/transport.js';
import { maxSilenceOption, SilenceWatch } from '../../cli/silence.js';
import { colorsFor } from '../../render/colors.js';
import { RecordFile } from '../../receiver/record-file.js';
import { NOT_RECORDED_STATUS, type Receipt, Recording, receiving } from '../../receiver/receive.js';
import { Answerer } from '../../receiver/answer.js';
import { receiptJson, receiptLayout, receiptLine, type AnswerWords } from './receipt.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode, usageError } from '../../cli/errors.js';
import { checkRoutes, describeRoutes, forwardRoute, routeFor, type ForwardRoute } from '../../receiver/routes.js';
import { currentSecrets, describeSecrets, secretSources, type SecretSource } from '../../receiver/secrets.js';
import { STDIN } from '../../cli/stdin.js';
import { LARGEST_PAYLOAD_BYTES } from '../../protocol/delivery.js';
import { counted, countText, shellWord } from '../../render/text.js';
import { type ReceiverBounds, receiverBounds, serveRequests, type Stopped } from '../../receiver/server.js';
import { notOneOf } from '../../cli/suggest.js';
import { checkInteractive, interactiveOption } from '../../cli/interactive.js';
import { ListenScreen } from './screen.js';
import { laidOut, terminalColumns, wrapCommand } from '../../render/wrap.js';

/** Defines `listen`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

export const command = (runF = run) =>
  new Command('listen')
    .description("a local receiver: verifies each delivery's signature and shows it; --count/--timeout make it a CI check")
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(4011).argParser(integerIn(0, 65535)))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option(
        '--secret-file <path>',
        'the signing secret, read from this file (re-read when it changes; - reads stdin, once); repeatable: while moving to a new secret, either verifies',
      ).argParser(collect((value: string) => value)),
    )
    .option('--secret <secret>', 'the signing secret (prefer --secret-file or WHSVC_LISTEN_SECRET: argv is visible to other users)')
    .addOption(
      new Option('--respond-status <code>', 'status to answer verified deliveries with').default(DEFAULT_RESPOND_STATUS).argParser(integerIn(100, 599)),
    )
    .addOption(
      new Option('--fail-first <n>', 'answer 500 to the first N attempts of each delivery (by its delivery id), then as usual').argParser(integerIn(1, 1000)),
    )
    .addOption(new Option('--fail-rate <share>', 'answer 500 to this share of attempts (0.25 or 25%), reproducibly with --seed').argParser(share))
    .option('--seed <seed>', 'the seed of --fail-rate: the same seed fails the same attempts (default: a random one, printed)')
    .addOption(new Option('--delay <duration>', 'answer only after this long (500ms, 5s, 2m), to try delivery timeouts').argParser(duration(600_000)))
    .addOption(
      new Option(
        '--forward-to <[pattern=]url>',
        'relay each verified delivery (with no secret: each signed one, unchecked), byte for byte with its headers, to your local app; repeatable: invoice.*=URL routes by event type, the first route that matches wins, a bare URL (last) takes the rest',
      ).argParser(collect(forwardRoute)),
    )
    .addOption(new Option('--events <types>', 'only show these event types (comma-separated)').argParser(distinctList))
    .addOption(new Option('--count <n>', 'exit 0 after N verified deliveries').argParser(integerIn(1, 1_000_000)))
    .addOption(
      new Option('--timeout <duration>', 'stop after this long (30s, 5m; a bare number is seconds); exit 6 if --count was not reached').argParser(
        inSeconds(duration(86_400_000, 1000)),
      ),
    )
    .addOption(maxSilenceOption('no request received'))
    .option('--record <file>', 'append each delivery received to FILE, one JSON line each (mode 0600), for `whsvc replay`')
    .addOption(interactiveOption('send it again to your app (r)'))
    .addHelpText(
      'after',
      examples(
        'whsvc listen --secret-file ./whsec.txt',
        'whsvc listen --secret-file ./whsec.txt --forward-to http://localhost:3000/webhooks',
        "whsvc listen --secret-file ./whsec.txt --forward-to 'invoice.*=http://localhost:3001' --forward-to http://localhost:3000",
        'whsvc listen --port 0 --secret-file ./whsec.txt --count 1 --timeout 30 --json   # in CI',
        'whsvc listen --secret-file ./whsec.txt --fail-first 2        # fails twice, then recovers',
        'whsvc listen --secret-file ./whsec.txt --fail-rate 0.3 --seed 7 --delay 2s',
        'whsvc listen --secret-file ./whsec.txt --record deliveries.ndjson   # then: whsvc replay deliveries.ndjson --to URL',
        'whsvc listen --secret-file ./whsec.txt --forward-to http://localhost:3000/webhooks -i',
      ),
    )
    .action(
      action(async ({ io, globals, interrupts }, o) =>
        runF(
          {
            port: o.port,
            host: o.host,
            secret: o.secret,
            secretFiles: o.secretFile,
            respondStatus: o.respondStatus,
            failFirst: o.failFirst,
            failRate: o.failRate,
            seed: o.seed,
            delayMs: o.delay,
            forwardTo: o.forwardTo,
            events: o.events,
            count: o.count,
            timeout: o.timeout,
            maxSilenceMs: o.maxSilence,
            record: o.record,
            interactive: Boolean(o.interactive),
            json: globals.json,
            color: globals.color,
            forwardTimeoutMs: requestTimeoutGivenMs(globals, io.env),
          },
          {
            ...io,
            // Asked for once listen listens: a port in use ends it with its error, and leaves Ctrl-C and SIGTERM as they were.
            stopRequested: () => interrupts.stopRequested(),
            knownEventTypes: o.events ? cachedEventTypes(globals.baseUrl ?? DEFAULT_BASE_URL, io.env) : undefined,
          },
        ),
      ),
    );

/**
 * The event types of the catalog cached by an earlier command (listen needs no
 * credentials, so it does not fetch it): undefined when there is none yet.
 */
function cachedEventTypes(baseUrl: string, env: NodeJS.ProcessEnv): string[] | undefined {
  try {
    return ConfigStore.of(env)
      .readCatalog(baseUrl)
      ?.data.map((e) => e.type);
  } catch {
    return undefined;
  }
}

export interface ListenOptions {
  port: number;
  host: string;
  secret?: string | undefined;
  /** Each --secret-file: several while a receiver moves to a new secret (any of them verifies). */
  secretFiles?: string[] | undefined;
  respondStatus: number;
  /** Answer 500 to the first N attempts of each delivery. */
  failFirst?: number | undefined;
  /** Answer 500 to this share of attempts, decided by --seed. */
  failRate?: number | undefined;
  seed?: string | undefined;
  /** Answer only after this many milliseconds. */
  delayMs?: number | undefined;
  /** Where verified deliveries are relayed, by event type (--forward-to [PATTERN=]URL). */
  forwardTo?: ForwardRoute[] | undefined;
  events?: string[] | undefined;
  count?: number | undefined;
  timeout?: number | undefined;
  /** Exit 6 once this long passes with no request (--max-silence). */
  maxSilenceMs?: number | undefined;
  /** Append each delivery received to this file (`whsvc replay` sends them again). */
  record?: string | undefined;
  /** Each forward's limit (--request-timeout); the service's 10 s when not given. */
  forwardTimeoutMs?: number | undefined;
  /** -i: the deliveries on a full screen (src/screen/), not as lines. */
  interactive?: boolean | undefined;
  json: boolean;
  color: boolean;
}

export interface ListenDeps extends Io {
  /** Starts listening for the user's stop (Ctrl-C, SIGTERM): the promise resolves with the exit code. */
  stopRequested: () => Promise<number>;
  /** The catalog's event types when known (cached by an earlier command), to check --events against. */
  knownEventTypes?: string[] | undefined;
  now?: () => Date;
  /** How --forward-to sends (undici, as every request of whsvc); a test may pass its own. */
  transport?: Transport;
  /** What listen takes of its senders (receiverBounds); a test may set others. */
  bounds?: Partial<ReceiverBounds>;
}

/** What a verified delivery is answered when --respond-status is not given. */
export const DEFAULT_RESPOND_STATUS = 200;

export async function run(options: ListenOptions, deps: ListenDeps): Promise<number> {
  if (options.interactive) checkInteractive(options.json, deps);
  const { secrets, routes } = await checkOptions(options, deps);
  // -i: the screen; what listen says while it is up is held, and said once it is left.
  const screen = options.interactive ? new ListenScreen(deps) : undefined;
  const stderr = screen?.stderr ?? deps.stderr;
  const note = (text: string) => stderr.write(laidOut(stderr, `whsvc listen: ${text}\n`));
  const { answerer, words, seed } = answering(options, secrets, routes);
  const recording = options.record === undefined ? undefined : new Recording(new RecordFile(options.record, note), note);
  const show = screen ? (receipt: Receipt) => screen.show(receipt) : await receiptWriter(options, deps, words, routes);
  const ending = new Ending(options, answerer.tally, note);
  const send = deps.transport ?? defaultTransport(deps.env);
  const receive = receiving({
    answerer,
    routes,
    recording,
    send,
    forwardTimeoutMs: options.forwardTimeoutMs,
    delayMs: options.delayMs,
    heard: () => ending.heard(),
    note,
    answered(receipt) {
      show(receipt);
      ending.answered();
    },
  });
  const bounds = { ...receiverBounds(), ...deps.bounds };
  const stops = new Stops(stderr, bounds);
  let code: number;
  try {
    const server = await serveRequests(receive, options, bounds, deps.now ?? (() => new Date()), {
      onFailure: (error) => note(`a request could not be handled, answered 500: ${(error as Error)?.message ?? String(error)}`),
      onStopped: (what) => stops.stopped(what),
    });
    try {
      // A script learns the address from stdout, as from `sandbox start --json`: --port 0 chose the port (from stderr under --jq).
      if (options.json) deps.jsonOut.heading({ url: server.url });
      announce(stderr, { url: server.url, secrets, routes, seed, recorder: recording?.file }, options);
      if (screen) {
        const colors = await colorsFor(deps.stdout, deps.env, !options.color);
        await screen.start({ url: server.url, words, routes, secrets, send, forwardTimeoutMs: options.forwardTimeoutMs, colors });
      }
      // What waits (--timeout, --max-silence, the user's stop: Ctrl-C, or q on the screen) starts only now that listen listens.
      code = await Promise.race([ending.start(), deps.stopRequested(), ...(screen ? [screen.left] : [])]);
    } finally {
      ending.stop();
      screen?.stop();
      await server.stop();
    }
  } finally {
    recording?.file.close();
  }
  for (const line of stops.summary()) note(line);
  return lastWords(code, answerer.tally, recording?.unrecorded ?? 0, note);
}

/**
 * How listen answers, from its flags: the answerer (answer.ts), the words its lines say the rules in, and the seed of
 * --fail-rate (a random one when none is given, printed so that a run can be made again).
 */
function answering(options: ListenOptions, secrets: SecretSource[], routes: ForwardRoute[]) {
  const seed = options.failRate === undefined ? undefined : (options.seed ?? Math.random().toString(36).slice(2, 8));
  const rules = { respondStatus: options.respondStatus, failFirst: options.failFirst, failRate: options.failRate, seed, events: options.events };
  const answerer = new Answerer({ ...rules, forwards: (event) => routeFor(routes, event) !== undefined }, () => currentSecrets(secrets));
  const words: AnswerWords = {
    ...rules,
    defaultStatus: options.respondStatus === DEFAULT_RESPOND_STATUS,
    delayMs: options.delayMs,
    namesSecret: secrets.length > 1,
    secretNames: secrets.map((source) => source.name),
  };
  return { answerer, words, seed };
}

/** What shows each receipt: a --json line, or a line laid out once, now, from the terminal's width (every line keeps its fields in the same places). */
async function receiptWriter(options: ListenOptions, deps: ListenDeps, words: AnswerWords, routes: ForwardRoute[]): Promise<(receipt: Receipt) => void> {
  const colors = await colorsFor(deps.stdout, deps.env, !options.color);
  const layout = receiptLayout(
    words,
    routes.map((route) => route.label),
    deps.stdout.isTTY ? deps.stdout.columns : undefined,
  );
  return (receipt) => {
    if (options.json) deps.jsonOut.line(receiptJson(receipt, words));
    else deps.stdout.write(receiptLine(receipt, words, colors, layout));
  };
}

type Tally = Answerer['tally'];

/** The exit code when nothing went wrong on listen's side: 1 when a delivery was bad or refused, else 0. */
const talliedCode = (tally: Tally): number => (tally.bad + tally.refused > 0 ? ExitCode.failure : ExitCode.ok);

/**
 * When listen ends on its own (Ctrl-C aside): --count verified deliveries taken, --timeout passed (exit 6 when --count
 * was not reached), or --max-silence with no request (exit 6). Nothing is armed before start().
 */
class Ending {
  private readonly done = Promise.withResolvers<number>();
  private readonly silence: SilenceWatch;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly options: Pick<ListenOptions, 'count' | 'timeout' | 'maxSilenceMs'>,
    private readonly tally: Tally,
    private readonly note: (text: string) => void,
  ) {
    this.silence = new SilenceWatch(
      options.maxSilenceMs,
      () => {
        note(`no request for ${elapsed(options.maxSilenceMs!)} (--max-silence): stopping, exit 6`);
        this.done.resolve(ExitCode.timedOut);
      },
      false,
    );
  }

  /** A request came (--max-silence starts again). */
  heard(): void {
    // A request on a kept-alive connection while listen winds down must not arm the watch again.
    if (!this.stopped) this.silence.heard();
  }

  /** A request answered and shown: --count may be reached. */
  answered(): void {
    const { count } = this.options;
    if (count !== undefined && this.tally.verified >= count) this.done.resolve(talliedCode(this.tally));
  }

  /** --timeout and --max-silence count from now, once listen listens; resolves with the exit code. */
  start(): Promise<number> {
    const { count, timeout } = this.options;
    this.silence.heard();
    if (timeout === undefined) return this.done.promise;
    this.timer = setTimeout(() => {
      if (count === undefined) return this.done.resolve(talliedCode(this.tally));
      this.note(`${countText(this.tally.verified)} of ${countText(count)} verified deliveries within ${elapsed(timeout * 1000)}`);
      this.done.resolve(ExitCode.timedOut);
    }, timeout * 1000);
    return this.done.promise;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.silence.stop();
  }
}

/** listen's last lines, on stderr (what went unrecorded, bad or refused), and its exit code: 1 for any of them, else `code`. */
function lastWords(code: number, { bad, refused }: Tally, unrecorded: number, note: (text: string) => void): number {
  if (unrecorded > 0) {
    note(`${counted(unrecorded, 'delivery')} not recorded, answered ${NOT_RECORDED_STATUS} for the sender to try again`);
  }
  if (bad > 0) note(`${counted(bad, 'delivery')} with a bad or missing signature`);
  if (refused > 0) {
    note(`${counted(refused, 'replayed delivery or event header', 'replayed deliveries or event headers')} contradicting the signed body, refused`);
  }
  return code === ExitCode.ok && bad + refused + unrecorded > 0 ? ExitCode.failure : code;
}

/**
 * What listen's bounds stopped (server.ts): each kind said once, the first
 * time (a flood of them must not flood the terminal), and counted for the
 * last lines.
 */
class Stops {
  private readonly counts: Record<Stopped, number> = { too_large: 0, too_slow: 0, shed: 0 };

  constructor(
    private readonly stderr: Io['stderr'],
    private readonly bounds: ReceiverBounds,
  ) {}

  stopped(what: Stopped): void {
    this.counts[what] += 1;
    if (this.counts[what] > 1) return;
    const { maxBodyBytes, headersTimeoutMs, requestTimeoutMs, maxConnections } = this.bounds;
    const first = {
      too_large: `a request body over ${bytesText(maxBodyBytes)}, the most listen takes (the service sends at most ${bytesText(LARGEST_PAYLOAD_BYTES)}), answered 413 and not read on`,
      too_slow: `a connection that sent no whole request in time (its headers within ${elapsed(headersTimeoutMs)}, all of it within ${elapsed(requestTimeoutMs)}) closed with 408`,
      shed: `${counted(maxConnections, 'connection')} open at once, the most listen holds: each new one closes the oldest not being answered (a flood of slow connections?)`,
    }[what];
    this.stderr.write(laidOut(this.stderr, `whsvc listen: ${first}; more are counted at the end\n`));
  }

  /** The last lines: how many of each there were, when any. */
  summary(): string[] {
    const { too_large, too_slow, shed } = this.counts;
    return [
      too_large > 0 ? `${counted(too_large, 'request body', 'request bodies')} over ${bytesText(this.bounds.maxBodyBytes)} refused (413)` : '',
      too_slow > 0 ? `${counted(too_slow, 'connection')} closed for sending no whole request in time (408)` : '',
      shed > 0 ? `${counted(shed, 'connection')} closed to stay within ${this.bounds.maxConnections} at once` : '',
    ].filter(Boolean);
  }
}

/** What listen says at start, on stderr: where it listens, how it verifies and answers, where it forwards and records. */
function announce(
  stderr: Io['stderr'],
  state: { url: string; secrets: SecretSource[]; routes: ForwardRoute[]; seed: string | undefined; recorder: RecordFile | undefined },
  options: ListenOptions,
): void {
  const { url, routes, seed, recorder } = state;
  // Laid out for a terminal's width, each continuation under its text; a file's name and a command kept whole.
  const say = (line: string, keep: string[] = []) => stderr.write(`${laidOut(stderr, line, keep)}\n`);
  say(`whsvc listen: ready at ${url}`);
  // With no secret nothing is verified: what is forwarded is every signed delivery, unchecked, and the words say so.
  const forwarded = state.secrets.length > 0 ? 'verified deliveries' : 'signed deliveries, unchecked (an unsigned one is answered, not forwarded),';
  say(
    `  verifying with ${describeSecrets(state.secrets)}${routes.length ? `; forwarding ${forwarded} to ${describeRoutes(routes)}` : ''}`,
    state.secrets.map((source) => source.name),
  );
  const failing = [
    options.failFirst === undefined ? '' : `the first ${counted(options.failFirst, 'attempt')} of each delivery`,
    seed === undefined ? '' : `${Math.round(options.failRate! * 1000) / 10}% of attempts (--seed ${seed} fails the same ones again)`,
  ].filter(Boolean);
  if (options.respondStatus !== DEFAULT_RESPOND_STATUS) say(`  answering ${options.respondStatus} to verified deliveries (--respond-status)`);
  if (failing.length > 0) say(`  answering 500 to ${failing.join(', and ')}`);
  if (options.delayMs) say(`  answering after ${elapsed(options.delayMs)}`);
  if (recorder)
    say(`  recording each delivery to ${recorder.path} (replay them with: whsvc replay ${recorder.path} --to URL)`, [
      recorder.path,
      `whsvc replay ${recorder.path} --to URL`,
    ]);
  if (recorder?.repaired) say(`  ${recorder.repaired}`);
  for (const file of options.secretFiles ?? []) {
    if (file === STDIN || state.secrets.find((source) => source.name === file)?.current() !== undefined) continue;
    say(`  ${file} is not there yet; this writes it:`, [file]);
    // listen takes a POST at any path; /hooks is the README's, so the command pasted from here and the README's agree.
    const create = `    whsvc webhooks create --url ${shellWord(new URL('/hooks', url).href)} --events … --secret-file ${shellWord(file)}`;
    stderr.write(`${wrapCommand(create, terminalColumns(stderr), '      ')}\n`);
  }
}

/** What cannot work is refused before listen listens: an event type the catalog lacks, --count with no secret, a route never taken. */
async function checkOptions(options: ListenOptions, deps: ListenDeps): Promise<{ secrets: SecretSource[]; routes: ForwardRoute[] }> {
  const known = deps.knownEventTypes;
  const unknown = known && options.events?.find((type) => !known.includes(type));
  if (known && unknown !== undefined) throw usageError(`--events: ${notOneOf('event type', unknown, known)}`);
  const routes = checkRoutes(options.forwardTo ?? []);
  // Last: --secret-file - reads stdin, once the flags are known to be good.
  const secrets = await secretSources(options, deps, 'WHSVC_LISTEN_SECRET');
  if (options.count !== undefined && secrets.length === 0) {
    throw usageError('--count counts verified deliveries: give the secret with --secret-file FILE or WHSVC_LISTEN_SECRET');
  }
  return { secrets, routes };
}
