import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { boundedServer, type ConnectionBounds } from '../bounded-server.js';
import { defaultMaxConnections } from '../open-files.js';
import { bytesText } from '../render/words.js';
import type { Clock } from './clock.js';
import { ClientGone, discardRest, readBodyUpTo, TOO_LARGE } from '../request-body.js';

/** An error the sandbox answers a request with, as `{ "error": { "code", "message" } }` (the CLI reads it as an ApiError). */
export class ErrorAnswer extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string) => new ErrorAnswer(400, code, message);
export const notFound = (what: string, id: string) => new ErrorAnswer(404, 'not_found', `no ${what} with id ${id}`);

export const MAX_BODY_BYTES = 64 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status);
  res.end();
}

export function sendErrorAnswer(res: ServerResponse, error: ErrorAnswer): void {
  sendJson(res, error.status, { error: { code: error.code, message: error.message, ...error.extra } }, error.headers);
}

/** Each request's body, as serve() read it before handling the request (ConnectionBound.wholeRequest). */
const bodies = new WeakMap<IncomingMessage, Buffer | typeof TOO_LARGE>();

/** The raw request body, refused with 413 past MAX_BODY_BYTES (after the rest of it is read and dropped: see discardRest). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const body = bodies.get(req) ?? (await readBodyUpTo(req, MAX_BODY_BYTES));
  if (body !== TOO_LARGE) return body.toString('utf8');
  await discardRest(req);
  throw tooLarge();
}

function isJsonType(req: IncomingMessage): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * The body as a JSON object: 415 unless it is sent as application/json (as the
 * token route refuses other types). With `optional`, no body at all is `{}`.
 */
export async function readJsonObject(req: IncomingMessage, optional = false): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  if (optional && text === '' && req.headers['content-type'] === undefined) return {};
  if (!isJsonType(req)) {
    const sent = req.headers['content-type'] === undefined ? 'no Content-Type' : `Content-Type ${JSON.stringify(req.headers['content-type'])}`;
    throw new ErrorAnswer(415, 'unsupported_media_type', `the body must be JSON sent as Content-Type: application/json (got ${sent})`);
  }
  return parseJsonObject(text, optional);
}

function tooLarge(): ErrorAnswer {
  return new ErrorAnswer(413, 'payload_too_large', `request body is larger than ${bytesText(MAX_BODY_BYTES)}`, {
    connection: 'close',
  });
}

/** Deeper JSON than this is refused: echoing it back, or signing it as a payload, would overflow the stack. */
export const MAX_JSON_DEPTH = 32;

/** How deeply arrays and objects nest in a parsed JSON value, counted without recursion. */
function nestingDepth(root: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_JSON_DEPTH) return deepest;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Parses a JSON body that must be an object (or may be empty when `optional`). */
export function parseJsonObject(text: string, optional = false): Record<string, unknown> {
  if (text.trim() === '') {
    if (optional) return {};
    throw badRequest('invalid_json', 'request body is empty; a JSON object is required');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('invalid_json', 'request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('invalid_json', 'request body must be a JSON object');
  }
  if (nestingDepth(value) > MAX_JSON_DEPTH) throw badRequest('invalid_json', `request body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  return value as Record<string, unknown>;
}

/**
 * What the sandbox takes of its API clients (docs/sandbox.md gives the figures): headers within 10 s, a whole request
 * (its body at most 64 KiB) within 30 s, and as many connections at once as its sends may hold (a quarter of the
 * file limit, at most 256), so that idle or slow connections never take the descriptors deliveries need.
 */
export function serverBounds(fileLimit?: number): ConnectionBounds {
  return { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: defaultMaxConnections(fileLimit) };
}

/**
 * The sandbox's HTTP server around a request handler, within `bounds`: every answer carries
 * the service's clock in its `Date` header (clients count "3 minutes ago" from
 * it, also when the clock was moved); an ErrorAnswer becomes its JSON answer, a
 * client gone is let go, and any other error is a 500 that hides our
 * internals (its stack goes to stderr) while the server keeps serving. A
 * request node:http cannot even parse gets a JSON answer too, then the close.
 */
export function serve(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  clock: Clock,
  /** Where a failure inside the sandbox is told (`sandbox start`: its stderr). */
  onInternalError: (line: string) => void,
  bounds: ConnectionBounds = serverBounds(),
): Server {
  const { server, connections } = boundedServer(bounds);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('date', new Date(clock.now()).toUTCString());
    // Being answered once its body is whole, never before (a slow body may be closed to make room, as slow headers are).
    connections
      .wholeRequest(req, res, MAX_BODY_BYTES)
      .then((body) => {
        bodies.set(req, body);
        return handle(req, res);
      })
      .then(
        // Handled, its answer still open: a live stream, which must not hold the room API calls need.
        () => res.writableEnded || connections.heldOpen(req.socket),
        (error: unknown) => answerFailure(req, res, error, onInternalError),
      );
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, reason, code, message] = malformedRequest(error);
    const text = JSON.stringify({ error: { code, message } });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });
  return server;
}

/** A request's handling failed: an ErrorAnswer is answered as such, a client gone let go, anything else a 500 told to `onInternalError`. */
function answerFailure(req: IncomingMessage, res: ServerResponse, error: unknown, onInternalError: (line: string) => void): void {
  if (error instanceof ClientGone || res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof ErrorAnswer) {
    sendErrorAnswer(res, error);
    if (error.headers.connection === 'close') req.resume();
    return;
  }
  onInternalError(`whsvc sandbox: internal error on ${req.method} ${req.url}: ${(error as Error)?.stack ?? String(error)}\n`);
  sendErrorAnswer(res, new ErrorAnswer(500, 'internal_error', 'the sandbox failed to handle this request'));
}

/** What a request node:http could not even parse is answered with, as [status, reason phrase, code, message]. */
function malformedRequest(error: NodeJS.ErrnoException): [number, string, string, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', 'headers_too_large', 'the request headers are too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', 'request_timeout', 'the request did not arrive in time'];
    case 'HPE_INVALID_METHOD':
      return [400, 'Bad Request', 'malformed_request', 'the request method is not valid HTTP'];
    case 'HPE_INVALID_URL':
      return [400, 'Bad Request', 'malformed_request', 'the request target is not a valid path'];
    case 'HPE_INVALID_VERSION':
      return [400, 'Bad Request', 'malformed_request', 'the request is not HTTP/1.x'];
    default: {
      const reason = (error as { reason?: string }).reason;
      return [400, 'Bad Request', 'malformed_request', `the request is not valid HTTP/1.1${reason ? `: ${reason.toLowerCase()}` : ''}`];
    }
  }
}

/** A request's path, decoded into segments, and its query; a parameter given twice or a bad percent-encoding is a 400. */
export function requestTarget(req: IncomingMessage): { pathname: string; segments: string[]; query: URLSearchParams } {
  const target = req.url ?? '/';
  const pathname = target.split('?')[0]!;
  const query = new URLSearchParams(target.includes('?') ? target.slice(target.indexOf('?') + 1) : '');
  const repeated = [...query.keys()].find((key, index, keys) => keys.indexOf(key) !== index);
  if (repeated !== undefined) throw new ErrorAnswer(400, 'invalid_parameter', `${repeated}: given more than once`);
  let segments: string[];
  try {
    segments = pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    throw badRequest('invalid_path', 'the request path is not valid percent-encoding');
  }
  return { pathname, segments, query };
}
