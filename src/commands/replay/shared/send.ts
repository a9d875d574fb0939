import type { IncomingHttpHeaders } from 'node:http';
import type { Transport } from '../../../api/transport.js';
import { TransportError } from '../../../net.js';
import { DELIVERY_TIMEOUT_MS } from '../../../protocol/delivery.js';
import { isHopHeader } from '../../../protocol/headers.js';

/** What the app answered: its status, or null and why there was none. */
export interface SendResult {
  status: number | null;
  error?: string;
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
  /** The service's own limit unless --request-timeout says otherwise. */
  timeoutMs = DELIVERY_TIMEOUT_MS,
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
