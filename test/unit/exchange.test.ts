import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { exchange } from '../../src/exchange.js';

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

function fakeController(): Dispatcher.DispatchController & { abortedWith: Error[] } {
  const abortedWith: Error[] = [];
  return {
    abortedWith,
    aborted: false,
    paused: false,
    reason: null,
    abort: (reason: Error) => void abortedWith.push(reason),
    pause: () => {},
    resume: () => {},
  };
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
const POST = { origin: 'http://127.0.0.1:9', path: '/hook', method: 'POST' as const, body: '{}' };

describe('exchange', () => {
  let server: Server | undefined;
  let agent: Agent | undefined;
  afterEach(async () => {
    await agent?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = agent = undefined;
  });

  it('takes the final status after an interim 1xx answer, over a real connection', async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.writeHead(201, { 'content-type': 'text/plain' }).end('made');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    agent = new Agent();
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answer = await exchange(agent, { ...POST, origin }, { bodyLimit: 100, timeoutMs: 10_000 });
    expect(answer).toMatchObject({ statusCode: 201, body: 'made', headers: { 'content-type': 'text/plain' } });
  });

  it('keeps the body up to the limit, then cuts the exchange short and settles once', async () => {
    const { dispatcher, handler } = heldDispatcher();
    const settled = exchange(dispatcher, POST, { bodyLimit: 3, timeoutMs: 10_000 });
    const controller = fakeController();
    handler().onRequestStart!(controller, {});
    handler().onResponseStart!(controller, 200, {}, 'OK');
    handler().onResponseData!(controller, Buffer.from('ab'));
    handler().onResponseData!(controller, Buffer.from('cdef'));
    expect(controller.abortedWith).toHaveLength(1);
    // undici reports the abort it was asked for as an error: the answer already stands.
    handler().onResponseError!(controller, controller.abortedWith[0]!);
    await expect(settled).resolves.toEqual({ statusCode: 200, headers: {}, body: 'abc' });
  });

  it('fails at the time limit even before undici starts the request, and cuts it short once it does', async () => {
    const { dispatcher, handler } = heldDispatcher();
    const settled = exchange(dispatcher, POST, { bodyLimit: 100, timeoutMs: 5 });
    await expect(settled).rejects.toMatchObject({ name: 'TimeoutError' });
    const controller = fakeController();
    handler().onRequestStart!(controller, {});
    expect(controller.abortedWith.map((e) => e.name)).toEqual(['TimeoutError']);
  });

  it('fails with what the dispatcher throws, and leaves no timer behind', async () => {
    const before = timers();
    const throwing = {
      dispatch() {
        throw new TypeError('invalid origin');
      },
    } as unknown as Dispatcher;
    await expect(exchange(throwing, POST, { bodyLimit: 100, timeoutMs: 60_000 })).rejects.toThrow('invalid origin');
    expect(timers()).toBe(before);
  });
});
