import { request, type Dispatcher } from 'undici';
import { TransportError, type Transport, type TransportRequest } from '../../src/api/transport.js';

/**
 * Codes of failures that happen before the request can have left this
 * process (no connection was made), so the service cannot have acted.
 */
const NOT_SENT: Record<string, string> = {
  ECONNREFUSED: 'ECONNREFUSED',
  ENOTFOUND: 'ENOTFOUND',
  EAI_AGAIN: 'EAI_AGAIN',
  EHOSTUNREACH: 'EHOSTUNREACH',
  ENETUNREACH: 'ENETUNREACH',
  EADDRNOTAVAIL: 'EADDRNOTAVAIL',
  UND_ERR_CONNECT_TIMEOUT: 'ETIMEDOUT',
};

/** Codes of failures once the connection was up: the request may have reached the service. */
const MAYBE_SENT: Record<string, string> = {
  ECONNRESET: 'ECONNRESET',
  EPIPE: 'EPIPE',
  ETIMEDOUT: 'ETIMEDOUT',
  UND_ERR_SOCKET: 'ECONNRESET',
  UND_ERR_CLOSED: 'ECONNRESET',
  UND_ERR_HEADERS_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_BODY_TIMEOUT: 'ETIMEDOUT',
};

function codeOf(error: unknown): string | undefined {
  const own = (error as { code?: unknown } | undefined)?.code;
  if (typeof own === 'string' && (own in NOT_SENT || own in MAYBE_SENT)) return own;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  if (typeof cause === 'string' && (cause in NOT_SENT || cause in MAYBE_SENT)) return cause;
  return typeof own === 'string' ? own : undefined;
}

/**
 * undici connection failures as the TransportError the client understands
 * (the same codes and `sent` meaning as nodeHttpTransport); anything else
 * (a MockAgent "not matched", a bad argument) is returned unchanged so that
 * it fails the test rather than looking like a network error.
 */
export function toTransportError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof TransportError) return error;
  const name = (error as { name?: unknown } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new TransportError(`no answer within ${timeoutMs / 1000} s`, 'ETIMEDOUT', true);
  }
  const code = codeOf(error);
  const message = (error as Error | undefined)?.message ?? String(error);
  if (code && code in NOT_SENT) return new TransportError(message, NOT_SENT[code]!, false);
  if (code && code in MAYBE_SENT) return new TransportError(message, MAYBE_SENT[code]!, true);
  return error;
}

export interface UndiciTransportOptions {
  /** Every request the client hands to the transport, in order (before it is sent). */
  record?: TransportRequest[];
}

/**
 * A Transport on undici's `request` with an explicit dispatcher, so that tests
 * pass a MockAgent (never the global dispatcher).
 */
export function undiciTransport(dispatcher: Dispatcher, options: UndiciTransportOptions = {}): Transport {
  return async (req) => {
    options.record?.push({ ...req, url: new URL(req.url.href), headers: { ...req.headers } });
    try {
      const response = await request(req.url, {
        dispatcher,
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body ?? null,
        signal: AbortSignal.timeout(req.timeoutMs),
      });
      const text = await response.body.text();
      return { status: response.statusCode, headers: { ...response.headers }, text };
    } catch (error) {
      throw toTransportError(error, req.timeoutMs);
    }
  };
}

/** An error like the ones undici raises when the peer resets the connection. */
export function resetError(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
}

/** An error like the ones undici raises when nothing listens on the port. */
export function refusedError(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });
}
