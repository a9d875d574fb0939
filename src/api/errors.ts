import { bytesText } from '../render/words.js';

/** The service answered with an error status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    /** The scope a 403 says is missing, when the body names it. */
    readonly requiredScope?: string,
    /** What to do about it: for a 404, where to find the right id (the endpoint's, api/endpoints.ts). */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A 2xx that went on past the most whsvc reads: a head of it would be read wrong. (An error's message is read from its head.) */
export const tooLarge = (answer: { status: number; cut?: boolean | undefined }): boolean => answer.cut === true && answer.status >= 200 && answer.status < 300;

/** The error of a 2xx that went on past `limit`, the most whsvc reads of an answer (--max-answer-size): nothing of it is used. */
export function answerTooLarge(method: string, path: string, status: number, limit: number): ApiError {
  return new ApiError(
    status,
    'answer_too_large',
    `the answer to ${method} ${path} is longer than ${bytesText(limit)}, the most whsvc reads: --max-answer-size (or WHSVC_MAX_ANSWER_SIZE) raises it`,
  );
}

/** No answer: refused, reset, unknown host, timed out. `mayHaveActed` is set when the request could have reached the service. */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly host: string,
    readonly mayHaveActed: boolean,
    /** The proxy that could not be reached, when it was the proxy (credentials left out). */
    readonly proxy?: string,
  ) {
    super(message);
  }
}

/**
 * Whether a request that failed may have been acted on all the same: sent and never answered (a reset, a timeout),
 * or answered 5xx (a gateway's, after the service acted) or 429 (the interface does not say that one acts on nothing).
 */
export function mayHaveActed(error: unknown): boolean {
  if (error instanceof NetworkError) return error.mayHaveActed;
  // A 2xx whose answer could not be read (too large, not JSON, not the shape asked for): the service acted.
  return error instanceof ApiError && (error.status >= 500 || error.status === 429 || (error.status >= 200 && error.status < 300));
}

/** A request given up before it was sent, because the command was told to stop while it waited (Retry-After). */
export class RequestStopped extends Error {
  constructor() {
    super('stopped before it was sent');
  }
}

/** Credentials missing, or refused by the service (`status` is the HTTP status when it answered). */
export class AuthError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
    /** What to do about it, when it is more than logging in. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

const HTML_TAG = /<[^>]*>/g;
// eslint-disable-next-line no-control-regex
const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f-\u009f\s]+/g;

/** One printable line: a server's text never spans lines nor drives the terminal. */
const oneLine = (text: string) => text.replace(CONTROL_OR_SPACE, ' ').trim();

/**
 * What an error answer says, one printable line each. `mask` hides the secrets in force (api/redact.ts SecretMask) in
 * the body as it came, before a cut could leave part of one, and in what is read from it, which JSON may have escaped.
 */
export function describeErrorBody(
  text: string,
  contentType = '',
  mask: (text: string) => string = (same) => same,
): { code?: string; message?: string; requiredScope?: string } {
  const described = describeRaw(mask(text), contentType);
  return Object.fromEntries(
    Object.entries(described)
      .map(([key, value]) => [key, mask(oneLine(value as string))])
      .filter(([, value]) => value !== ''),
  ) as typeof described;
}

/**
 * The message and code of an error body of any shape: JSON with message,
 * error (string or object), error_description, detail or title; plain text;
 * or HTML reduced to its title or first line of text.
 */
function describeRaw(text: string, contentType: string): { code?: string; message?: string; requiredScope?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (contentType.includes('json') || trimmed.startsWith('{')) {
    try {
      const body = JSON.parse(trimmed) as Record<string, unknown>;
      const nested = typeof body.error === 'object' && body.error !== null ? (body.error as Record<string, unknown>) : undefined;
      const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
      const message =
        str(nested?.message) ??
        str(body.message) ??
        str(body.error_description) ??
        str(body.detail) ??
        str(body.title) ??
        str(nested?.description) ??
        str(body.error);
      const code = str(nested?.code) ?? (typeof body.error === 'string' ? body.error : undefined) ?? str(body.code);
      const requiredScope = str(nested?.required_scope) ?? str(body.required_scope) ?? str(body.scope);
      return {
        ...(code ? { code } : {}),
        ...(message ? { message } : {}),
        ...(requiredScope ? { requiredScope } : {}),
      };
    } catch {
      // not JSON after all: fall through to text
    }
  }
  if (contentType.includes('html') || /^<(!doctype|html)/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1]?.trim();
    const firstText = trimmed
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(HTML_TAG, '\n')
      .split('\n')
      .map((line) => line.trim())
      .find(Boolean);
    const message = title || firstText;
    return message ? { message: message.slice(0, 200) } : {};
  }
  const firstLine = trimmed.split('\n')[0]!.trim();
  return { message: firstLine.slice(0, 200) };
}
