import type { Attempt } from '../../../api/shapes.js';
import type { DeliveryStatus } from '../../../protocol/status.js';
import { retryDelivery } from '../../../api/endpoints.js';
import { Option } from '@commander-js/extra-typings';
import { pMapIterable } from 'p-map';
import { integerIn } from '../../../cli/parse.js';
import { ApiError, AuthError, NetworkError, RequestStopped } from '../../../api/errors.js';
import { answeredStatus, deliveryKey } from '../../../api/log.js';
import { ProgressLine } from '../../../render/progress.js';
import { andMore, counted, countText, sanitize } from '../../../render/text.js';
import { fateWords, noAnswer } from '../../../render/words.js';
import { fateOfNewest } from './fate.js';
import type { CommandDeps } from '../../../cli/context.js';
import type { JsonDocument } from '../../../cli/json-output.js';
import { ExitCode } from '../../../cli/errors.js';
import { laidOut } from '../../../render/wrap.js';

/** Sends in flight at once in a bulk re-send (retry of several ids, recover); the maximum keeps one run from flooding the service. */
const DEFAULT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 32;
export const concurrencyOption = () =>
  new Option('--concurrency <n>', `re-sends in flight at once, 1 to ${MAX_CONCURRENCY}`).default(DEFAULT_CONCURRENCY).argParser(integerIn(1, MAX_CONCURRENCY));
export const verboseOption = () => new Option('--verbose', 'a line on stderr for each delivery that did not get through (the summary counts them by reason)');

/** An attempt to re-send: the newest attempt of a failed (or pending) delivery. */
export interface ResendTarget {
  attemptId: string;
  deliveryId: string;
  webhookId?: string | undefined;
  event?: string | undefined;
}

export type Outcome = DeliveryStatus | 'already_delivered' | 'error';

export interface ResendResult {
  target: ResendTarget;
  outcome: Outcome;
  /** The new attempt the retry made. */
  attempt?: Attempt;
  error?: string;
  /** Why it did not get through, in words shared by every delivery that failed the same way (the summary counts them). */
  reason?: string;
}

export interface Tally {
  selected: number;
  resent: number;
  delivered: number;
  failed: number;
  pending: number;
  already_delivered: number;
  errors: number;
}

/** A bulk retry must get through a rate limit: each request waits out this many 429s before it counts as an error. */
const BULK_RETRY_AFTER_WAITS = 20;
/** Ids of still-failing deliveries kept for the summary. */
const SHOWN_FAILING = 10;

/** Sends one retry and says what came of it; only what stops the whole run (credentials, permission) is thrown. */
async function resendOne(deps: Pick<CommandDeps, 'api'>, target: ResendTarget, stop: AbortSignal | undefined): Promise<ResendResult | undefined> {
  try {
    const attempt = await retryDelivery(deps.api, target.attemptId, { stop });
    const outcome: Outcome = attempt.status === 'delivered' ? 'delivered' : attempt.status === 'failed' ? 'failed' : 'pending';
    if (outcome !== 'failed') return { target, outcome, attempt };
    const code = answeredStatus(attempt.response_code);
    return { target, outcome, attempt, reason: code === undefined ? noAnswer(attempt.failure_reason) : `answered ${code}` };
  } catch (error) {
    // Told to stop while it waited out a 429: never sent, so neither re-sent nor an error.
    if (error instanceof RequestStopped) return undefined;
    if (error instanceof AuthError) throw error;
    if (error instanceof ApiError) {
      if (error.status === 401 || error.status === 403) throw error;
      if (error.status === 409) return { target, outcome: 'already_delivered' };
      const status = `HTTP ${error.status}${error.code ? ` ${error.code}` : ''}`;
      return { target, outcome: 'error', error: `${error.message} (${status})`, reason: status };
    }
    if (error instanceof NetworkError) {
      // The request may have reached the service (no answer in time): it may have re-sent; a resume would find it delivered then.
      const maybe = error.mayHaveActed ? `; it may have been re-sent all the same: \`whsvc deliveries list\` shows whether it was` : '';
      return { target, outcome: 'error', error: `${error.message}${maybe}`, reason: error.message };
    }
    throw error;
  }
}

/**
 * Re-sends every target, `concurrency` at a time, on the one client (one
 * connection pool, one shared Retry-After pause). The walk of the targets runs
 * up to `concurrency` targets ahead of the sends (pMapIterable's `backpressure`
 * above `concurrency`; it reads no further ahead than that, whatever it is
 * given), so a send that ends finds its next target read. Once `stop` fires, or
 * a send or the walk fails, nothing new is taken; the sends in flight finish
 * and are told, and those still waiting out a Retry-After are not sent.
 */
