import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { AnswerCutShort } from './net.js';

/** What the other end answered: its status, its headers, and its body (up to the limit). */
export interface Answer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ExchangeLimits {
  /** The whole exchange, from now until the answer's last byte; Infinity waits as long as the connection lasts. */
  timeoutMs: number;
  /** Bytes of the answer's body kept; past them the exchange is cut short (its connection closed). All of it when not given. */
  bodyLimit?: number | undefined;
}

/**
 * One HTTP request through undici's dispatch API, answered within
 * `timeoutMs`: every request of whsvc, the CLI's (api/transport.ts) and the
 * sandbox's deliveries alike.
 *
 * Not through `dispatcher.request()`: the handler behind it keeps a closure
 * over undici's request controller, and with that closure every request's
 * objects outlived V8's young-generation collections until the next full
 * one (a sixth of what a request allocates, against under 1% here), which
 * made each collection several times longer: docs/benchmarks.md, "Sandbox
 * deliveries". For the same reason the handler keeps no closure: the timer
 * is given a module function and the handler as its argument.
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, limits: ExchangeLimits): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const handler = new Exchange(resolve, reject, limits.bodyLimit ?? Number.POSITIVE_INFINITY);
    // Cleared as soon as the exchange ends: AbortSignal.timeout would keep a timer and its signal alive for the
    // whole timeoutMs after every send, thousands of them at once under a steady stream.
    if (Number.isFinite(limits.timeoutMs)) handler.timer = setTimeout(timeOut, limits.timeoutMs, handler);
    try {
      // undici's own limits (300 s to the headers, 300 s between body chunks by default) would cut a wait without one.
      dispatcher.dispatch(Number.isFinite(limits.timeoutMs) ? options : { ...options, headersTimeout: 0, bodyTimeout: 0 }, handler);
    } catch (error) {
      handler.abort(error as Error);
    }
  });
}

/**
 * The limit is found past in the event loop's timers phase, which comes
 * before its I/O: on a busy machine a process can be held off its CPU while
 * the answer arrives, and find both at once. So the answer already received
 * is read first (the I/O phase), and the exchange is aborted after it
 * (setImmediate) only if that did not end it: an endpoint that answered in
 * time is never recorded as failed because this process was slow to look.
 */
function timeOut(handler: Exchange): void {
  setImmediate(abortLate, handler);
}

function abortLate(handler: Exchange): void {
  handler.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
}

/** undici's codes for a connection closed or reset under a request. */
const CONNECTION_LOST = new Set<unknown>(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']);

class Exchange implements Dispatcher.DispatchHandler {
  timer: NodeJS.Timeout | undefined;
  private controller: Dispatcher.DispatchController | null = null;
  private reason: Error | null = null;
  private settled = false;
  private statusCode = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (error: Error) => void,
    private readonly bodyLimit: number,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  /** Called for each interim 1xx answer too: the final status comes last. */
  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.bodyLimit) {
      this.settle();
      controller.abort(new Error('the answer is longer than the part kept of it'));
    }
  }

  onResponseEnd(): void {
    this.settle();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(this.statusCode !== 0 && CONNECTION_LOST.has((error as { code?: unknown }).code) ? this.cutShort(error) : error);
  }

  /** The connection lost once the answer had begun: how much of its body came, against its Content-Length. */
  private cutShort(lost: Error): AnswerCutShort {
    const announced = Number(this.headers['content-length']);
    return new AnswerCutShort(lost, this.size, Number.isSafeInteger(announced) ? announced : undefined);
  }

  /**
   * Ends the exchange with `reason`, for the caller at once. A request undici has not started yet
   * (waiting for its connection) is cut short when it starts, before anything of it is written.
   */
  abort(reason: Error): void {
    if (this.settled) return;
    this.reason = reason;
    this.fail(reason);
    this.controller?.abort(reason);
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    const body = Buffer.concat(this.chunks);
    this.resolve({
      statusCode: this.statusCode,
      headers: this.headers,
      body: (body.length > this.bodyLimit ? body.subarray(0, this.bodyLimit) : body).toString('utf8'),
    });
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.reject(error);
  }
}
