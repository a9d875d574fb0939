import type { IncomingHttpHeaders } from 'node:http';
import { isCredentialHeader, isHopHeader, platformNameOf, unsendableHeader } from './headers.js';
import { SIGNATURE_CHECKS, type SignatureCheck } from './signature.js';
import type { ServiceNumber } from '../exact-json.js';

/**
 * One delivery as recorded (`listen --record FILE`, `deliveries tail
 * --record`, `deliveries diagnose --record`; read by `replay`), a JSON object
 * a line: when it arrived, the request as received (method, path, every
 * header, the raw body), the signature check then, and what was answered. The
 * body is `body` when its bytes are UTF-8 (a JSON payload, as a rule), else
 * `body_base64`, so that any bytes come back exactly. No secret is ever part
 * of a record.
 */
export interface RecordLine {
  whsvc_record: 1;
  received_at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  body_base64?: string;
  /** The signature check when it was received (read with recordedSignatureCheck: older files say `signature`). */
  signature_check: SignatureCheck;
  event: string | null;
  delivery_id: string | null;
  attempt: ServiceNumber | null;
  /** What listen answered. */
  answered: number;
}

/**
 * How every line of a record file begins, as whsvc writes it: `whsvc_record`
 * first. What tells a record file (and a line a kill cut short in one) from a
 * file of the user's that --record must not touch.
 */
export const RECORD_LINE_START = '{"whsvc_record":1,';

/** The words of record files written before `signature_check`, in their `signature` field. */
const EARLIER_WORDS: Record<string, SignatureCheck> = { ok: 'verified', bad: 'mismatch', unsigned: 'missing', unchecked: 'not_checked' };

/**
 * A record's signature check, from `signature_check`, or from the `signature`
 * of a file written before it (`ok`, `bad`, `unsigned`, `unchecked`); a
 * record that says neither was not checked.
 */
export function recordedSignatureCheck(record: object): SignatureCheck {
  const { signature_check: check, signature: earlier } = record as { signature_check?: unknown; signature?: unknown };
  if (SIGNATURE_CHECKS.includes(check as SignatureCheck)) return check as SignatureCheck;
  return (typeof earlier === 'string' && Object.hasOwn(EARLIER_WORDS, earlier) && EARLIER_WORDS[earlier]) || 'not_checked';
}

// ignoreBOM: a body's leading byte-order mark is part of the signed bytes, and is kept.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A request as a record's fields: every header but credentials (several values of one joined as Node joins them), the body kept exactly. */
export function recordedRequest(
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  /** The platform name the command was given, whose delivery headers are kept (withoutCredentials). */
  platformName?: string,
): Pick<RecordLine, 'method' | 'path' | 'headers' | 'body' | 'body_base64'> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(withoutCredentials(headers, platformName))) {
    if (value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let text: string | undefined;
  try {
    text = utf8.decode(body);
  } catch {
    text = undefined;
  }
  // The path without its query: a webhook URL may carry a token there, and a record never holds a secret.
  return { method, path: path.split('?')[0]!, headers: kept, ...(text !== undefined ? { body: text } : { body_base64: body.toString('base64') }) };
}

/**
 * Whether a request is a token request sent to a receiver by mistake (an API
 * command pointed at listen's port), whose body holds an OAuth client secret:
 * never recorded nor printed. A delivery whose signature verified is the
 * service's own payload, signed with the webhook's secret, whatever its fields
 * (an event about an OAuth client may well carry a top-level `client_secret`):
 * always kept. A token request is never signed so, and is told by its body.
 */
export function isMistakenTokenRequest(body: Buffer, signatureCheck: SignatureCheck): boolean {
  return signatureCheck !== 'verified' && carriesClientSecret(body);
}

/**
 * Whether a body is shaped as a token request: a JSON object (a BOM before it
 * or not), a form (its names percent-encoded or not) or a multipart form with
 * a `client_secret` field. A payload that merely mentions `client_secret` is
 * not.
 */
export function carriesClientSecret(body: Buffer): boolean {
  // A token request is a few hundred bytes: a large body is a delivery, never parsed here.
  if (body.length > 64 * 1024) return false;
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'client_secret');
  } catch {
    return new URLSearchParams(text.trim()).has('client_secret') || /\bname="?client_secret"?/i.test(text);
  }
}

/**
 * The headers of a request without those that carry credentials; its delivery headers are those of the platform name
 * the command was given (`--platform-name`), else of the one the request's own headers name (platformNameOf: listen).
 */
export function withoutCredentials(headers: IncomingHttpHeaders, platformName = platformNameOf(headers)): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !isCredentialHeader(name, platformName)));
}

/** The body's bytes, as they were received. */
export function recordedBody(record: RecordLine): Buffer {
  return record.body !== undefined ? Buffer.from(record.body, 'utf8') : Buffer.from(record.body_base64 ?? '', 'base64');
}

/**
 * The record on one line of a record file, or why it is not one: the fields
 * replay needs, each of its kind, and every header one that can be sent as it
 * stands (those of the hop, which are never sent, aside).
 */
export function parseRecordLine(line: string): RecordLine | { problem: string } {
  const problem = (why: string) => ({ problem: why });
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return problem('not JSON');
  }
  const record = value as Partial<RecordLine> | null;
  if (typeof record !== 'object' || record === null || record.whsvc_record !== 1) return problem('not a record (no "whsvc_record": 1)');
  if (typeof record.received_at !== 'string' || Number.isNaN(Date.parse(record.received_at))) return problem('no received_at time');
  if (typeof record.path !== 'string' || !record.path.startsWith('/')) return problem('no path (a string starting with /)');
  if (typeof record.headers !== 'object' || record.headers === null || Array.isArray(record.headers)) return problem('no headers object');
  for (const [name, value] of Object.entries(record.headers)) {
    if (typeof value !== 'string') return problem(`the header ${JSON.stringify(name)} is not a string`);
    const unsendable = isHopHeader(name) ? undefined : unsendableHeader(name, value);
    if (unsendable !== undefined) return problem(unsendable);
  }
  for (const field of ['event', 'delivery_id'] as const) {
    if (record[field] !== undefined && record[field] !== null && typeof record[field] !== 'string') return problem(`${field} is not a string`);
  }
  if (record.attempt !== undefined && record.attempt !== null && !Number.isInteger(record.attempt)) return problem('attempt is not a number');
  if (record.body !== undefined && typeof record.body !== 'string') return problem('body is not a string');
  if (record.body === undefined) {
    if (typeof record.body_base64 !== 'string') return problem('no body (body or body_base64)');
    if (!BASE64.test(record.body_base64)) return problem('body_base64 is not base64');
  }
  return record as RecordLine;
}

/** Base64 as Buffer's toString('base64') writes it, padded; Buffer.from would skip any other character silently. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
