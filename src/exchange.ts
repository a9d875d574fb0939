import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { AnswerCutShort, isHttpStatus, StatusNotHttp } from './net.js';

/** What the other end answered: its status, its headers, and its body (up to the limit). */
export interface Answer {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  /** The body read, as text: made when first read (ReadAnswer). */
  readonly body: string;
  /** The body is only the answer's head: it went on past the limit, and nothing more of it was read. */
  readonly cut: boolean;
}

/**
 * An answer as read. Its body is made from the bytes when first asked for, by the
 * caller: an answer refused for its size is never copied nor decoded (a third of the
 * memory a long one costs), and a body too long for one string fails in the
 * caller's hands, never inside the exchange, which has settled by then.
 */
class ReadAnswer implements Answer {
  private text: string | undefined;

  constructor(
    readonly statusCode: number,
    readonly headers: IncomingHttpHeaders,
    private chunks: Buffer[],
    private readonly length: number,
    readonly cut: boolean,
  ) {}

  get body(): string {
    if (this.text === undefined) {
      this.text = Buffer.concat(this.chunks, this.length).toString('utf8');
      this.chunks = [];
    }
    return this.text;
  }
}

export interface ExchangeLimits {
  /** The whole exchange, from now until the answer's last byte; Infinity waits as long as the connection lasts. */
  timeoutMs: number;
  /**
   * Bytes of the answer's body read: past them the exchange is cut short (its connection closed) and the
   * answer is its head (`cut`). Every exchange has one: no answer, however long, grows this process.
   */
  bodyLimit: number;
  /** The bodyLimit of an answer that is not a 2xx, when lower: an error is read for its message, which its head holds. */
  errorBodyLimit?: number | undefined;
  /** Ends the exchange wherever it is, with the signal's reason: an answer no longer wanted (a progress line's poll). */
  signal?: AbortSignal | undefined;
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
    const handler = new Exchange(resolve, reject, limits.bodyLimit, limits.errorBodyLimit ?? limits.bodyLimit);
    // Cleared as soon as the exchange ends: AbortSignal.timeout would keep a timer and its signal alive for the
    // whole timeoutMs after every send, thousands of them at once under a steady stream.
    if (Number.isFinite(limits.timeoutMs)) handler.timer = setTimeout(timeOut, limits.timeoutMs, handler);
    if (limits.signal) handler.abortOn(limits.signal);
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
  /** Takes this exchange's listener off the caller's signal (abortOn), once it has ended. */
  private detach: (() => void) | undefined;
  private controller: Dispatcher.DispatchController | null = null;
  private reason: Error | null = null;
  private settled = false;
  private statusCode = 0;
  private headers: IncomingHttpHeaders = {};
  private chunks: Buffer[] = [];
  private size = 0;
  /** The bytes read of this answer's body: bodyLimit, or errorBodyLimit once its status says it is not a 2xx. */
  private limit: number;

  constructor(
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (error: Error) => void,
    private readonly bodyLimit: number,
    private readonly errorBodyLimit: number,
  ) {
    this.limit = bodyLimit;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  /** Called for each interim 1xx answer too: the final status comes last. */
  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // undici reads any three digits (`000` asserts inside it later): a code outside 100–599 ends the exchange here.
    if (!isHttpStatus(statusCode)) {
      this.abort(new StatusNotHttp(statusCode));
      return;
    }
    this.statusCode = statusCode;
    this.headers = headers;
    this.limit = statusCode >= 200 && statusCode < 300 ? this.bodyLimit : Math.min(this.bodyLimit, this.errorBodyLimit);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.settle();
      controller.abort(new Error('the answer is longer than the part read of it'));
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

  /** Aborted when `signal` is: a closure only for the few exchanges that are given one. */
  abortOn(signal: AbortSignal): void {
    const onAbort = () => this.abort(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    this.detach = () => signal.removeEventListener('abort', onAbort);
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.detach?.();
    const cut = this.size > this.limit;
    const { chunks } = this;
    // Handed over: undici may hold this handler a while longer, the answer's bytes need not stay with it.
    this.chunks = [];
    this.resolve(new ReadAnswer(this.statusCode, this.headers, chunks, cut ? this.limit : this.size, cut));
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.detach?.();
    this.reject(error);
  }
}
