import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { action, addVerbs } from '../../cli/actions.js';
import { DEFAULT_BASE_URL } from '../../cli/defaults.js';
import { examples } from '../../cli/examples.js';
import { stopRequested } from '../../cli/interrupt.js';
import { distinctList, duration, integerIn, share } from '../../cli/parse.js';
import { ConfigStore } from '../../config/store.js';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultTransport, type Transport } from '../../api/transport.js';
import { TransportError } from '../../net.js';
import { colorsFor } from '../../render/colors.js';
import { sanitize } from '../../render/text.js';
import { fittedLine, type LineField } from '../../render/line.js';
import { readDeliveryHeaders, verify } from '../../signing/signature.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode, listenError, usageError } from '../../cli/errors.js';
import { httpUrl } from '../../net.js';
import { forwardUrl } from '../../cli/forward.js';
import { secretSource } from '../../cli/secret.js';
import { notOneOf } from '../../cli/suggest.js';

/** Defines `listen`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

export const command = () =>
  new Command('listen')
    .description("a local receiver: verifies each delivery's signature and shows it; --count/--timeout make it a CI check")
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(4011).argParser(integerIn(0, 65535)))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--secret-file <path>', 'the signing secret, read from this file (re-read when it changes)')
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
    .option('--forward-to <url>', 'relay each verified delivery, byte for byte with its headers, to your local app')
    .addOption(new Option('--events <types>', 'only show these event types (comma-separated)').argParser(distinctList))
    .addOption(new Option('--count <n>', 'exit 0 after N verified deliveries').argParser(integerIn(1, 1_000_000)))
    .addOption(new Option('--timeout <seconds>', 'stop after S seconds; exit 6 if --count was not reached').argParser(integerIn(1, 86_400)))
    .addHelpText(
      'after',
      examples(
        'whsvc listen --secret-file ./whsec.txt',
        'whsvc listen --secret-file ./whsec.txt --forward-to http://localhost:3000/webhooks',
        'whsvc listen --port 0 --secret-file ./whsec.txt --count 1 --timeout 30 --json   # in CI',
        'whsvc listen --secret-file ./whsec.txt --fail-first 2        # fails twice, then recovers',
        'whsvc listen --secret-file ./whsec.txt --fail-rate 0.3 --seed 7 --delay 2s',
      ),
    )
    .action(
      action(async ({ io, globals }, o) =>
        run(
          {
            port: o.port,
            host: o.host,
            secret: o.secret,
            secretFile: o.secretFile,
            respondStatus: o.respondStatus,
            failFirst: o.failFirst,
            failRate: o.failRate,
            seed: o.seed,
            delayMs: o.delay,
            forwardTo: o.forwardTo,
            events: o.events,
            count: o.count,
            timeout: o.timeout,
            json: globals.json,
            color: globals.color,
          },
          { ...io, stopSignal: stopRequested(), knownEventTypes: o.events ? cachedEventTypes(globals.baseUrl ?? DEFAULT_BASE_URL, io.env) : undefined },
        ),
      ),
    );

/**
 * The event types of the catalog cached by an earlier command (listen needs no
 * credentials, so it does not fetch it): undefined when there is none yet.
 */
function cachedEventTypes(baseUrl: string, env: NodeJS.ProcessEnv): string[] | undefined {
  try {
    return new ConfigStore(env.WHSVC_CONFIG_DIR).readCatalog(baseUrl)?.data.map((e) => e.type);
  } catch {
    return undefined;
  }
}

export interface ListenOptions {
  port: number;
  host: string;
  secret?: string | undefined;
  secretFile?: string | undefined;
  respondStatus: number;
  /** Answer 500 to the first N attempts of each delivery. */
  failFirst?: number | undefined;
  /** Answer 500 to this share of attempts, decided by --seed. */
  failRate?: number | undefined;
  seed?: string | undefined;
  /** Answer only after this many milliseconds. */
  delayMs?: number | undefined;
  forwardTo?: string | undefined;
  events?: string[] | undefined;
  count?: number | undefined;
  timeout?: number | undefined;
  json: boolean;
  color: boolean;
}

export interface ListenDeps extends Io {
  /** Resolves when the user stops it (Ctrl-C), with the exit code. */
  stopSignal: Promise<number>;
  /** The catalog's event types when known (cached by an earlier command), to check --events against. */
  knownEventTypes?: string[] | undefined;
  now?: () => Date;
  /** How --forward-to sends (undici, as every request of whsvc); a test may pass its own. */
  transport?: Transport;
}

type SignatureState = 'ok' | 'bad' | 'unsigned' | 'unchecked';

