import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { exchange, type ExchangeLimits } from '../../src/exchange.js';

/** A dispatcher that hands its handler to the test, which then plays undici's part. */
function heldDispatcher(): { dispatcher: Dispatcher; handler: () => Dispatcher.DispatchHandler } {
  let held: Dispatcher.DispatchHandler | undefined;
  const dispatcher = {
    dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
      held = handler;
      return true;
    },
  } as unknown as Dispatcher;
  return {
    dispatcher,
    handler: () => {
      if (!held) throw new Error('nothing was dispatched');
      return held;
    },
  };
}

/** A controller whose abort reports the error back at once, as undici's does (it ends in onResponseError, synchronously). */
function fakeController(handler: () => Dispatcher.DispatchHandler): Dispatcher.DispatchController & { abortedWith: Error[] } {
  const abortedWith: Error[] = [];
  const controller = {
    abortedWith,
    aborted: false,
    paused: false,
    reason: null,
    abort: (reason: Error) => {
      abortedWith.push(reason);
      handler().onResponseError!(controller, reason);
    },
    pause: () => {},
    resume: () => {},
  };
  return controller;
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
const POST = { origin: 'http://127.0.0.1:9', path: '/hook', method: 'POST' as const, body: '{}' };

/** An exchange on a held dispatcher whose answer has begun with `status`: the test plays the rest of undici's part. */
function answering(limits: ExchangeLimits, status = 200) {
  const { dispatcher, handler } = heldDispatcher();
  const settled = exchange(dispatcher, POST, limits);
  const controller = fakeController(handler);
  handler().onRequestStart!(controller, {});
  handler().onResponseStart!(controller, status, {}, 'OK');
  return { settled, controller, handler: handler() };
}

describe('exchange', () => {
  let server: Server | undefined;
  let agent: Agent | undefined;
  const closed: Socket[] = [];
  afterEach(async () => {
    await agent?.destroy();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = agent = undefined;
    closed.length = 0;
  });

  /** A real server on 127.0.0.1, port 0, and an Agent to it; resolves with its origin. */
  async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    server = createServer(handle);
    server.on('connection', (socket) => socket.on('close', () => closed.push(socket)));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    agent = new Agent();
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('an answer already received when this process finds its time limit past is taken, not timed out (a process held off its CPU)', async () => {
    const origin = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        res.end('in time');
        // Answered; then this process is held for three times the limit before it looks at its sockets again.
        const heldUntil = Date.now() + 1500;
        while (Date.now() < heldUntil);
      });
    });
    const answer = await exchange(agent!, { ...POST, origin }, { timeoutMs: 1000, bodyLimit: 1024 });
    expect(answer).toMatchObject({ statusCode: 200, body: 'in time' });
  });

  it('takes the final status after an interim 1xx answer, with its headers, and leaves no timer behind', async () => {
    const origin = await serve((req, res) => {
      req.resume();
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.writeHead(201, { 'content-type': 'text/plain' }).end('made');
    });
    const before = timers();
    const answer = await exchange(agent!, { ...POST, origin }, { timeoutMs: 60_000, bodyLimit: 1024 });
    expect(answer).toMatchObject({ statusCode: 201, body: 'made', headers: { 'content-type': 'text/plain' } });
    // At most as many as before: a timer of undici's own may end meanwhile, and one of ours left behind would be one more.
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('keeps a long answer up to the limit, then closes the connection, over a real one', async () => {
    const origin = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('a'.repeat(64 * 1024));
      // The rest never comes: the exchange must not wait for it.
    });
    const answer = await exchange(agent!, { ...POST, origin }, { timeoutMs: 60_000, bodyLimit: 10 });
    expect(answer).toMatchObject({ statusCode: 200, body: 'a'.repeat(10), cut: true });
    await expect.poll(() => closed.length).toBe(1);
  });

  it('keeps the body up to the limit and settles once, though undici reports the abort as an error', async () => {
    const { settled, controller, handler } = answering({ bodyLimit: 3, timeoutMs: 60_000 });
    handler.onResponseData!(controller, Buffer.from('ab'));
    handler.onResponseData!(controller, Buffer.from('cdef'));
    expect(controller.abortedWith).toHaveLength(1);
    const answer = await settled;
    expect({ statusCode: answer.statusCode, headers: answer.headers, body: answer.body, cut: answer.cut }).toEqual({
      statusCode: 200,
      headers: {},
      body: 'abc',
      cut: true,
    });
  });

  it('reads an answer that is not a 2xx only up to its own, lower limit: an error is read for its message', async () => {
    const { settled, controller, handler } = answering({ bodyLimit: 100, errorBodyLimit: 4, timeoutMs: 60_000 }, 500);
    handler.onResponseData!(controller, Buffer.from('broken'));
    expect(controller.abortedWith).toHaveLength(1);
    const answer = await settled;
    expect([answer.statusCode, answer.body, answer.cut]).toEqual([500, 'brok', true]);
  });

  it('a whole answer within the limit is not cut', async () => {
    const { settled, controller, handler } = answering({ bodyLimit: 4, timeoutMs: 60_000 });
    handler.onResponseData!(controller, Buffer.from('abcd'));
    handler.onResponseEnd!(controller, {});
    const answer = await settled;
    expect([answer.body, answer.cut]).toEqual(['abcd', false]);
    expect(controller.abortedWith).toEqual([]);
  });

  it('settles however making its body would fail (one too long for a string): the caller gets the failure, never a promise left pending', async () => {
    const { settled, controller, handler } = answering({ bodyLimit: 1024, timeoutMs: 60_000 });
    // Stands for a body whose text cannot be made: Buffer.concat refuses it, as toString refuses one past 512 MiB.
    handler.onResponseData!(controller, 'not bytes' as unknown as Buffer);
    handler.onResponseEnd!(controller, {});
    // The marker comes after every promise callback already due: a settled exchange has answered by then.
    const state = await Promise.race([
      settled.then(
        () => 'settled',
        () => 'settled',
      ),
      new Promise((resolve) => setImmediate(resolve, 'pending')),
    ]);
    expect(state).toBe('settled');
    const answer = await settled;
    expect(() => answer.body).toThrow();
  });

  it('fails at the time limit when the body stalls after its first part, over a real connection', async () => {
    const origin = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part');
    });
    await expect(exchange(agent!, { ...POST, origin }, { timeoutMs: 50, bodyLimit: 1024 })).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('fails at the time limit even before undici starts the request, and cuts it short once it does', async () => {
    const { dispatcher, handler } = heldDispatcher();
    const settled = exchange(dispatcher, POST, { timeoutMs: 5, bodyLimit: 1024 });
    await expect(settled).rejects.toMatchObject({ name: 'TimeoutError' });
    const controller = fakeController(handler);
    handler().onRequestStart!(controller, {});
    expect(controller.abortedWith.map((e) => e.name)).toEqual(['TimeoutError']);
  });

  it('fails with what undici reports for a request it refuses, and leaves no timer behind', async () => {
    agent = new Agent();
    const before = timers();
    await expect(exchange(agent, { ...POST, origin: 'ftp://127.0.0.1:21' }, { timeoutMs: 60_000, bodyLimit: 1024 })).rejects.toThrow();
    // At most as many as before: a timer of undici's own may end meanwhile, and one of ours left behind would be one more.
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('fails with what a dispatcher throws, and leaves no timer behind', async () => {
    const before = timers();
    const throwing = {
      dispatch() {
        throw new TypeError('invalid origin');
      },
    } as unknown as Dispatcher;
    await expect(exchange(throwing, POST, { timeoutMs: 60_000, bodyLimit: 1024 })).rejects.toThrow('invalid origin');
    // At most as many as before: a timer of undici's own may end meanwhile, and one of ours left behind would be one more.
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
