import type { Attempt } from '../../../api/shapes.js';
import { answeredStatus, deliveryKey } from '../../../api/log.js';
import type { Colors } from '../../../render/colors.js';
import { deliveryIdFields, fittedLine, idField, shortId, shortIdsAt, type LineField } from '../../../render/line.js';
import type { OutputStream } from '../../../render/stream.js';
import { clockTime, sanitize, statusWords } from '../../../render/text.js';
import { statusLabel } from '../shared/view.js';
import { type ForwardRoute, shownUrl } from '../../../cli/forward.js';
import type { ForwardOutcome } from './forward.js';
import type { Change } from './follow.js';

/** Wide enough for the catalog's longest type (production_order.completed), as listen lines up. */
const EVENT_WIDTH = 26;

/** A forward's outcome that has a line: it was sent, and answered or not. */
export type ForwardLine = Exclude<ForwardOutcome, { kind: 'cannot' }>;

/**
 * tail's stdout: a line per attempt or change of status, and per forward,
 * each as NDJSON with --json. Every time is the service's (a sandbox's clock
 * may have been moved), so an attempt line and a forward line of one stream
 * agree. On a terminal a line fits its width (fitLine, in the order given
 * with its fields); a pipe gets whole lines.
 */
export class TailPrinter {
  constructor(private readonly out: { stdout: OutputStream; colors: Colors; json: boolean; serviceNow: () => number }) {}

  change(change: Change): void {
    const a = change.attempt;
    if (this.out.json) {
      this.write(
        JSON.stringify({
          change: change.kind,
          time: this.nowIso(),
          webhook_id: change.webhookId,
          event: a.event,
          status: a.status,
          previous_status: change.previous ?? null,
          response_code: a.response_code ?? null,
          attempt: a.attempts ?? null,
          attempt_id: a.id,
          delivery_id: deliveryKey(a),
          created_at: a.created_at,
        }),
      );
      return;
    }
    const { colors } = this.out;
    const retry = { nextAttemptAt: a.next_attempt_at, now: this.out.serviceNow() };
    const words = statusWords(a.status, a.next_attempt_at, retry.now);
    const code = String(answeredStatus(a.response_code) ?? '-');
    // On a narrow terminal the ids are in their short form on every line (shortIds); then, in this order: the attempt's
    // own id goes, the webhook id takes its short form, "pending →" goes, the delivery id takes its short form, the
    // webhook id goes, the event type is cut, then goes. The status, its retry due and the code stay whole.
    const previous = change.kind === 'status' ? sanitize(change.previous!) : undefined;
    const fields: LineField[] = [
      { text: this.clock(a.created_at) },
      { ...idField(sanitize(change.webhookId), this.shortIds(), 1, 10), drop: 4 },
      { text: sanitize(a.event), pad: EVENT_WIDTH, min: 12, cut: 'end', give: 5, drop: 6 },
      ...(previous === undefined ? [] : [{ text: `${previous} →`, styled: `${statusLabel(change.previous!, colors)} →`, drop: 2 }]),
      // "pending → delivered" is the widest the sandbox's statuses make, a retry due aside: the code lines up after it.
      {
        text: words,
        styled: statusLabel(a.status, colors, retry),
        pad: Math.max(0, 19 - (previous === undefined ? 0 : previous.length + 3)),
        attached: previous !== undefined,
      },
      { text: code.padStart(3) },
      ...this.refFields(a),
    ];
    this.write(fittedLine([fields], this.columns()));
  }

  /** A forward's line: where it went by which route, and the app's answer. */
  forward(change: Change, key: string, route: ForwardRoute, outcome: ForwardLine): void {
    const a = change.attempt;
    if (this.out.json) {
      this.write(
        JSON.stringify({
          change: outcome.kind === 'answered' ? 'forwarded' : 'forward_failed',
          time: this.nowIso(),
          webhook_id: change.webhookId,
          event: a.event,
          attempt: a.attempts ?? null,
          attempt_id: a.id,
          delivery_id: key,
          url: shownUrl(route.url),
          route: route.label,
          app_status: outcome.kind === 'answered' ? outcome.status : null,
          error: outcome.kind === 'no_answer' ? outcome.error : null,
          signature_check: outcome.signatureCheck,
        }),
      );
      return;
    }
    const { colors } = this.out;
    const answer =
      outcome.kind === 'answered'
        ? {
            text: `app ${outcome.status}`,
            styled: `app ${outcome.status >= 200 && outcome.status < 300 ? colors.green(String(outcome.status)) : colors.red(String(outcome.status))}`,
          }
        : {
            text: `app down (${sanitize(outcome.error)}): not forwarded yet, tried again at the next poll`,
            styled: `${colors.red(`app down (${sanitize(outcome.error)})`)}: not forwarded yet, tried again at the next poll`,
          };
    const signatureWords = {
      verified: 'signature verified',
      mismatch: 'signature mismatch: it does NOT match the rebuilt body',
      missing: 'signature missing',
      malformed: 'signature malformed',
      not_checked: 'signature not checked',
    }[outcome.signatureCheck];
    const signatureStyle = { verified: colors.green, mismatch: colors.red, missing: colors.red, malformed: colors.red, not_checked: colors.dim }[
      outcome.signatureCheck
    ];
    const fields: LineField[] = [
      { text: this.clock(this.nowIso()) },
      { text: `→ ${shownUrl(route.url)}`, min: 16, cut: 'url', give: 1 },
      { text: `via ${route.label}`, drop: 3 },
      ...this.refFields(a),
      answer,
      { text: signatureWords, styled: signatureStyle(signatureWords), min: 12, cut: 'end', give: 4 },
    ];
    this.write(fittedLine([fields], this.columns()));
  }

  /** The delivery and the attempt's number (`dlv_A #2`), and the attempt's own id when it is not the delivery's. */
  private refFields(attempt: Attempt): LineField[] {
    const key = deliveryKey(attempt);
    const ownId = `(${this.shortIds() ? shortId(sanitize(attempt.id)) : sanitize(attempt.id)})`;
    const own: LineField[] = key === attempt.id ? [] : [{ text: ownId, styled: this.out.colors.dim(ownId), drop: 0, attached: true }];
    return [...deliveryIdFields(sanitize(key), attempt.attempts, { short: this.shortIds(), give: 2 }), ...own];
  }

  private clock(iso: string): string {
    return clockTime(iso, this.out.serviceNow());
  }

  private nowIso(): string {
    return new Date(this.out.serviceNow()).toISOString();
  }

  /** Ids in their short form on every line of a terminal narrower than a line with a retry due and its ids whole. */
  private shortIds(): boolean {
    return shortIdsAt(this.columns(), 132);
  }

  private columns(): number | undefined {
    return this.out.stdout.isTTY ? this.out.stdout.columns : undefined;
  }

  private write(line: string): void {
    this.out.stdout.write(`${line}\n`);
  }
}
