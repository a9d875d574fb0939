import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's bytes, exactly as they came. */
  bytes: Buffer;
  receivedAt: number;
}

/**
 * What the receiver does with a request: answers with a status (and a body,
 * headers, after a delay when given), or holds it unanswered until the test
 * calls release() (an endpoint that hangs, or a delivery kept in flight), or
 * ('stall-body') sends its status line, headers and a first part of the body,
 * then stalls until release() ends it.
 */
export type Answer = number | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hold' | 'stall-body';

export interface Receiver {
  url: string;
  received: Received[];
  /** How many requests to each path have been answered (held ones once released). */
  answered: Map<string, number>;
  /** What the next request gets; change it between steps of a test. */
  respondWith: (request: Received) => Answer;
  /** How long each answer waits (a slow endpoint), without blocking the test's event loop. */
  answerDelayMs: number;
  /** Resolves once `count` requests (to `path`, when given) have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number, path?: string): Promise<Received[]>;
  /** How many requests are held, unanswered. */
  held(): number;
  /** Answers every held request with `status`, and ends every stalled body. */
  release(status?: number): void;
  close(): Promise<void>;
}

const DEFAULT_BODY = 'answer from the test receiver';

/** A real webhook receiver on 127.0.0.1, port 0, recording every request. */
export async function startReceiver(respondWith: (request: Received) => Answer = () => 200): Promise<Receiver> {
  const waiters: Array<() => void> = [];
  const held: Array<{ request: Received; res: ServerResponse }> = [];
  const stalled: ServerResponse[] = [];
  const answer = (request: Received, res: ServerResponse, status: number, body = DEFAULT_BODY, headers: Record<string, string> = {}) => {
    res.writeHead(status, headers).end(body);
    receiver.answered.set(request.path, (receiver.answered.get(request.path) ?? 0) + 1);
  };
  const receiver: Receiver = {
    url: '',
    received: [],
    answered: new Map(),
    respondWith,
    answerDelayMs: 0,
    waitFor(count, timeoutMs = 20_000, path) {
      const matching = () => receiver.received.filter((r) => path === undefined || r.path === path);
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (matching().length >= count) {
            clearTimeout(timer);
            resolve(matching().slice(0, count));
            return true;
          }
          waiters.push(() => void check());
          return false;
        };
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${matching().length} of ${count} requests${path ? ` to ${path}` : ''} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        check();
      });
    },
    held: () => held.length,
    release(status = 200) {
      for (const { request, res } of held.splice(0)) answer(request, res, status);
      for (const res of stalled.splice(0)) res.end();
    },
    close: () =>
      new Promise((resolve) => {
        held.splice(0);
        stalled.splice(0);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const request: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: bytes.toString('utf8'),
        bytes,
        receivedAt: Date.now(),
      };
      receiver.received.push(request);
      const decided = receiver.respondWith(request);
      if (decided === 'hold') {
        held.push({ request, res });
      } else if (decided === 'stall-body') {
        res.writeHead(200, { 'content-type': 'text/plain' }).write('a first part, and the rest never comes');
        stalled.push(res);
      } else {
        const { status, body, headers, delayMs } = typeof decided === 'number' ? { status: decided } : decided;
        const delay = delayMs ?? receiver.answerDelayMs;
        if (delay > 0) setTimeout(() => answer(request, res, status, body, headers), delay);
        else answer(request, res, status, body, headers);
      }
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 1024, resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
