import type { IncomingMessage, ServerResponse } from 'node:http';
import { isManual, type Clock } from '../clock.js';
import type { Database } from '../store/database.js';
import type { InspectorChange } from './types.js';

/** Headers of every data answer of the inspector's: never cached, never sniffed, no referrer. */
export const DATA_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/**
 * The most live streams open at once (docs/sandbox.md): each browser tab on the inspector holds one, and a stream is
 * never done, so past this the oldest is ended (its page, if still open, reconnects in 2 s). Without it, streams opened
 * by the hundred would hold every connection the API has.
 */
export const MOST_LIVE_STREAMS = 16;

/**
 * The inspector's live stream (server-sent events): an event whenever the
 * store's writes or a manual clock moved, looked for 4 times a second whatever
 * their number (a burst of thousands makes a few refreshes), and a comment
 * every 15 s to keep idle connections open. It ticks only while a page listens.
 */
export class LiveStream {
  private readonly streams = new Set<ServerResponse>();
  private ticker: ReturnType<typeof setInterval> | undefined;
  private sent = { changes: -1, clock: -1 };
  private lastWrite = 0;

  constructor(private readonly deps: { database: Pick<Database, 'changes'>; clock: Clock }) {}

  open(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...DATA_HEADERS });
    // HEAD: the stream's status and headers, and the end (its body, never ending, is what HEAD leaves out).
    if (req.method === 'HEAD') return void res.end();
    res.write(`retry: 2000\n\n${this.eventText()}`);
    this.streams.add(res);
    if (this.streams.size > MOST_LIVE_STREAMS) this.endOldest();
    const done = () => {
      this.streams.delete(res);
      if (this.streams.size === 0 && this.ticker !== undefined) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
    };
    req.on('close', done);
    res.on('close', done);
    if (this.ticker === undefined) {
      this.sent = { changes: this.deps.database.changes, clock: this.manualNow() };
      this.lastWrite = Date.now();
      this.ticker = setInterval(() => this.tick(), 250);
      this.ticker.unref();
    }
  }

  close(): void {
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
    for (const res of this.streams) res.end();
    this.streams.clear();
  }

  private endOldest(): void {
    const oldest = this.streams.values().next().value!;
    this.streams.delete(oldest);
    oldest.end();
  }

  private tick(): void {
    const { database } = this.deps;
    let text: string | undefined;
    if (database.changes !== this.sent.changes || this.manualNow() !== this.sent.clock) {
      this.sent = { changes: database.changes, clock: this.manualNow() };
      text = this.eventText();
    } else if (Date.now() - this.lastWrite > 15_000) {
      text = ': keep-alive\n\n';
    }
    if (text === undefined) return;
    this.lastWrite = Date.now();
    for (const res of this.streams) if (!res.destroyed) res.write(text);
  }

  private manualNow(): number {
    return isManual(this.deps.clock) ? this.deps.clock.now() : 0;
  }

  private eventText(): string {
    const change: InspectorChange = { changes: this.deps.database.changes, now: new Date(this.deps.clock.now()).toISOString() };
    return `event: change\ndata: ${JSON.stringify(change)}\n\n`;
  }
}
