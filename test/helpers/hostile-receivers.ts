import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';

/** The ways a receiver breaks HTTP in its answer. */
export type Breakage =
  | 'headers over 16 KiB'
  | 'not HTTP'
  | 'a body shorter than its Content-Length'
  | 'a reset mid-answer'
  | 'a bad chunk size'
  | 'status line 000'
  | 'status line 099'
  | 'status line 600';

/** What each writes once the request is whole; `a reset mid-answer` writes the head and a part, then waits for resetHeld(). */
const ANSWERS: Record<Exclude<Breakage, 'a reset mid-answer'>, string> = {
  'headers over 16 KiB': `HTTP/1.1 200 OK\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\nContent-Length: 0\r\n\r\n`,
  'not HTTP': 'SSH-2.0-OpenSSH_9.6\r\n',
  'a body shorter than its Content-Length': 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this',
  'a bad chunk size': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
  'status line 000': 'HTTP/1.1 000 OK\r\nContent-Length: 0\r\n\r\n',
  'status line 099': 'HTTP/1.1 099 OK\r\nContent-Length: 0\r\n\r\n',
  'status line 600': 'HTTP/1.1 600 OK\r\nContent-Length: 0\r\n\r\n',
};

export interface HostileReceiver {
  url: string;
  /** Requests read whole, each answered as the breakage says. */
  requests: number;
  /** Resets the connections of `a reset mid-answer` whose answer has begun. */
  resetHeld(): void;
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1, port 0, that reads each request whole, then answers it with its breakage, one request a connection. */
export async function startHostileReceiver(breakage: Breakage): Promise<HostileReceiver> {
  const held: Socket[] = [];
  const sockets = new Set<Socket>();
  const receiver: HostileReceiver = {
    url: '',
    requests: 0,
    resetHeld: () => {
      for (const socket of held.splice(0)) socket.resetAndDestroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const answer = (socket: Socket) => {
    receiver.requests += 1;
    if (breakage !== 'a reset mid-answer') {
      socket.end(ANSWERS[breakage]);
      return;
    }
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart');
    held.push(socket);
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let request = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      request = Buffer.concat([request, chunk]);
      const headEnd = request.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(request.subarray(0, headEnd).toString('latin1'))?.[1] ?? 0);
      if (request.length < headEnd + 4 + length) return;
      socket.removeAllListeners('data');
      answer(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/**
 * `dispatcher`, telling `onHead` each time an answer's status and headers have been read: the moment to reset a
 * connection in the middle of its answer, known to be there rather than guessed with a sleep.
 */
export function tellingAnswerHeads(dispatcher: Dispatcher, onHead: () => void): Dispatcher {
  return dispatcher.compose(
    (dispatch) => (options, handler) =>
      dispatch(
        options,
        new Proxy(handler, {
          get(target, name) {
            const value = Reflect.get(target, name) as unknown;
            if (name !== 'onResponseStart' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
            return (...args: unknown[]) => {
              value.apply(target, args);
              onHead();
            };
          },
        }),
      ),
  );
}
