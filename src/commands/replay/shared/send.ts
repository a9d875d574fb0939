import type { IncomingHttpHeaders } from 'node:http';
import type { Transport } from '../../../api/transport.js';
import { SENT_ON_TIMEOUT_MS } from '../../../cli/forward.js';
import { TransportError } from '../../../net.js';

/** What the app answered: its status, or null and why there was none. */
export interface SendResult {
  status: number | null;
  error?: string;
}

/** Headers that describe the hop, not the delivery: the forward makes its own. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

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
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  try {
    const answer = await send({ method: 'POST', url, headers: kept, body, timeoutMs });
    return { status: answer.status };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    return { status: null, error: error.message };
  }
}
