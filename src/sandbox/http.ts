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

/** The raw request body, refused with 413 past MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(): ApiError {
  return new ApiError(413, 'payload_too_large', `request body is larger than ${MAX_BODY_BYTES} bytes`, {
    connection: 'close',
  });
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
  return value as Record<string, unknown>;
}
