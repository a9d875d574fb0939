import type { Transport } from '../../api/transport.js';
import { shownUrl } from '../../receiver/routes.js';
import { sendAsReceived } from '../../receiver/send-on.js';
import { counted } from '../../render/text.js';
import { elapsed } from '../../render/words.js';
import type { Check, Outcome, Probe, Verdict } from './types.js';
import type { EffectsWatch } from './effects.js';
import { answered, controlTells, refusedAsUnsigned, suspectsKey, timedOut } from './judges.js';

// The battery's deliveries sent, one at a time, and when it stops: what check-receiver does on the network.

/** What sending takes: the transport, and the clock that times each answer. */
export interface SendDeps {
  transport: Transport;
  now?: (() => number) | undefined;
}

/** After this many deliveries got no answer within the limit, the rest are not sent: each would wait as long. */
export const TIME_OUTS_BEFORE_STOP = 2;

/** Why the battery stopped sending before its end. */
interface Stopped {
  /** What a check not run says after `not run: `. */
  why: string;
  /** Stopped by time-outs (not by a connection that could not be made): what the rest would have cost, in words. */
  cost?: string;
}

/**
 * The battery's deliveries, sent one at a time, each awaited up to the limit, and what came back. It stops sending
 * when one reaches nothing (refused, host not found, TLS: the rest would reach nothing either), and after the second
 * that got no answer within the limit: a receiver that never answers would cost the limit for every delivery.
 */
export class BatterySends {
  /** The outcomes so far, by check. */
  readonly all = new Map<string, readonly Outcome[]>();
  stopped: Stopped | undefined;
  /** How many deliveries were sent. */
  sent = 0;
  private timeOuts = 0;

  constructor(
    private readonly target: URL,
    private readonly limitMs: number,
    readonly total: number,
    private readonly deps: SendDeps,
    private readonly watch?: EffectsWatch,
  ) {}

  /** Sends a check's deliveries, up to the stop: what each got back and how long it took. */
  async send(check: Check): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    this.all.set(check.key, outcomes);
    const watch = check.repeats ? this.watch : undefined;
    for (const [n, probe] of check.probes.entries()) {
      if (n === 0) await watch?.readBefore();
      const outcome = await this.sendOne(probe);
      outcomes.push(outcome);
      this.sent += 1;
      this.stopped = this.stopAfter(outcome);
      if (this.stopped) break;
      await (n === 0 ? watch?.readAfterFirst() : watch?.readAfterRepeat());
    }
    return outcomes;
  }

  /** One delivery, timed: what came back, in how long. Outside the battery's count when sent alone (a cause tested). */
  async sendOne(probe: Probe): Promise<Outcome> {
    const now = this.deps.now ?? Date.now;
    const started = now();
    const result = await sendAsReceived(this.deps.transport, this.target, probe.delivery.headers, probe.delivery.body, '/', this.limitMs);
    return { probe, result, ms: Math.round(now() - started) };
  }

  /** Whether to send no more after this outcome, and why. */
  private stopAfter(o: Outcome): Stopped | undefined {
    if (unconnected(o)) return { why: `no connection to ${shownUrl(this.target)}` };
    if (!timedOut(o) || ++this.timeOuts < TIME_OUTS_BEFORE_STOP) return undefined;
    const rest = this.total - this.sent;
    if (rest === 0) return undefined;
    const late = `${this.timeOuts} deliveries got no answer within ${elapsed(this.limitMs)}`;
    return {
      why: `stopped after ${this.timeOuts} time-outs (see 9)`,
      cost: `${late}: ${counted(rest, 'more delivery', 'more deliveries')} would wait up to ${elapsed(rest * this.limitMs)}; not sent`,
    };
  }
}

/** The verdict of a check as far as it was sent: cut short by the stop, it is judged on what it sent, and says how many were not. */
export function judgedAsSent(check: Check, outcomes: Outcome[], sends: BatterySends): Verdict {
  const failure = unconnected(outcomes.at(-1)!);
  if (failure) return failure;
  const verdict = check.judge(outcomes, sends.all);
  const left = check.probes.length - outcomes.length;
  return left === 0 ? verdict : { ...verdict, summary: `${verdict.summary}; ${left} more not sent` };
}

/** The verdict of a check the battery stopped before: not run, but for the time check after time-outs, which judges those. */
export function notRun(check: Check, sends: BatterySends): Verdict {
  const { stopped, all, sent } = sends;
  if (stopped?.cost !== undefined && check.timesEveryAnswer) {
    const verdict = check.judge([], all);
    return { ...verdict, summary: `${verdict.summary}; ${sends.total - sent} more not sent` };
  }
  return { result: 'not_run', summary: `not run: ${stopped?.why ?? ''}` };
}

/** The verdict of a send that reached nothing, or undefined when it reached the receiver (answered or not). */
function unconnected(o: Outcome): Verdict | undefined {
  const { status, reached, code } = o.result;
  if (status !== null || reached !== false) return undefined;
  const summary = answered(o);
  if (code === 'ECONNREFUSED')
    return { result: 'fail', summary, cause: 'nothing listens at that address and port', fix: "start the receiver, or check the URL's host and port" };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { result: 'fail', summary, cause: "the URL's host name was not found", fix: 'check the host name in the URL' };
  if (code === 'ETLS')
    return {
      result: 'fail',
      summary,
      cause: 'the TLS handshake failed',
      fix: 'use http:// for a plain port, or a certificate this machine trusts (NODE_EXTRA_CA_CERTS)',
    };
  return { result: 'fail', summary, cause: 'no connection could be made', fix: "check that the receiver runs, and the URL's host and port" };
}

/**
 * Sends a failed check's suspects one at a time (`send`), until one is taken, an answer tells nothing (neither taken
 * nor refused as a bad signature), or the control tells that the signature verified; what came back is kept in `all`
 * for the judges. A receiver whose valid deliveries are not refused gets none.
 */
export async function testSuspects(
  check: Check,
  suspects: readonly Probe[],
  all: Map<string, readonly Outcome[]>,
  send: (probe: Probe) => Promise<Outcome>,
): Promise<Outcome[]> {
  const tried: Outcome[] = [];
  for (const probe of suspects) {
    const outcome = await send(probe);
    tried.push(outcome);
    if (!refusedAsUnsigned(outcome) || controlTells(outcome, all.get(check.key) ?? [])) break;
  }
  if (tried.length > 0) all.set(suspectsKey(check.key), tried);
  return tried;
}

/** What is said before a check's suspects are sent. */
export function testingWords(check: Check, suspects: readonly Probe[]): string {
  const controls = suspects.filter((probe) => probe.controls !== undefined).length;
  const each = `${controls ? `${controls === 1 ? 'one' : controls} signed with a secret made up for it, then ` : ''}each signed as a likely mistake would verify it`;
  return `testing what made ${check.number} fail: up to ${counted(suspects.length, 'delivery', 'deliveries')}, ${each}, until one is taken`;
}
