import type { IncomingMessage, ServerResponse } from 'node:http';

/** An API error as the sandbox answers it: `{ "error": { "code", "message" } }`. */
export class ApiError extends Error {
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

export const badRequest = (code: string, message: string) => new ApiError(400, code, message);
export const notFound = (what: string, id: string) => new ApiError(404, 'not_found', `no ${what} with id ${id}`);

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

export function sendApiError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, { error: { code: error.code, message: error.message, ...error.extra } }, error.headers);
}

/** The client went away before its request was whole: nobody to answer, nothing of ours to report. */
export class ClientGone extends Error {}

/** The raw request body, refused with 413 past MAX_BODY_BYTES (after the rest of it is read and dropped: see discardRest). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    await discardRest(req);
    throw tooLarge();
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      stop();
      void discardRest(req).then(() => reject(tooLarge()));
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onGone = (error?: Error) => {
      stop();
      reject(new ClientGone(error?.message ?? 'aborted'));
    };
    const onClose = () => {
      if (!req.readableEnded) onGone();
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onGone);
    req.once('close', onClose);
  });
}

/** What is read and dropped of a refused body before the answer, at most (nginx's lingering close, bounded the same way). */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 5_000;

/**
 * Reads and drops the rest of a body too large to take, for a bounded size
 * and time, before the 413 goes out and the connection closes: a client that
 * sends its whole body before reading (Python's urllib, for one) then reads
 * the answer, where closing with its data unread would reset the connection.
 */
function discardRest(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let dropped = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) done();
    };
    const timer = setTimeout(done, LINGER_MS);
    req.on('data', onData);
    req.once('end', done);
    req.once('error', done);
    req.once('close', done);
    req.resume();
  });
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
    throw new ApiError(415, 'unsupported_media_type', `the body must be JSON sent as Content-Type: application/json (got ${sent})`);
  }
  return parseJsonObject(text, optional);
}

function tooLarge(): ApiError {
  return new ApiError(413, 'payload_too_large', `request body is larger than ${MAX_BODY_BYTES} bytes`, {
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
