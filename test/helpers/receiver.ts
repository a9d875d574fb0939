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
  /** Resolves once `count` requests (to `path`, or those `path` takes, when given) have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number, path?: string | ((request: Received) => boolean)): Promise<Received[]>;
  /** How many requests are held, unanswered. */
  held(): number;
  /** Answers every held request (with `answer`: 200 by default), and ends every stalled body; with `which`, only the held requests it takes. */
  release(answer?: number | { status: number; body?: string; headers?: Record<string, string> }, which?: (request: Received) => boolean): void;
  close(): Promise<void>;
}

const DEFAULT_BODY = 'answer from the test receiver';

/** The receivers not closed yet, so that those a failed test left open are closed when its file ends. */
const open = new Set<Receiver>();

/** Closes every receiver still open: test/e2e-setup.ts does, after each file. */
export async function closeLeftoverReceivers(): Promise<void> {
  await Promise.all([...open].map((receiver) => receiver.close()));
}

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
      const takes = typeof path === 'function' ? path : (r: Received) => path === undefined || r.path === path;
      const matching = () => receiver.received.filter(takes);
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
          () =>
            reject(new Error(`receiver got ${matching().length} of ${count} requests${typeof path === 'string' ? ` to ${path}` : ''} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        check();
      });
    },
    held: () => held.length,
    release(given = 200, which) {
      const { status, body, headers } = typeof given === 'number' ? { status: given } : given;
      const taken = which === undefined ? held.splice(0) : held.filter(({ request }) => which(request));
      for (const entry of taken) {
        if (which !== undefined) held.splice(held.indexOf(entry), 1);
        answer(entry.request, entry.res, status, body, headers);
      }
      if (which === undefined) for (const res of stalled.splice(0)) res.end();
    },
    close: () =>
      new Promise((resolve) => {
        open.delete(receiver);
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
  open.add(receiver);
  return receiver;
}
