import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MOST_LIVE_STREAMS } from '../../src/sandbox/inspector/stream.js';
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

/** A connection that has sent `request` and whose request the server has begun to handle (its 'request' event). */
async function handledConnection(url: URL, request: string): Promise<Socket> {
  const handled = once(sandbox!.server, 'request');
  const socket = await idleConnection(url);
  socket.write(request);
  await handled;
  return socket;
}

/** The inspector's live stream, opened by hand, once its first event came; `ended` once the server ends it (its last chunk). */
async function liveStream(url: URL): Promise<{ socket: Socket; ended: Promise<void> }> {
  const socket = await idleConnection(url);
  let text = '';
  const seen = (what: string) => new Promise<void>((resolve) => socket.on('data', () => text.includes(what) && resolve()));
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const started = seen('event: change');
  const ended = seen('\r\n0\r\n\r\n');
  socket.write(`GET /_sandbox/inspector/api/stream HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
  await started;
  return { socket, ended };
}

/** A token, then the webhook event catalog: an API call as a client makes it, answered 200. */
async function apiCallAnswered(base: string): Promise<void> {
  const client = sandbox!.clients[0]!;
  const token = await getToken(base, client.client_id, client.client_secret);
  expect((await http(base, 'GET', '/v1/webhooks/webhook-events', { token })).status).toBe(200);
}

const closed = (socket: Socket) => (socket.closed ? Promise.resolve() : once(socket, 'close'));

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

  it('a connection that sends nothing is answered 408 and closed once the headers limit passes', async () => {
    const { url } = await started({ headersTimeoutMs: 300, requestTimeoutMs: 1_000, maxConnections: 8 });
    const silent = await idleConnection(url);
    let answer = '';
    silent.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await once(silent, 'close');
    expect(silent.bytesWritten).toBe(0);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a client that sends the start of its headers and then nothing is answered 408, not closed silently', async () => {
    const { url } = await started({ headersTimeoutMs: 300, requestTimeoutMs: 1_000, maxConnections: 8 });
    const stalled = await idleConnection(url);
    let answer = '';
    stalled.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    stalled.write('GET /v1/webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await once(stalled, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
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

  it('a request whose body is still coming may be closed to make room: bodies held unfinished block no API call', async () => {
    const { base, url } = await started({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 8 });
    // Its headers whole, its body declared 60,000 bytes and one sent: the request is handled, its body never whole.
    const unfinished = `POST /v1/oauth/token HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{`;
    const slow: Socket[] = [];
    for (let i = 0; i < 12; i++) slow.push(await handledConnection(url, unfinished));
    await apiCallAnswered(base);
    // The later ones and the calls pushed out the oldest.
    await Promise.all(slow.slice(0, 4).map(closed));
  });

  it(`at most ${MOST_LIVE_STREAMS} inspector live streams: past that the oldest is ended, and API calls keep their room`, async () => {
    const { base, url } = await started({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: MOST_LIVE_STREAMS + 4 });
    const streams = [];
    for (let i = 0; i < MOST_LIVE_STREAMS + 4; i++) streams.push(await liveStream(url));
    // Ended, not closed: the connections stay, kept alive, for the page's next request.
    await Promise.all(streams.slice(0, 4).map((stream) => stream.ended));
    await apiCallAnswered(base);
  });

  it('a live stream may be closed to make room, as an idle connection is: under the cap, streams block no API call', async () => {
    const { base, url } = await started({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 8 });
    const streams = [];
    for (let i = 0; i < 8; i++) streams.push(await liveStream(url));
    await apiCallAnswered(base);
    await closed(streams[0]!.socket);
  });
});
