import { closeSync, constants, fchmodSync, openSync, writeSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { CliError, ExitCode, usageError } from '../../../cli/errors.js';

/**
 * One delivery as recorded (`listen --record FILE`), a JSON object a line:
 * when it arrived, the request as received (method, path, every header, the
 * raw body), what listen made of it and what it answered. The body is `body`
 * when its bytes are UTF-8 (a JSON payload, as a rule), else `body_base64`,
 * so that any bytes come back exactly. No secret is ever part of a record.
 */
export interface RecordedDelivery {
  whsvc_record: 1;
  received_at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  body_base64?: string;
  signature: 'ok' | 'bad' | 'unsigned' | 'unchecked';
  event: string | null;
  delivery_id: string | null;
  attempt: number | null;
  /** What listen answered. */
  answered: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Headers that carry credentials, never kept in a record (a delivery has none; a request sent here by mistake may). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** A request as a record's fields: every header but credentials (several values of one joined as Node joins them), the body kept exactly. */
export function recordedRequest(
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
): Pick<RecordedDelivery, 'method' | 'path' | 'headers' | 'body' | 'body_base64'> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !CREDENTIAL_HEADERS.has(name)) kept[name] = Array.isArray(value) ? value.join(', ') : value;
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

/** Whether a body holds an OAuth client secret (a token request, as `client_secret` in JSON or a form): never recorded. */
export function carriesClientSecret(body: Buffer): boolean {
  return body.includes('client_secret');
}

/** The body's bytes, as they were received. */
export function recordedBody(record: RecordedDelivery): Buffer {
  return record.body !== undefined ? Buffer.from(record.body, 'utf8') : Buffer.from(record.body_base64 ?? '', 'base64');
}

/** The records of a file's text; a line that is not one is a usage error naming its line number (nothing is sent then). */
export function parseRecords(text: string, file: string): RecordedDelivery[] {
  const records: RecordedDelivery[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const problem = (why: string) =>
      usageError(`${file}:${index + 1}: ${why}`, 'a record file holds one JSON object a line, as `whsvc listen --record FILE` writes it');
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw problem('not JSON');
    }
    const record = value as Partial<RecordedDelivery> | null;
    if (typeof record !== 'object' || record === null || record.whsvc_record !== 1) throw problem('not a record (no "whsvc_record": 1)');
    if (typeof record.received_at !== 'string' || Number.isNaN(Date.parse(record.received_at))) throw problem('no received_at time');
    if (typeof record.path !== 'string' || !record.path.startsWith('/')) throw problem('no path (a string starting with /)');
    if (typeof record.headers !== 'object' || record.headers === null || Array.isArray(record.headers)) throw problem('no headers object');
    for (const [name, value] of Object.entries(record.headers)) {
      if (typeof value !== 'string' || /[\r\n]/.test(value)) throw problem(`the header ${JSON.stringify(name)} is not one line of text`);
    }
    if (record.attempt !== undefined && record.attempt !== null && !Number.isInteger(record.attempt)) throw problem('attempt is not a number');
    if (typeof record.body !== 'string' && typeof record.body_base64 !== 'string') throw problem('no body (body or body_base64)');
    records.push(record as RecordedDelivery);
  });
  return records;
}

/**
 * A record file open for appending: created with mode 0600 (payloads hold
 * business data), each record written whole as it comes, so that a process
 * killed mid-run loses at most the line in flight.
 */
export class RecordFile {
  private readonly fd: number;

  constructor(readonly path: string) {
    if (path.trim() === '') throw usageError('--record is empty: give the path of the file to record to');
    try {
      this.fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
      fchmodSync(this.fd, 0o600);
    } catch (error) {
      throw new CliError(`--record ${path}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, ExitCode.usage);
    }
  }

  private closed = false;

  append(record: RecordedDelivery): void {
    if (!this.closed) writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
