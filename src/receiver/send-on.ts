import type { IncomingHttpHeaders } from 'node:http';
import type { Transport } from '../api/transport.js';
import { TransportError } from '../net.js';
import { ANSWER_HEAD_BYTES, DELIVERY_TIMEOUT_MS } from '../protocol/delivery.js';
import { isHopHeader } from '../protocol/headers.js';

/** What the app answered: its status (and its body), or null and why there was none. */
export interface SendResult {
  status: number | null;
  /** The head of the answer's body (its first ANSWER_HEAD_BYTES), when there was an answer. */
  body?: string;
  /** The answer went on past its head: the rest was not read. */
  cut?: boolean;
  /** Why there was no answer, in the words every command uses (`connection refused`, `no answer within 10 s`). */
  error?: string;
  /** With no answer: whether the request may have reached the app (false: refused, host not found, a TLS failure). */
  reached?: boolean;
  /** With no answer: its code (`ETIMEDOUT` when the time limit passed, `ECONNREFUSED`, …). */
  code?: string;
  /** The answer's WWW-Authenticate (its first SAID_HEADER_CHARS): a login asked for, by something in front of the app. */
  authenticate?: string;
  /** The answer's Location (its first SAID_HEADER_CHARS): where a redirect sends the sender, a login page perhaps. */
  location?: string;
}

/** How much of a header of the answer's is kept: enough to name a login or where a redirect goes. */
export const SAID_HEADER_CHARS = 200;

/** An answer's header, its values joined, its first SAID_HEADER_CHARS; undefined when it has none. */
function said(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined || text === '' ? undefined : text.slice(0, SAID_HEADER_CHARS);
}

/** Where a delivery received at `path` is sent on to: `target`, or, when `target` has no path, `target` at that path (its query left out). */
export function sendOnUrl(target: URL, path: string): URL {
  const url = new URL(target);
  if (path !== '/' && url.pathname === '/') url.pathname = path.split('?')[0]!;
  return url;
}

/**
 * A delivery sent on to an app as it was received (listen --forward-to, replay):
 * its body byte for byte, every header but those of the hop, to `target`, or,
 * when `target` has no path, to the path it was received at. Of the answer only
 * its head is read, as the sandbox's log keeps it: its status stands.
 */
export async function sendAsReceived(
  send: Transport,
  target: URL,
  headers: IncomingHttpHeaders | Record<string, string>,
  body: Buffer,
  path: string,
  /** The service's own limit unless --request-timeout says otherwise. */
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<SendResult> {
  const url = sendOnUrl(target, path);
  // fromEntries, not assignment: a header named __proto__ stays a header.
  const kept: Record<string, string> = Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined || isHopHeader(name) ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
  try {
    const answer = await send({ method: 'POST', url, headers: kept, body, timeoutMs, bodyLimit: ANSWER_HEAD_BYTES });
    const [authenticate, location] = [said(answer.headers, 'www-authenticate'), said(answer.headers, 'location')];
    return {
      status: answer.status,
      body: answer.text,
      cut: answer.cut === true,
      ...(authenticate === undefined ? {} : { authenticate }),
      ...(location === undefined ? {} : { location }),
    };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    return { status: null, error: error.message, reached: error.sent, code: error.code };
  }
}