export async function resendAll(
  deps: Pick<CommandDeps, 'api'>,
  targets: AsyncIterable<ResendTarget> | Iterable<ResendTarget>,
  options: { concurrency: number; stop?: AbortSignal | undefined; report: Pick<ResendReport, 'taken' | 'scanned' | 'result' | 'failed' | 'waiting'> },
): Promise<void> {
  const { report } = options;
  deps.api.retryAfterWaits = Math.max(deps.api.retryAfterWaits, BULK_RETRY_AFTER_WAITS);
  deps.api.onWait = (seconds, status) => report.waiting(seconds, status);
  let failure: unknown;
  const stopped = () => options.stop?.aborted === true || failure !== undefined;
  // The walk's own failure is kept rather than thrown through pMapIterable, which would end the run before the sends in flight.
  async function* taken(): AsyncGenerator<ResendTarget> {
    try {
      for await (const target of targets) {
        if (stopped()) return;
        report.taken();
        yield target;
        // Before the walk is asked for more (a page read, after Ctrl-C).
        if (stopped()) return;
      }
    } catch (error) {
      failure ??= error;
    } finally {
      report.scanned();
    }
  }
  const resends = pMapIterable(
    taken(),
    async (target) => {
      // Read ahead before the stop: taken, never sent.
      if (stopped()) return;
      try {
        const result = await resendOne(deps, target, options.stop);
        if (result) report.result(result);
      } catch (error) {
        failure ??= error;
      }
    },
    { concurrency: options.concurrency, backpressure: 2 * options.concurrency, preserveOrder: false },
  );
  for await (const _ of resends);
  if (failure !== undefined) {
    report.failed(failure);
    throw failure;
  }
}

/**
 * What a bulk re-send shows: on a terminal a progress line on stderr (with the
 * waits the service asks for); with --json one JSON document, written as the
 * outcomes come (so memory stays flat); else a summary that counts what did not
 * get through by reason, and names the commands that show why. A line per such
 * delivery only with --verbose.
 */
export class ResendReport {
  readonly tally: Tally = { selected: 0, resent: 0, delivered: 0, failed: 0, pending: 0, already_delivered: 0, errors: 0 };
  private readonly progress: ProgressLine | undefined;
  private readonly started: number;
  /** Whether the targets are still being found (a log walk): the total grows until the walk ends. */
  private scanning: boolean;
  private readonly document: JsonDocument | undefined;
  private readonly stillFailing: string[] = [];
  /** Those whose retry ended in an error (a wrong id, a 5xx, no answer): not known to have failed again, so not "still failing". */
  private readonly erred: string[] = [];
  private readonly failingWebhooks = new Set<string>();
  /** How many did not get through, by reason: failed again, and not re-sent. */
  private readonly reasons = { failed: new Map<string, number>(), error: new Map<string, number>() };
  /** Of those that failed again, how many in each fate the service said (`failed · retry due`, `failed · no more retries`). */
  private readonly fates = new Map<string, number>();
  /** Until when the service asked the run to wait (Retry-After), and what it answered. */
  private waitingUntil = 0;
  private waitingFor = 0;
  private waits = 0;

  constructor(
    private readonly deps: Pick<CommandDeps, 'stdout' | 'stderr' | 'json' | 'colors' | 'errColors' | 'now' | 'interrupts' | 'jsonOut'>,
    /** The number of targets when known before the first is taken (a confirmed selection, ids); else they are found while sending. */
    private readonly total?: number,
    private readonly verbose = false,
  ) {
    this.scanning = total === undefined;
    this.started = deps.now();
    this.progress = deps.stderr.isTTY ? new ProgressLine(deps.stderr, deps.now) : undefined;
    this.document = deps.json ? deps.jsonOut.stream('deliveries', { dry_run: false }) : undefined;
  }

  taken(): void {
    this.tally.selected += 1;
    this.redraw();
  }

  scanned(): void {
    this.scanning = false;
    this.redraw(true);
  }

  /** The service asked for a wait (429, 503): in the progress line while it lasts; without one, said once. */
  waiting(seconds: number, status: number): void {
    this.waits += 1;
    this.waitingUntil = this.deps.now() + seconds * 1000;
    this.waitingFor = status;
    if (this.progress) this.redraw(true);
    else if (this.waits === 1)
      this.deps.stderr.write(laidOut(this.deps.stderr, `whsvc: the service answered ${status}: re-sends wait as it asks (Retry-After), each time it does\n`));
  }

