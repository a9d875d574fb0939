import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { getToken, http } from '../helpers/http.js';

// The sandbox's API server against clients that hold connections: idle ones by the hundred, and one that sends its
// headers a byte at a time (slowloris). Its descriptors stay bounded, and a real API call is still answered.

let sandbox: Sandbox | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await sandbox?.close();
  sandbox = undefined;
});

async function started(bounds: { headersTimeoutMs: number; requestTimeoutMs: number; maxConnections: number }) {
  sandbox = createSandbox({ serverBounds: bounds });
  const base = await sandbox.listen(0, '127.0.0.1');
  return { base, url: new URL(base) };
}

/** A connection opened and left idle, once connected. */
async function idleConnection(url: URL): Promise<Socket> {
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  sockets.push(socket);
  await once(socket, 'connect');
  return socket;
}

const openConnections = (server: Sandbox['server']) =>
  new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

describe('the sandbox API server holds a bounded number of connections', () => {
  it('more idle connections than its bound: the oldest are closed to make room, and an API call is answered', async () => {
    const { base, url } = await started({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 8 });
    const idle: Socket[] = [];
    for (let i = 0; i < 40; i++) idle.push(await idleConnection(url));
    const client = sandbox!.clients[0]!;
    const token = await getToken(base, client.client_id, client.client_secret);
    const answer = await http(base, 'GET', '/v1/webhooks/webhook-events', { token });
    expect(answer.status).toBe(200);
    // The server holds no more than its bound: the 40 idle ones pushed out their own oldest, then the calls did.
    expect(await openConnections(sandbox!.server)).toBeLessThanOrEqual(8);
    await Promise.all(idle.slice(0, 30).map((socket) => (socket.closed ? undefined : once(socket, 'close'))));
  });

  it('a connection that sends nothing is closed once the headers limit passes', async () => {
    const { url } = await started({ headersTimeoutMs: 300, requestTimeoutMs: 1_000, maxConnections: 8 });
    const silent = await idleConnection(url);
    await once(silent, 'close');
    expect(silent.bytesRead).toBe(0);
  });

  it('a client sending its headers a byte at a time is answered 408 and closed once the headers limit passes', async () => {
    const { url } = await started({ headersTimeoutMs: 500, requestTimeoutMs: 1_000, maxConnections: 8 });
    const slow = await idleConnection(url);
    slow.write('GET /v1/webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const drip = setInterval(() => slow.writable && slow.write('X-A: b\r\n'), 100);
    let answer = '';
    slow.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await once(slow, 'close');
    clearInterval(drip);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"request_timeout"');
  });
});
