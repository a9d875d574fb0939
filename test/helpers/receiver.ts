import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's bytes, exactly as they came. */
  bytes: Buffer;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next request gets; change it between steps of a test. */
  respondWith: (request: Received) => number;
  /** How long each answer waits (a slow endpoint), without blocking the test's event loop. */
  answerDelayMs: number;
  /** Resolves once `count` requests (to `path`, when given) have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number, path?: string): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real webhook receiver on 127.0.0.1, port 0, recording every request. */
export async function startReceiver(respondWith: (request: Received) => number = () => 200): Promise<Receiver> {
  const waiters: Array<() => void> = [];
  const receiver: Receiver = {
    url: '',
    received: [],
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
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const request: Received = { path: req.url ?? '', headers: req.headers, body: bytes.toString('utf8'), bytes, receivedAt: Date.now() };
      receiver.received.push(request);
      const answer = () => {
        res.statusCode = receiver.respondWith(request);
        res.end('answer from the test receiver');
      };
      if (receiver.answerDelayMs > 0) setTimeout(answer, receiver.answerDelayMs);
      else answer();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
