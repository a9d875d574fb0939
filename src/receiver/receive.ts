import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Transport } from '../api/transport.js';
import { FileError } from '../files/user-file.js';
import { DELIVERY_TIMEOUT_MS } from '../protocol/delivery.js';
import { isMistakenTokenRequest, type RecordLine } from '../protocol/record-line.js';
import type { Answerer, Decision } from './answer.js';
import { deliveryRecord, type RecordFile } from './record-file.js';
import { routeFor, shownUrl, type ForwardRoute } from './routes.js';
import { sendAsReceived } from './send-on.js';
import type { Receive } from './server.js';

/** One request as the receiver took it: what it decided, what the app answered a forward, and the request itself. */
export interface Receipt {
  decision: Decision;
  receivedAt: Date;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The path it was sent to (with its query): where a delivery sent on again goes when the app's URL has none. */
  path: string;
  /** How long the answer took, from the request's arrival. */
  tookMs: number;
  /** The app's answer to a forward: its status (and the head of its body), or null and why there was none. */
  forwarded?: { url: string; route: string; status: number | null; body?: string | undefined; error?: string | undefined } | undefined;
  /** The sender hung up this long after the request came, before the receiver answered: it never read the answer. */
  senderLeftAfterMs?: number | undefined;
}

/** What the receiver does with each request, set by listen's flags. */
export interface Reception {
  answerer: Answerer;
  /** Where verified deliveries are sent on, by event type (--forward-to). */
  routes: readonly ForwardRoute[];
  /** --record: each request kept before it is answered. */
  recording: Recording | undefined;
  send: Transport;
  /** Each forward's limit (--request-timeout); else what is left of the sender's (forwardLimitMs). */
  forwardTimeoutMs?: number | undefined;
  /** Answer only after this many milliseconds (--delay). */
  delayMs?: number | undefined;
  /** Told of each request, whatever it is (--max-silence). */
  heard(): void;
  /** Each request answered and not left out by --events: what listen shows. */
  answered(receipt: Receipt): void;
  /** What the user is told once, in a line of its own. */
  note(text: string): void;
}

/** What a delivery that --record could not keep is answered: not acknowledged, so the sender tries again. */
export const NOT_RECORDED_STATUS = 503;

/**
 * The receiver's handling of one request: verified and answered by the rules
 * (answer.ts), kept before it is answered (a receiver never acknowledges what
 * it has not kept, and takes, remembering and counting, only what it kept),
 * sent on to the app its route names, whose answer becomes the receiver's.
 */
export function receiving(reception: Reception): Receive {
  const { answerer, recording } = reception;
  let saidTokenRequest = false;
  return async (req, res, body, arrivedAt, started) => {
    reception.heard();
    // A sender that hung up before the answer (its limit ran out) never reads it: the line says so.
    let senderLeftAfterMs: number | undefined;
    res.once('close', () => {
      if (!res.writableEnded) senderLeftAfterMs = performance.now() - started;
    });
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const decision = answerer.consider(req.headers, body);
    // A token request sent here by mistake (an API command pointed at this port) holds a client secret: answered, but
    // its body never kept (so never replayed) nor printed, and said once.
    const tokenRequest = isMistakenTokenRequest(body, decision.signatureCheck);
    if (tokenRequest && !saidTokenRequest) {
      saidTokenRequest = true;
      reception.note(
        'a request with a client_secret in its body and no verified signature (an API command pointed here by mistake?): answered, its body neither recorded nor printed',
      );
    }
    const keep = (answered: number): boolean => {
      const kept = recording === undefined || tokenRequest || recording.keep(() => recordOf(req, body, arrivedAt, decision, answered));
      if (kept) answerer.take(decision);
      return kept;
    };
    if (decision.filtered) {
      res.writeHead(keep(decision.status) ? decision.status : NOT_RECORDED_STATUS).end();
      return;
    }
    const forwarded = decision.rule === 'forward' ? await sendOn(reception, req, body, decision, started) : undefined;
    if (reception.delayMs) await new Promise((resolve) => setTimeout(resolve, reception.delayMs));
    if (!keep(decision.status))
      Object.assign(decision, { status: NOT_RECORDED_STATUS, rule: 'not_recorded', refusal: 'this delivery could not be recorded\n' });
    res.writeHead(decision.status, { 'content-type': 'text/plain' }).end(decision.refusal);
    const tookMs = performance.now() - started;
    reception.answered({ decision, receivedAt: arrivedAt, headers: req.headers, body, path: req.url ?? '/', tookMs, forwarded, senderLeftAfterMs });
  };
}

/** A verified delivery sent on by its route: the app's answer becomes the receiver's (502 when there is none). */
async function sendOn(reception: Reception, req: IncomingMessage, body: Buffer, decision: Decision, started: number): Promise<Receipt['forwarded']> {
  const route = routeFor(reception.routes, decision.event);
  // The answerer decides `forward` only for an event a route takes.
  if (route === undefined) throw new Error(`no route takes ${decision.event}`);
  const limit = reception.forwardTimeoutMs ?? forwardLimitMs(performance.now() - started);
  const answer = await sendAsReceived(reception.send, route.url, req.headers, body, req.url ?? '/', limit);
  decision.status = answer.status ?? 502;
  return { url: shownUrl(route.url), route: route.label, ...answer };
}

/** How long before the sender's limit the receiver answers it when an app is slow: its 502 must reach the sender in time. */
const SENDER_MARGIN_MS = 500;

/**
 * How long a forward waits for the app when --request-timeout does not say: what is left of the sender's limit (the
 * service's 10 s, counted from the request's arrival), less a margin, so that the sender reads the receiver's 502
 * rather than hanging up first.
 */
export function forwardLimitMs(elapsedMs: number): number {
  return Math.max(100, DELIVERY_TIMEOUT_MS - elapsedMs - SENDER_MARGIN_MS);
}

/**
 * --record as a receiver uses it: each record written before its answer, a
 * write that fails said once (and its recovery once), and the deliveries not
 * kept counted.
 */
export class Recording {
  unrecorded = 0;
  private failing = false;

  constructor(
    readonly file: RecordFile,
    private readonly note: (text: string) => void,
  ) {}

  /** Writes the record; false when it could not be written (said once until a write works again). */
  keep(record: () => RecordLine): boolean {
    try {
      this.file.append(record());
    } catch (error) {
      if (!(error instanceof FileError)) throw error;
      this.unrecorded += 1;
      if (!this.failing) this.note(`${error.message}; answering ${NOT_RECORDED_STATUS} so the sender tries again later`);
      this.failing = true;
      return false;
    }
    if (this.failing) this.note(`recording to ${this.file.path} again`);
    this.failing = false;
    return true;
  }
}

/** A request as `--record` keeps it: when it arrived, the request itself, what the receiver made of it and answered. */
function recordOf(req: IncomingMessage, body: Buffer, arrivedAt: Date, decision: Decision, answered: number): RecordLine {
  return deliveryRecord({
    receivedAt: arrivedAt.toISOString(),
    method: req.method,
    path: req.url ?? '/',
    headers: req.headers,
    body,
    signatureCheck: decision.signatureCheck,
    event: decision.event ?? null,
    deliveryId: decision.deliveryId ?? null,
    attempt: decision.attempt === undefined || Number.isNaN(Number(decision.attempt)) ? null : Number(decision.attempt),
    answered,
  });
}
