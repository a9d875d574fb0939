import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A hostile server on 127.0.0.1: it answers every request with a status and a body that goes on
// for `total` bytes, written chunk by chunk as the reader takes them (never built whole in memory),
// and counts what it wrote before the reader hung up. With `token`, it first hands out an access
// token, as a service would, so that an API command gets as far as its request.

export interface EndlessOptions {
  status?: number;
  /** Bytes of body per answer; the reader is expected to hang up long before. */
  total: number;
  contentType?: string;
  /** Answer POST /v1/oauth/token with a token (the service's token endpoint), the rest with the endless body. */
  token?: boolean;
}

export interface EndlessServer {
  url: string;
  /** Bytes of endless body written so far, every answer together. */
  written(): number;
  /** Answers whose reader hung up before the body ended. */
  cutOff(): number;
  /** Resolves once `count` answers were cut off by their reader. */
  untilCutOff(count?: number): Promise<void>;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 'a');

export async function startEndlessServer(options: EndlessOptions): Promise<EndlessServer> {
  let written = 0;
  let cutOff = 0;
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    if (options.token && req.url === '/v1/oauth/token') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'tok_endless', token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    res.writeHead(options.status ?? 200, { 'content-type': options.contentType ?? 'application/json' });
    let left = options.total;
    const pump = () => {
      while (left > 0) {
        const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
        left -= chunk.length;
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => {
      if (res.writableFinished) return;
      cutOff += 1;
      for (const wake of waiters.splice(0)) wake();
    });
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    cutOff: () => cutOff,
    untilCutOff(count = 1) {
      return new Promise((resolve) => {
        const check = () => (cutOff >= count ? resolve() : waiters.push(check));
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
