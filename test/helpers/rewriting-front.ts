import { createServer, type Server } from 'node:http';

// A service in front of the sandbox that changes its answers: what a service shaped otherwise than the sandbox (no
// next_attempt_at, no delivery_id) or a hostile one (a create answered with another URL) gives whsvc. Every request is
// passed on as it came; `rewrite` changes the JSON of an answer that succeeded before it is sent back.

export interface RewritingFront {
  url: string;
  close(): Promise<void>;
}

/**
 * `rewrite(method, path, body)` changes a successful JSON answer in place; `answerFirst(method, path)`, when it gives
 * an answer, is sent back in place of the service's (a hostile service's own); the rest passes as it came.
 */
export async function startRewritingFront(
  target: string,
  rewrite: (method: string, path: string, body: Record<string, unknown>) => void,
  answerFirst: (method: string, path: string) => { status: number; body: unknown } | undefined = () => undefined,
): Promise<RewritingFront> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url!, 'http://front').pathname;
    const own = answerFirst(req.method!, path);
    if (own) {
      res.writeHead(own.status, { 'content-type': 'application/json' }).end(JSON.stringify(own.body));
      return;
    }
    const headers = { ...req.headers } as Record<string, string>;
    delete headers.host;
    delete headers['content-length'];
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      body: ['GET', 'HEAD'].includes(req.method!) ? undefined : Buffer.concat(chunks),
    });
    let text = await upstream.text();
    if (upstream.ok && text.startsWith('{')) {
      const body = JSON.parse(text) as Record<string, unknown>;
      rewrite(req.method!, path, body);
      text = JSON.stringify(body);
    }
    const date = upstream.headers.get('date') ?? new Date().toUTCString();
    res
      .writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json', date })
      .end(upstream.status === 204 ? undefined : text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