  result(result: ResendResult): void {
    const t = this.tally;
    // An id given on the command line may be any attempt of its delivery: the service's answer names the delivery.
    const target = { ...result.target, deliveryId: result.attempt?.delivery_id ?? result.target.deliveryId };
    if (result.outcome === 'delivered' || result.outcome === 'failed' || result.outcome === 'pending') t.resent += 1;
    if (result.outcome === 'already_delivered') t.already_delivered += 1;
    else if (result.outcome === 'error') t.errors += 1;
    else t[result.outcome] += 1;
    if (result.outcome === 'failed' || result.outcome === 'error') {
      const list = result.outcome === 'failed' ? this.stillFailing : this.erred;
      if (list.length < SHOWN_FAILING) list.push(target.deliveryId);
      if (target.webhookId) this.failingWebhooks.add(target.webhookId);
      const byReason = this.reasons[result.outcome];
      const reason = result.reason ?? result.error ?? 'unknown';
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    }
    // The retry is its delivery's newest attempt: what the service says follows it is the delivery's fate.
    const fate = result.outcome === 'failed' && result.attempt ? fateOfNewest(result.attempt) : undefined;
    if (fate?.status === 'failed' && fate.retry !== 'unknown') this.fates.set(fateWords(fate), (this.fates.get(fateWords(fate)) ?? 0) + 1);
    if (this.document) {
      const a = result.attempt;
      this.document.item({
        delivery_id: target.deliveryId,
        retried_attempt_id: target.attemptId,
        webhook_id: target.webhookId ?? a?.webhook_id ?? null,
        event: target.event ?? a?.event ?? null,
        outcome: result.outcome,
        attempt_id: a?.id ?? null,
        response_code: a?.response_code ?? null,
        error: result.error ?? null,
      });
    } else if (this.verbose && result.outcome !== 'delivered' && result.outcome !== 'already_delivered') {
      const why =
        result.outcome === 'error'
          ? `not re-sent: ${result.error}`
          : result.outcome === 'pending'
            ? 're-sent, still under way'
            : `failed again (${result.reason})`;
      const label =
        result.outcome === 'pending' ? this.deps.errColors.yellow('pending') : this.deps.errColors.red(result.outcome === 'error' ? 'error' : 'failed');
      const line = laidOut(this.deps.stderr, `${label} ${sanitize(target.deliveryId)}${target.event ? ` ${sanitize(target.event)}` : ''}: ${sanitize(why)}\n`);
      if (this.progress) this.progress.writeAbove(line);
      else this.deps.stderr.write(line);
    }
    this.redraw();
  }

  private redraw(force = false): void {
    if (!this.progress) return;
    const t = this.tally;
    const done = t.resent + t.already_delivered + t.errors;
    const seconds = Math.max(0.001, (this.deps.now() - this.started) / 1000);
    const rate = done / seconds;
    const all = this.total ?? t.selected;
    const total = this.scanning ? `${countText(t.selected)} found so far` : countText(all);
    const left = !this.scanning && rate > 0 && done < all ? ` · ~${Math.ceil((all - done) / rate)} s left` : '';
    const waitLeft = Math.ceil((this.waitingUntil - this.deps.now()) / 1000);
    const waiting = waitLeft > 0 ? ` · waiting ${waitLeft} s as the service asks (${this.waitingFor})` : '';
    this.progress.update(
      `re-sending ${countText(done)}/${total} · ${countText(t.delivered)} delivered · ${countText(t.failed)} still failing${t.errors ? ` · ${counted(t.errors, 'error')}` : ''} · ${rate.toFixed(1)}/s${left}${waiting}`,
      force,
    );
  }

  /** A run that failed part-way: the JSON document, if begun, is closed with what was done and why it stopped. */
  failed(error: unknown): void {
    this.progress?.clear();
    if (!this.document?.started) return;
    this.document.end({ summary: this.summary(), interrupted: false, error: (error as Error)?.message ?? String(error) });
  }

  private summary() {
    const t = this.tally;
    return {
      selected: t.selected,
      resent: t.resent,
      delivered: t.delivered,
      failed: t.failed,
      pending: t.pending,
      already_delivered: t.already_delivered,
      errors: t.errors,
    };
  }

