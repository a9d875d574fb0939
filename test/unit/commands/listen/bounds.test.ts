import { request } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, receiverBounds } from '../../../../src/receiver/server.js';
import { postDelivery, signatureOf } from '../../../helpers/delivery.js';
import { connectionSending, slowConnection, streamBody } from '../../../helpers/hostile-senders.js';
import { type InProcessListen, listenInProcess } from '../../../helpers/listen.js';

// listen against hostile senders of the test's own on 127.0.0.1: what it takes of them is bounded, said once, and real
// deliveries keep coming in.

const SECRET = 'whsec_listen_bounds_test';
const MiB = 1024 * 1024;

/** listen's lines on stderr that hold `words`; never its ready line, whose port may hold them (`:41305` holds 413). */
const saying = (listen: InProcessListen, words: string) =>
  listen.stderr.text.split('\n').filter((line) => line.includes(words) && !line.startsWith('whsvc listen: ready at '));

describe('a body over the limit', () => {
  it.each([
    ['streamed with no length', false],
    ['declaring its length', true],
  ])('%s is answered 413, and listen stops reading it: said once, counted at the end; deliveries go on', async (_kind, declared) => {
    const listen = await listenInProcess({ secret: SECRET });
    // 256 MiB offered each time: listen reads at most its limit and the 16 MiB it drops so the sender can read the 413.
    for (const _ of [1, 2]) {
      const sent = await streamBody(listen.url, 256 * MiB, { declared });
      expect(sent.status).toBe(413);
      expect(sent.written).toBeLessThan(64 * MiB);
    }
    expect((await postDelivery(listen.url, SECRET, 'dlv_after')).status).toBe(200);
    await listen.stop();
    expect(saying(listen, '413')).toEqual([
      'whsvc listen: a request body over 1 MiB, the most listen takes (the service sends at most 64 KiB), answered 413 and not read on; more are counted at the end',
      'whsvc listen: 2 request bodies over 1 MiB refused (413)',
    ]);
    expect(listen.receipts().map((r) => r.delivery_id)).toEqual(['dlv_after']);
  });

  it('a sender that asks first (Expect: 100-continue) is told 413 at once, before it sends any of a body over the limit', async () => {
    const listen = await listenInProcess({ secret: SECRET });
    const asking = await connectionSending(listen.url, 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 1500000000\r\n\r\n');
    expect(await asking.closed).toMatch(/^HTTP\/1\.1 413 /);
    await listen.stop();
    expect(listen.stderr.text).toContain('whsvc listen: 1 request body over 1 MiB refused (413)\n');
  });

  it.each([
    ['under the limit is told to go on, and taken', 64 * 1024, 200],
    ['over the limit is told to go on, then answered 413 once past it', 2 * MiB, 413],
  ])('a chunked body that asks first (Expect: 100-continue, no length declared) %s', async (_kind, size, status) => {
    const listen = await listenInProcess({ secret: SECRET });
    const empty = JSON.stringify({ event: 'invoice.paid', memo: '' });
    const body = JSON.stringify({ event: 'invoice.paid', memo: 'x'.repeat(size - empty.length) });
    expect(await chunkedAskingFirst(listen.url, body, 'dlv_chunked')).toEqual({ continued: true, status });
    await listen.stop();
    if (status === 200) {
      expect(listen.receipts().map((r) => r.delivery_id)).toEqual(['dlv_chunked']);
      expect(saying(listen, '413')).toEqual([]);
    } else {
      expect(saying(listen, '413')).toEqual([
        'whsvc listen: a request body over 1 MiB, the most listen takes (the service sends at most 64 KiB), answered 413 and not read on; more are counted at the end',
        'whsvc listen: 1 request body over 1 MiB refused (413)',
      ]);
    }
  });

  it('a body of exactly the limit is taken', async () => {
    const listen = await listenInProcess({ secret: SECRET });
    const empty = JSON.stringify({ event: 'invoice.paid', memo: '' });
    const body = JSON.stringify({ event: 'invoice.paid', memo: 'x'.repeat(MAX_BODY_BYTES - empty.length) });
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    expect((await postDelivery(listen.url, SECRET, 'dlv_full', { body })).status).toBe(200);
    await listen.stop();
    expect(saying(listen, '413')).toEqual([]);
  });
});

describe('slow senders', () => {
  it('connections that send no whole request headers within the limit are closed with 408: said once, counted at the end', async () => {
    // A short limit, set for the test (10 s by default): node:http's own headersTimeout.
    const listen = await listenInProcess({ secret: SECRET }, { bounds: { headersTimeoutMs: 500, requestTimeoutMs: 1000 } });
    const slow = await Promise.all(Array.from({ length: 20 }, () => slowConnection(listen.url)));
    const answers = await Promise.all(slow.map(({ closed }) => closed));
    expect(answers.every((answer) => answer.startsWith('HTTP/1.1 408 '))).toBe(true);
    expect((await postDelivery(listen.url, SECRET, 'dlv_after')).status).toBe(200);
    await listen.stop();
    expect(saying(listen, '408')).toEqual([
      'whsvc listen: a connection that sent no whole request in time (its headers within 500 ms, all of it within 1 s) closed with 408; more are counted at the end',
      'whsvc listen: 20 connections closed for sending no whole request in time (408)',
    ]);
  });

  it('a connection that sends nothing is closed with 408 once the headers limit passes, as a slow one is', async () => {
    const listen = await listenInProcess({ secret: SECRET }, { bounds: { headersTimeoutMs: 300, requestTimeoutMs: 1000 } });
    const silent = await connectionSending(listen.url, '');
    expect(await silent.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(silent.socket.bytesWritten).toBe(0);
    expect((await postDelivery(listen.url, SECRET, 'dlv_after')).status).toBe(200);
    await listen.stop();
    expect(saying(listen, '408')).toEqual([
      'whsvc listen: a connection that sent no whole request in time (its headers within 300 ms, all of it within 1 s) closed with 408; more are counted at the end',
      'whsvc listen: 1 connection closed for sending no whole request in time (408)',
    ]);
  });

  it('under 1,000 slow connections, listen holds at most its bound, says it once, and takes a real delivery at once', async () => {
    // Its bound set low for the test (by default a quarter of the open-file limit, at most 256); the headers' limit
    // long, so that only the bound makes room.
    const most = 50;
    const listen = await listenInProcess({ secret: SECRET }, { bounds: { maxConnections: most, headersTimeoutMs: 600_000, requestTimeoutMs: 600_000 } });
    const slow: Array<{ socket: Socket; closed: Promise<string> }> = [];
    for (let i = 0; i < 1_000; i++) slow.push(await slowConnection(listen.url));
    // Each past the bound closed the oldest: all but the last `most` are closed by listen, none answered.
    const closedByListen = await Promise.all(slow.slice(0, 1_000 - most).map(({ closed }) => closed));
    expect(closedByListen.every((answer) => answer === '')).toBe(true);
    const answer = await postDelivery(listen.url, SECRET, 'dlv_through');
    expect(answer.status).toBe(200);
    expect(listen.receipts().map((r) => r.delivery_id)).toEqual(['dlv_through']);
    for (const { socket } of slow) socket.destroy();
    await listen.stop();
    expect(saying(listen, `${most}`)).toEqual([
      `whsvc listen: ${most} connections open at once, the most listen holds: each new one closes the oldest not being answered (a flood of slow connections?); more are counted at the end`,
      `whsvc listen: ${1_000 - most + 1} connections closed to stay within ${most} at once`,
    ]);
  });
});

describe('the bounds by default', () => {
  it('a quarter of the open-file limit in connections (at most 256), headers within 10 s, a request within 30 s, bodies up to 1 MiB', () => {
    expect(receiverBounds(1024)).toEqual({ maxBodyBytes: MiB, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 256 });
    expect(receiverBounds(400).maxConnections).toBe(100);
    expect(receiverBounds(20_000).maxConnections).toBe(256);
  });
});

/**
 * A signed delivery sent chunked (no Content-Length), asking first (Expect: 100-continue), its body sent in 64 KiB
 * chunks only once told to go on: whether it was, and the status answered.
 */
function chunkedAskingFirst(url: string, body: string, deliveryId: string): Promise<{ continued: boolean; status: number }> {
  const headers = {
    'content-type': 'application/json',
    'transfer-encoding': 'chunked',
    expect: '100-continue',
    'x-service-signature': signatureOf(SECRET, body),
    'x-service-event': 'invoice.paid',
    'x-service-delivery-id': deliveryId,
    'x-service-attempt': '1',
  };
  return new Promise((resolve, reject) => {
    let continued = false;
    const sending = request(url, { method: 'POST', headers });
    sending.on('continue', () => {
      continued = true;
      for (let at = 0; at < body.length; at += 64 * 1024) sending.write(body.slice(at, at + 64 * 1024));
      sending.end();
    });
    sending.on('response', (answer) => {
      answer.resume();
      answer.on('end', () => resolve({ continued, status: answer.statusCode! }));
    });
    sending.on('error', reject);
    sending.flushHeaders();
  });
}
