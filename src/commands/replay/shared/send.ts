import type { IncomingHttpHeaders } from 'node:http';
import type { Transport } from '../../../api/transport.js';
import { SENT_ON_TIMEOUT_MS } from '../../../cli/forward.js';
import { TransportError } from '../../../net.js';

/** What the app answered: its status, or null and why there was none. */
export interface SendResult {
  status: number | null;
  error?: string;
}

/**
 * Headers that describe the hop, not the delivery (RFC 9110, 7.6.1), and
 * those the HTTP client makes itself (`host`, `content-length`) or refuses
 * (`expect`: curl sends `Expect: 100-continue` with a large body). Never sent
 * on, whatever their case.
 */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
]);

export const isHopHeader = (name: string): boolean => HOP_HEADERS.has(name.toLowerCase());

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A header value is bytes, a character each: Node's server reads each byte of a header as one character (latin1),
// and undici writes each character back as one byte, so what listen received goes back byte for byte. Tab, printable
// ASCII and the bytes 0x80-0xFF are what HTTP allows (and undici sends).
const UNSENDABLE_IN_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Why a header cannot be sent as it stands, or undefined when it can. */
export function unsendableHeader(name: string, value: string): string | undefined {
  if (!TOKEN.test(name)) return `the header name ${JSON.stringify(name)} is not one HTTP allows (letters, digits and !#$%&'*+.^_\`|~-)`;
  const bad = UNSENDABLE_IN_VALUE.exec(value)?.[0];
  if (bad === undefined) return undefined;
  const code = bad.codePointAt(0)!;
  const shown = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code > 0xff
    ? `the header ${JSON.stringify(name)} holds ${shown}, which is not one byte: a recorded header value is bytes, one character each (U+0000 to U+00FF), as listen records them`
    : `the header ${JSON.stringify(name)} holds the control character ${shown}, which HTTP does not allow in a header`;
}

/**
 * A delivery sent on to an app as it was received (listen --forward-to, replay):
 * its body byte for byte, every header but those of the hop, to `target`, or,
 * when `target` has no path, to the path it was received at.
 */
export async function sendAsReceived(
  send: Transport,
  target: URL,
  headers: IncomingHttpHeaders | Record<string, string>,
  body: Buffer,
  path: string,
  timeoutMs = SENT_ON_TIMEOUT_MS,
): Promise<SendResult> {
  const url = new URL(target);
  if (path !== '/' && url.pathname === '/') url.pathname = path.split('?')[0]!;
  // fromEntries, not assignment: a header named __proto__ stays a header.
  const kept: Record<string, string> = Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined || isHopHeader(name) ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
  try {
    const answer = await send({ method: 'POST', url, headers: kept, body, timeoutMs });
    return { status: answer.status };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    return { status: null, error: error.message };
  }
}