/** What decided the answer to a request, on every line listen prints. */
type Rule = 'signature' | 'replay' | 'event_mismatch' | 'fail_first' | 'fail_rate' | 'forward' | 'respond_status';

/**
 * Whether --fail-rate fails this attempt: a hash of the seed, the delivery id
 * and the attempt number, so that the same seed fails the same attempts
 * whatever order they arrive in.
 */
function failsByRate(seed: string, deliveryId: string, attempt: string, rate: number): boolean {
  const digest = createHash('sha256').update(`${seed}\0${deliveryId}\0${attempt}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < rate;
}

/** What a verified delivery is answered when --respond-status is not given. */
export const DEFAULT_RESPOND_STATUS = 200;
/** Wide enough for the catalog's longest type (production_order.completed), so the lines line up. */
const EVENT_WIDTH = 26;

interface ForwardResult {
  status: number | null;
  error?: string;
}

/** Headers that describe the hop, not the delivery: the forward makes its own. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

async function forward(send: Transport, target: URL, headers: IncomingHttpHeaders, body: Buffer, path: string): Promise<ForwardResult> {
  const url = new URL(target);
  if (path !== '/' && url.pathname === '/') url.pathname = path.split('?')[0]!;
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  try {
    const answer = await send({ method: 'POST', url, headers: kept, body, timeoutMs: 10_000 });
    return { status: answer.status };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    return { status: null, error: error.message };
  }
}

/** The `event` field of a JSON body: what the signature covers, unlike the headers. */
function bodyEvent(body: Buffer): string | undefined {
  try {
    const event = (JSON.parse(body.toString('utf8')) as { event?: unknown }).event;
    return typeof event === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What `listen` remembers of the deliveries it has seen, to tell a new one
 * from a repeat: the signature covers the body only, with no timestamp, so a
 * captured delivery can be sent again with any delivery id or attempt header.
 * A delivery id is the key: the same id with the same body and a higher
 * attempt number is the sender's retry; the same id with an attempt already
 * seen, or with another body, is a replay. The same body under a new id is
 * only noted: two events can have identical payloads.
 */
class Seen {
  private readonly byId = new Map<string, { bodyHash: string; attempt: number }>();
  private readonly byBody = new Map<string, string>();

  note(
    deliveryId: string | undefined,
    attemptHeader: string | undefined,
    body: Buffer,
  ): { repeat: 'retry' | 'replay' | 'same_body' | null; of: string | null } {
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const attempt = Number(attemptHeader ?? NaN);
    const earlierBody = this.byBody.get(bodyHash);
    if (deliveryId === undefined) {
      if (earlierBody !== undefined) return { repeat: 'same_body', of: earlierBody };
      this.byBody.set(bodyHash, '(no id)');
      return { repeat: null, of: null };
    }
    const earlier = this.byId.get(deliveryId);
    if (earlier) {
      if (earlier.bodyHash === bodyHash && Number.isInteger(attempt) && attempt > earlier.attempt) {
        earlier.attempt = attempt;
        return { repeat: 'retry', of: deliveryId };
      }
      return { repeat: 'replay', of: deliveryId };
    }
    this.byId.set(deliveryId, { bodyHash, attempt: Number.isInteger(attempt) ? attempt : 0 });
    if (earlierBody !== undefined) return { repeat: 'same_body', of: earlierBody };
    this.byBody.set(bodyHash, deliveryId);
    return { repeat: null, of: null };
  }
}

export async function run(options: ListenOptions, deps: ListenDeps): Promise<number> {
  const secret = secretSource(options, deps.env, 'WHSVC_LISTEN_SECRET');
  const known = deps.knownEventTypes;
  const unknown = known && options.events?.find((type) => !known.includes(type));
  if (known && unknown !== undefined) throw usageError(`--events: ${notOneOf('event type', unknown, known)}`);
  if (options.count !== undefined && secret.describe.startsWith('no secret')) {
    throw usageError('--count counts verified deliveries: give the secret with --secret-file FILE or WHSVC_LISTEN_SECRET');
  }
  const forwardTarget = options.forwardTo === undefined ? undefined : forwardUrl(options.forwardTo);
  const send = deps.transport ?? defaultTransport(deps.env);
  const seen = new Seen();
  /** Attempts received per delivery id, for --fail-first. */
  const attemptsOf = new Map<string, number>();
  /** Deliveries counted for --count: each once, however many attempts it takes. */
  const counted = new Set<string>();
  let requestNumber = 0;
  const seed = options.failRate === undefined ? undefined : (options.seed ?? Math.random().toString(36).slice(2, 8));
  const colors = await colorsFor(deps.stdout, deps.env, !options.color);
  const now = deps.now ?? (() => new Date());
  let verified = 0;
  let bad = 0;
  let refused = 0;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST') {
          res.writeHead(405, { allow: 'POST' }).end();
          return;
        }
        const body = Buffer.concat(chunks);
        const delivery = readDeliveryHeaders(req.headers);
        const signature = delivery.signature;
        const headerEvent = delivery.event;
        // The body's event is signed; the header is not, and may have been rewritten.
        const signedEvent = bodyEvent(body);
        const event = signedEvent ?? headerEvent;
        const eventMismatch = signedEvent !== undefined && headerEvent !== undefined && headerEvent !== signedEvent;
        if (options.events && event && !options.events.includes(event)) {
          res.writeHead(options.respondStatus).end();
          return;
        }
        const key = secret.current();
        const state: SignatureState = !signature ? 'unsigned' : key === undefined ? 'unchecked' : verify(key, body, signature) ? 'ok' : 'bad';
        const deliveryId = delivery.deliveryId;
        const attempt = delivery.attempt;
        // Only what passed (or could not be checked) is remembered: a forged request must not poison an id.
        const { repeat, of: repeatOf } = state === 'ok' || state === 'unchecked' ? seen.note(deliveryId, attempt, body) : { repeat: null, of: null };
        // A signed body under headers that lie about it, or sent again as another delivery: someone replays it.
        const suspect = eventMismatch || repeat === 'replay';
        requestNumber += 1;
        const attemptNumber = deliveryId === undefined ? 1 : (attemptsOf.get(deliveryId) ?? 0) + 1;
        if (deliveryId !== undefined && (state === 'ok' || state === 'unchecked')) attemptsOf.set(deliveryId, attemptNumber);
        let status = options.respondStatus;
        let rule: Rule = 'respond_status';
        let forwarded: ForwardResult | undefined;
        if (state === 'bad' || (state === 'unsigned' && key !== undefined)) {
          [status, rule] = [400, 'signature'];
          bad += 1;
        } else if (suspect) {
          [status, rule] = [400, eventMismatch ? 'event_mismatch' : 'replay'];
          refused += 1;
        } else if (options.failFirst !== undefined && attemptNumber <= options.failFirst) {
          [status, rule] = [500, 'fail_first'];
        } else if (seed !== undefined && failsByRate(seed, deliveryId ?? `request ${requestNumber}`, attempt ?? String(attemptNumber), options.failRate!)) {
          [status, rule] = [500, 'fail_rate'];
        } else if (forwardTarget && (state === 'ok' || state === 'unchecked')) {
          forwarded = await forward(send, forwardTarget, req.headers, body, req.url ?? '/');
          [status, rule] = [forwarded.status ?? 502, 'forward'];
        }
        if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        const refusal =
          state === 'bad'
            ? 'signature does not match\n'
            : eventMismatch
              ? 'event header does not match the signed body\n'
              : repeat === 'replay'
                ? 'replay of a delivery already received\n'
                : '';
        res.writeHead(status, { 'content-type': 'text/plain' }).end(refusal);
        // --count counts distinct deliveries taken (not failed on purpose): a later attempt of one already counted is shown, not counted again.
        if (state === 'ok' && !suspect && rule !== 'fail_first' && rule !== 'fail_rate') {
          if (deliveryId === undefined) verified += 1;
          else if (!counted.has(deliveryId)) {
            counted.add(deliveryId);
            verified += 1;
          }
        }

        if (options.json) {
          deps.stdout.write(
            `${JSON.stringify({
              received_at: now().toISOString(),
              event: event ?? null,
              header_event: headerEvent ?? null,
              event_mismatch: eventMismatch,
              delivery_id: deliveryId ?? null,
              repeat,
              repeat_of: repeatOf,
              attempt: attempt === undefined ? null : Number(attempt),
              signature: state,
              verified: state === 'ok',
              status,
              rule,
              delay_ms: options.delayMs ?? 0,
              forward: forwarded ? { url: forwardTarget!.href, status: forwarded.status, ...(forwarded.error ? { error: forwarded.error } : {}) } : null,
              headers: req.headers,
              body: body.toString('utf8'),
            })}\n`,
          );
        } else {
          const labelWords = { ok: 'signature ok', bad: 'signature BAD', unsigned: 'unsigned', unchecked: 'not checked (no secret yet)' }[state];
          const labelColor = { ok: colors.green, bad: colors.red, unsigned: colors.yellow, unchecked: colors.yellow }[state];
          const because = {
            signature: 'signature',
            replay: 'replay',
            event_mismatch: 'event header',
            fail_first: `--fail-first: attempt ${attemptNumber} of ${options.failFirst}`,
            fail_rate: `--fail-rate ${options.failRate}, seed ${seed}`,
            forward: 'forwarded',
            respond_status: options.respondStatus === DEFAULT_RESPOND_STATUS ? 'default' : '--respond-status',
          }[rule];
          const ruleText = `(${because}${options.delayMs ? `, after ${options.delayMs} ms` : ''})`;
          const flags: Array<[string, (text: string) => string]> = [];
          if (eventMismatch) flags.push([`header says ${sanitize(headerEvent!)}`, colors.red]);
          if (repeat === 'retry') flags.push([`retry of ${sanitize(repeatOf!)}`, colors.yellow]);
          if (repeat === 'replay') flags.push([`REPLAY of ${sanitize(repeatOf!)}`, colors.red]);
          if (repeat === 'same_body') flags.push([`same body as ${sanitize(repeatOf!)}`, colors.yellow]);
          const forwardText = forwarded ? `app ${forwarded.status ?? `down (${forwarded.error})`}` : '';
          // On a terminal the line fits its width (fitLine): the delivery id loses its middle, then the event type is cut.
          const fields: LineField[] = [
            { text: now().toISOString().slice(11, 19) },
            { text: sanitize(event ?? '(no event)'), pad: EVENT_WIDTH, min: 8, cut: 'end', give: 2 },
            { text: `${sanitize(deliveryId ?? '-')}${attempt ? ` #${sanitize(attempt)}` : ''}`, pad: 32, min: 14, cut: 'middle', give: 1 },
            { text: labelWords, styled: labelColor(labelWords) },
            ...flags.map(([text, color]): LineField => ({ text, styled: color(text), min: 16, cut: 'middle', give: 3 })),
            { text: `-> ${status} ${ruleText}`, styled: `-> ${status} ${colors.dim(ruleText)}`, min: 7, cut: 'end', give: 4 },
            ...(forwardText ? [{ text: forwardText }] : []),
          ];
          deps.stdout.write(`${fittedLine([fields], deps.stdout.isTTY ? deps.stdout.columns : undefined)}\n`);
        }
        if (options.count !== undefined && verified >= options.count) finish(bad + refused > 0 ? ExitCode.failure : ExitCode.ok);
      })();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, options.host, options.port)));
    server.listen(options.port, options.host, resolve);
  });
  const url = httpUrl(server.address() as AddressInfo);
  deps.stderr.write(`whsvc listen: ready at ${url}\n`);
  deps.stderr.write(`  verifying with ${secret.describe}${forwardTarget ? `; forwarding verified deliveries to ${forwardTarget.href}` : ''}\n`);
  const failing = [
    options.failFirst === undefined ? '' : `the first ${options.failFirst} attempt${options.failFirst === 1 ? '' : 's'} of each delivery`,
    seed === undefined ? '' : `${Math.round(options.failRate! * 1000) / 10}% of attempts (--seed ${seed} fails the same ones again)`,
  ].filter(Boolean);
  if (options.respondStatus !== DEFAULT_RESPOND_STATUS) deps.stderr.write(`  answering ${options.respondStatus} to verified deliveries (--respond-status)\n`);
  if (failing.length > 0) deps.stderr.write(`  answering 500 to ${failing.join(', and ')}\n`);
  if (options.delayMs) deps.stderr.write(`  answering after ${options.delayMs} ms\n`);
  if (options.secretFile && secret.current() === undefined) {
    deps.stderr.write(
      `  ${options.secretFile} is not there yet: \`whsvc webhooks create --url ${url} --events … --secret-file ${options.secretFile}\` writes it\n`,
    );
  }

  let timer: NodeJS.Timeout | undefined;
  if (options.timeout !== undefined) {
    timer = setTimeout(() => {
      if (options.count !== undefined) {
        deps.stderr.write(`whsvc listen: ${verified} of ${options.count} verified deliveries within ${options.timeout} s\n`);
        finish(ExitCode.timedOut);
      } else finish(bad + refused > 0 ? ExitCode.failure : ExitCode.ok);
    }, options.timeout * 1000);
  }
  const code = await Promise.race([finished, deps.stopSignal]);
  clearTimeout(timer);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  if (bad > 0) deps.stderr.write(`whsvc listen: ${bad} deliver${bad === 1 ? 'y' : 'ies'} with a bad or missing signature\n`);
  if (refused > 0)
    deps.stderr.write(
      `whsvc listen: ${refused} replayed deliver${refused === 1 ? 'y' : 'ies'} or event header${refused === 1 ? '' : 's'} contradicting the signed body, refused\n`,
    );
  return code === ExitCode.ok && bad + refused > 0 ? ExitCode.failure : code;
}
