import type { Dispatcher } from 'undici';
import { undiciTransport as clientTransport, type Transport, type TransportRequest } from '../../src/api/transport.js';

export interface UndiciTransportOptions {
  /** Every request the client hands to the transport, in order (before it is sent). */
  record?: TransportRequest[];
}

/**
 * The client's own transport with an explicit dispatcher, so that tests pass a MockAgent (never the global
 * dispatcher), recording what the client asks for.
 */
export function undiciTransport(dispatcher: Dispatcher, options: UndiciTransportOptions = {}): Transport {
  const send = clientTransport(dispatcher);
  return (req) => {
    options.record?.push({ ...req, url: new URL(req.url.href), headers: { ...req.headers } });
    return send(req);
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