  /** How many failed each way, most first: `Failed again, by reason: 10 answered 500, 5 no answer`; `Failed again, now: 3 failed · no more retries`. */
  private writeReasons(label: string, reasons: Map<string, number>): void {
    if (reasons.size === 0) return;
    const counts = [...reasons].sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${countText(count)} ${sanitize(reason)}`);
    this.deps.stdout.write(laidOut(this.deps.stdout, `${label}: ${andMore(counts.slice(0, 5), counts.length)}\n`));
  }

  /** The first ids of a kind of outcome, and how many more there were; nothing when there were none. */
  private writeIds(label: string, shown: string[], count: number): void {
    if (count === 0) return;
    this.deps.stdout.write(laidOut(this.deps.stdout, `${label}: ${andMore(shown, count, ' ')}\n`));
  }

  /** The summary, and the exit code: 0 when every re-sent delivery got through, 1 when any did not, 130 when stopped. */
  finish(interrupted: boolean, resumeCommand?: string): number {
    this.progress?.clear();
    const t = this.tally;
    const summary = this.summary();
    const notTaken = t.selected - (t.resent + t.already_delivered + t.errors);
    if (this.document) {
      this.document.end({ summary, interrupted });
    } else {
      const parts = [`${countText(t.delivered)} delivered`, `${countText(t.failed)} failed again`];
      if (t.pending) parts.push(`${countText(t.pending)} still under way`);
      parts.push(`${countText(t.already_delivered)} already delivered`, counted(t.errors, 'error'));
      this.deps.stdout.write(laidOut(this.deps.stdout, `Re-sent ${counted(t.resent, 'delivery')}: ${parts.join(', ')}.\n`));
      this.writeReasons('Failed again, by reason', this.reasons.failed);
      this.writeReasons('Failed again, now', this.fates);
      this.writeReasons('Errors, by reason', this.reasons.error);
      if (this.waits > 0)
        this.deps.stdout.write(
          laidOut(this.deps.stdout, `Waited ${counted(this.waits, 'time')} as the service asked (HTTP ${this.waitingFor}, Retry-After).\n`),
        );
      this.writeIds('Still failing', this.stillFailing, t.failed);
      this.writeIds('Errors', this.erred, t.errors);
      const example = this.stillFailing[0] ?? this.erred[0];
      const diagnose = `whsvc deliveries diagnose ${sanitize(example ?? '')}`;
      if (example) this.deps.stdout.write(laidOut(this.deps.stdout, `Why one failed: ${diagnose}\n`, [diagnose]));
      if (t.failed + t.errors > 0) {
        const webhooks = [...this.failingWebhooks];
        if (webhooks.length > 0) {
          const lists = webhooks.slice(0, 3).map((w) => `whsvc deliveries list ${sanitize(w)} --status failed`);
          this.deps.stdout.write(
            laidOut(
              this.deps.stdout,
              `List them: ${lists.join('; ')}${webhooks.length > 3 ? ` (and ${counted(webhooks.length - 3, 'more webhook')})` : ''}\n`,
              lists,
            ),
          );
        }
      }
    }
    const notReSent = notTaken > 0 ? `${counted(notTaken, 'selected delivery', 'selected deliveries')} ${notTaken === 1 ? 'was' : 'were'} not re-sent; ` : '';
    if (this.deps.interrupts.stdoutWasClosed) {
      const outcome = `of those re-sent, ${countText(t.delivered)} got through and ${countText(t.failed + t.errors)} did not`;
      this.deps.stderr.write(
        laidOut(
          this.deps.stderr,
          `whsvc: the output was closed, so the run stopped: ${outcome}; ${notReSent}${resumeCommand ? `run \`${resumeCommand}\` to resume` : 'run the command again to resume'}\n`,
        ),
      );
      return ExitCode.failure;
    }
    if (interrupted) {
      this.deps.stderr.write(
        laidOut(
          this.deps.stderr,
          `whsvc: stopped: ${notReSent}${resumeCommand ? `run \`${resumeCommand}\` again to resume (what was delivered since is skipped)` : 'run the command again to resume'}\n`,
        ),
      );
      return ExitCode.interrupted;
    }
    return t.failed + t.errors + t.pending > 0 ? ExitCode.failure : ExitCode.ok;
  }
}

/** The targets for ids given on the command line, each once. */
export const targetsFromIds = (ids: string[]): ResendTarget[] => [...new Set(ids)].map((id) => ({ attemptId: id, deliveryId: deliveryKey({ id }) }));
