import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { colorsFor } from '../render/colors.js';
import { sanitize } from '../render/text.js';
import { verify } from '../signing/signature.js';
import type { Io } from './deps.js';
import { ExitCode, listenError, usageError } from './errors.js';
import { httpUrl } from '../net.js';
import { secretSource } from './secret.js';
import { notOneOf } from './suggest.js';

export interface ListenOptions {
  port: number;
  host: string;
  secret?: string | undefined;
  secretFile?: string | undefined;
  respondStatus: number;
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
}

type SignatureState = 'ok' | 'bad' | 'unsigned' | 'unchecked';

/** Wide enough for the catalog's longest type (production_order.completed), so the lines line up. */
const EVENT_WIDTH = 26;

function platformHeader(headers: IncomingHttpHeaders, suffix: string): string | undefined {
  const name = Object.keys(headers).find((key) => new RegExp(`^x-.+-${suffix}$`).test(key));
  const value = name ? headers[name] : undefined;
  return Array.isArray(value) ? value[0] : value;
}

interface ForwardResult {
  status: number | null;
  error?: string;
}

function forward(target: URL, headers: IncomingHttpHeaders, body: Buffer, path: string): Promise<ForwardResult> {
  const url = new URL(target);
  if (path !== '/' && url.pathname === '/') url.pathname = path.split('?')[0]!;
  const { host: _host, connection: _connection, ...kept } = headers;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(url, { method: 'POST', headers: { ...kept, 'content-length': String(body.length) }, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? null }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ status: null, error: error.code === 'ECONNREFUSED' ? 'connection refused' : error.message }),
    );
    req.end(body);
  });
}

export async function run(options: ListenOptions, deps: ListenDeps): Promise<number> {
  const secret = secretSource(options, deps.env, 'WHSVC_LISTEN_SECRET');
  const known = deps.knownEventTypes;
  const unknown = known && options.events?.find((type) => !known.includes(type));
  if (known && unknown !== undefined) throw usageError(`--events: ${notOneOf('event type', unknown, known)}`);
  if (options.count !== undefined && secret.describe.startsWith('no secret')) {
    throw usageError('--count counts verified deliveries: give the secret with --secret-file FILE or WHSVC_LISTEN_SECRET');
  }
  let forwardTarget: URL | undefined;
  if (options.forwardTo !== undefined) {
    try {
      forwardTarget = new URL(options.forwardTo);
    } catch {
      throw usageError(`--forward-to ${JSON.stringify(options.forwardTo)} is not a URL`);
    }
  }
  const colors = await colorsFor(deps.stdout, deps.env, !options.color);
  const now = deps.now ?? (() => new Date());
  let verified = 0;
  let bad = 0;
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
        const signature = platformHeader(req.headers, 'signature');
        let event = platformHeader(req.headers, 'event');
        if (!event) {
          try {
            event = (JSON.parse(body.toString('utf8')) as { event?: string }).event;
          } catch {
            // not JSON: no event type to show
          }
        }
        if (options.events && event && !options.events.includes(event)) {
          res.writeHead(options.respondStatus).end();
          return;
        }
        const key = secret.current();
        const state: SignatureState = !signature ? 'unsigned' : key === undefined ? 'unchecked' : verify(key, body, signature) ? 'ok' : 'bad';
        let status = options.respondStatus;
        let forwarded: ForwardResult | undefined;
        if (state === 'bad' || (state === 'unsigned' && key !== undefined)) {
          status = 400;
          bad += 1;
        } else if (forwardTarget && (state === 'ok' || state === 'unchecked')) {
          forwarded = await forward(forwardTarget, req.headers, body, req.url ?? '/');
          status = forwarded.status ?? 502;
        }
        res.writeHead(status, { 'content-type': 'text/plain' }).end(state === 'bad' ? 'signature does not match\n' : '');
        if (state === 'ok') verified += 1;

        const deliveryId = platformHeader(req.headers, 'delivery-id');
        const attempt = platformHeader(req.headers, 'attempt');
        if (options.json) {
          deps.stdout.write(
            `${JSON.stringify({
              received_at: now().toISOString(),
              event: event ?? null,
              delivery_id: deliveryId ?? null,
              attempt: attempt === undefined ? null : Number(attempt),
              signature: state,
              verified: state === 'ok',
              status,
              forward: forwarded ? { url: forwardTarget!.href, status: forwarded.status, ...(forwarded.error ? { error: forwarded.error } : {}) } : null,
              headers: req.headers,
              body: body.toString('utf8'),
            })}\n`,
          );
        } else {
          const label = { ok: colors.green('signature ok'), bad: colors.red('signature BAD'), unsigned: colors.yellow('unsigned'), unchecked: colors.yellow('not checked (no secret yet)') }[state];
          const forwardText = forwarded ? `  app ${forwarded.status ?? `down (${forwarded.error})`}` : '';
          deps.stdout.write(
            `${now().toISOString().slice(11, 19)}  ${sanitize(event ?? '(no event)').padEnd(EVENT_WIDTH)}  ${`${sanitize(deliveryId ?? '-')}${attempt ? ` #${sanitize(attempt)}` : ''}`.padEnd(32)}  ${label}  -> ${status}${forwardText}\n`,
          );
        }
        if (options.count !== undefined && verified >= options.count) finish(bad > 0 ? ExitCode.failure : ExitCode.ok);
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
  if (options.secretFile && secret.current() === undefined) {
    deps.stderr.write(`  ${options.secretFile} is not there yet: \`whsvc webhooks create --url ${url} --events … --secret-file ${options.secretFile}\` writes it\n`);
  }

  let timer: NodeJS.Timeout | undefined;
  if (options.timeout !== undefined) {
    timer = setTimeout(() => {
      if (options.count !== undefined) {
        deps.stderr.write(`whsvc listen: ${verified} of ${options.count} verified deliveries within ${options.timeout} s\n`);
        finish(ExitCode.timedOut);
      } else finish(bad > 0 ? ExitCode.failure : ExitCode.ok);
    }, options.timeout * 1000);
  }
  const code = await Promise.race([finished, deps.stopSignal]);
  clearTimeout(timer);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  if (bad > 0) deps.stderr.write(`whsvc listen: ${bad} deliver${bad === 1 ? 'y' : 'ies'} with a bad or missing signature\n`);
  return code === ExitCode.ok && bad > 0 ? ExitCode.failure : code;
}
