import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { listenError } from '../cli/errors.js';
import { httpUrl } from '../net.js';
import { defaultMaxConnections } from '../open-files.js';
import { boundedServer, type ConnectionBound, type ConnectionBounds } from '../bounded-server.js';
import { DELIVERY_TIMEOUT_MS, LARGEST_PAYLOAD_BYTES } from '../protocol/delivery.js';
import { ClientGone, discardRest, TOO_LARGE } from '../request-body.js';
import { bytesText } from '../render/words.js';

/**
 * What listen takes of its senders (docs/commands.md says each): a stranger
 * on the port, or a flood of them, costs it a bounded memory and a bounded
 * number of connections, and real deliveries keep coming in.
 */
export interface ReceiverBounds extends ConnectionBounds {
  /** A request body past this is refused with 413 and not kept. */
  maxBodyBytes: number;
}

/** 16 times the largest payload the service sends: room for any delivery, and for `send --data` of a large one. */
export const MAX_BODY_BYTES = 16 * LARGEST_PAYLOAD_BYTES;

/** The bounds when no test sets others: headers within the service's own limit for an answer (a sender still sending them then has given up). */
export function receiverBounds(fileLimit?: number): ReceiverBounds {
  return {
    maxBodyBytes: MAX_BODY_BYTES,
    headersTimeoutMs: DELIVERY_TIMEOUT_MS,
    requestTimeoutMs: 3 * DELIVERY_TIMEOUT_MS,
    maxConnections: defaultMaxConnections(fileLimit),
  };
}

/** What the bounds stopped: a body too large, a sender too slow, a connection closed to make room. */
export type Stopped = 'too_large' | 'too_slow' | 'shed';

/** A request and its body: `arrivedAt` on the service's clock (the line's time), `startedAt` as performance.now() had it when the request came. */
export type Receive = (req: IncomingMessage, res: ServerResponse, body: Buffer, arrivedAt: Date, startedAt: number) => Promise<void>;

export interface ServeHooks {
  /** A request `receive` could not handle, answered 500. */
  onFailure(error: unknown): void;
  /** A request or a connection the bounds stopped. */
  onStopped(what: Stopped): void;
}

/**
 * The HTTP server around `receive`, listening on `host` and `port`, within
 * `bounds`. stop(): no new request; those under way (an answer that waits out
 * --delay, a forward) are answered and recorded first.
 */
export async function serveRequests(
  receive: Receive,
  where: { host: string; port: number },
  bounds: ReceiverBounds,
  now: () => Date,
  hooks: ServeHooks,
): Promise<{ url: string; stop(): Promise<void> }> {
  const inFlight = new Set<Promise<void>>();
  const { server, connections } = boundedServer(bounds, () => hooks.onStopped('shed'));
  const handle = requestHandler(receive, bounds, now, hooks, { connections, inFlight });
  server.on('request', handle);
  // A sender that asks before it sends its body (Expect: 100-continue, as curl does with a large one) is told at once
  // when the body it declares is too large, and sends none of it. One that declares no length (chunked) is told to go
  // on: the body's reader holds it to the limit as it comes.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const declared = req.headers['content-length'];
    if (declared === undefined || Number(declared) <= bounds.maxBodyBytes) {
      res.writeContinue();
      handle(req, res);
      return;
    }
    hooks.onStopped('too_large');
    refuseTooLarge(res, bounds.maxBodyBytes);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') hooks.onStopped('too_slow');
    answerUnreadable(error, socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, where.host, where.port)));
    server.listen(where.port, where.host, resolve);
  });
  return {
    url: httpUrl(server.address() as AddressInfo),
    async stop() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      await Promise.allSettled(inFlight);
      server.closeAllConnections();
      await closed;
    },
  };
}

/** What listen does with each request: its body read within the bounds, then `receive`d, and its handling kept in `inFlight` until it ends. */
function requestHandler(
  receive: Receive,
  bounds: ReceiverBounds,
  now: () => Date,
  hooks: ServeHooks,
  held: { connections: ConnectionBound; inFlight: Set<Promise<void>> },
): (req: IncomingMessage, res: ServerResponse) => void {
  const { connections, inFlight } = held;
  return (req, res) => {
    // The sender's limit runs from its request, not from the end of its body: a slow upload is time it has spent.
    const startedAt = performance.now();
    connections.wholeRequest(req, res, bounds.maxBodyBytes).then(
      (body) => {
        if (body === TOO_LARGE) {
          hooks.onStopped('too_large');
          refuseTooLarge(res, bounds.maxBodyBytes, req);
          return;
        }
        // Each request's handling is kept until it ends: listen stops only once every answer is given and recorded.
        const handled = receive(req, res, body, now(), startedAt)
          .catch((error: unknown) => {
            // A request listen could not handle (a body too large to record, say): answered 500, said in one line.
            if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('listen could not handle this request\n');
            else res.end();
            hooks.onFailure(error);
          })
          .finally(() => inFlight.delete(handled));
        inFlight.add(handled);
      },
      // The sender left before its body was whole: nobody to answer.
      (error: unknown) => {
        if (!(error instanceof ClientGone)) hooks.onFailure(error);
      },
    );
  };
}

/**
 * Answers a body too large 413 at once, whole (a sender reading as it sends
 * stops there), and closes the connection. A body on its way (`sent`) is read
 * and dropped first, for a bounded size and time, so that a sender that reads
 * only once it has sent it all gets to read the answer; nothing past that is
 * read.
 */
function refuseTooLarge(res: ServerResponse, limit: number, sent?: IncomingMessage): void {
  const text = `listen takes request bodies of at most ${bytesText(limit)}\n`;
  res.writeHead(413, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text), connection: 'close' });
  if (sent === undefined) return void res.end(text);
  res.write(text);
  void discardRest(sent).then(() => res.end());
}

/** The status line of a request node:http could not read whole, as node:http answers it by default; 400 for the rest. */
const UNREADABLE: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
};

/** Answers a request node:http could not read whole (what it does when no one listens for clientError), then closes. */
function answerUnreadable(error: NodeJS.ErrnoException, socket: Duplex): void {
  const status = UNREADABLE[error.code ?? ''] ?? '400 Bad Request';
  if (socket.writable && (socket as Socket).bytesWritten === 0) socket.write(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
  socket.destroy();
}
