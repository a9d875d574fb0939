import { deliveryKey } from '../../../api/log.js';
import type { Colors } from '../../../render/colors.js';
import { DELIVERY_REF_SHORT, deliveryRef, deliveryRefWidth, StreamLayout, type StreamField } from '../../../render/line.js';
import type { JsonOutput } from '../../../cli/json-output.js';
import type { OutputStream } from '../../../render/stream.js';
import { isDelivered } from '../../../protocol/status.js';
import { sanitize } from '../../../render/text.js';
import { clockTime, noAnswer } from '../../../render/words.js';
import { displayWidth, ID_SHORT_WIDTH } from '../../../render/width.js';
import { attemptCode, statusLabel } from '../shared/view.js';
import { attemptWords, HighestAttempts } from '../shared/fate.js';
import { CODE_WIDTH, DELIVERY_ID_WIDTH, EVENT_MIN, EVENT_WIDTH, STATUS_WIDTH, WEBHOOK_ID_WIDTH } from '../../../cli/columns.js';
import { type ForwardRoute, shownUrl } from '../../../receiver/routes.js';
import type { ForwardOutcome } from './forward.js';
import type { Change } from './follow.js';
import { numberText } from '../../../exact-json.js';

/** A forward's outcome that has a line: it was sent, and answered or not. */
export type ForwardLine = Exclude<ForwardOutcome, { kind: 'cannot' }>;

type ChangeKey = 'time' | 'webhook' | 'event' | 'previous' | 'status' | 'code' | 'delivery' | 'own';
type ForwardKey = 'time' | 'url' | 'via' | 'delivery' | 'app' | 'signature' | 'why';

/** A time of day (`14:02:05`); one of another day has its date before it, and is wider. Without its seconds, 5. */
const TIME_WIDTH = 8;
/** `failed · retry due 14:02:05`, the widest status a line shows. */
const STATUS_WITH_TIME = 27;

/**
 * The fields of an attempt's line, in the order they give way on a narrow terminal (decided once, at the stream's
 * start: every line then has the same fields in the same places): the attempt's own id goes; `pending →` goes; the
 * event type is cut between its words (taking the room left); the webhook id takes its short form; the delivery id
 * takes its short form; the event type goes; the status leaves out its time of day (`failed · retry due`, the
 * glossary's compact fate: its words are whole at every width); the webhook id goes; the time its seconds. The time,
 * the status and the code stay. At 132 columns both ids whole, the event type cut; at 100 the ids short; at 80 the
 * time, the webhook (short), the status, the code and the delivery (short), as deliveries list across webhooks has
 * them; at 60 the time without its seconds, the status without its time of day, the code and the delivery.
 */
const CHANGE_FIELDS: Array<StreamField<ChangeKey>> = [
  { key: 'time', width: TIME_WIDTH, min: 5, give: 8 },
  { key: 'webhook', width: WEBHOOK_ID_WIDTH, min: ID_SHORT_WIDTH, give: 1, drop: 6, cut: 'id' },
  { key: 'event', width: EVENT_WIDTH, min: EVENT_MIN, give: 0.5, drop: 5, cut: 'words' },
  // `pending →` before a status that changed (a delivery is only ever pending or failed before).
  { key: 'previous', width: 9, drop: 0.3 },
  { key: 'status', width: STATUS_WITH_TIME, min: STATUS_WIDTH, give: 5.5, attached: true },
  { key: 'code', width: CODE_WIDTH },
  { key: 'delivery', width: deliveryRefWidth(DELIVERY_ID_WIDTH), min: DELIVERY_REF_SHORT, give: 3, cut: 'id' },
  { key: 'own', width: DELIVERY_ID_WIDTH + 2, min: ID_SHORT_WIDTH + 2, drop: 0, attached: true },
];

/**
 * tail's stdout: a line per attempt or change of status, and per forward,
 * each as NDJSON with --json. Every time is the service's (a sandbox's clock
 * may have been moved), so an attempt line and a forward line of one stream
 * agree. On a terminal the lines' fields are decided once, from its width
 * when the first line is written (StreamLayout); a pipe gets whole lines.
 */
export class TailPrinter {
  private changeLayout: StreamLayout<ChangeKey> | undefined;
  private forwardLayout: StreamLayout<ForwardKey> | undefined;
  constructor(
    private readonly out: { stdout: OutputStream; jsonOut: JsonOutput; colors: Colors; json: boolean; serviceNow: () => number },
    /** The routes of --forward-to, so that a forward line's fields are as wide as theirs. */
    private readonly routes: ForwardRoute[] = [],
    /** Each delivery's highest attempt seen: given by a screen whose printers come and go with its width. */
    private readonly latest = new HighestAttempts(),
  ) {}

  /** The attempts of a whole poll, noted before its lines are printed: a retry in it makes the attempt before it not the newest. */
  note(changes: Change[]): void {
    for (const change of changes) this.latest.note(change.attempt);
  }

  change(change: Change): void {
    const a = change.attempt;
    if (this.out.json) {
      this.out.jsonOut.line({
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
      });
      return;
    }
    const { colors } = this.out;
    const layout = this.changes();
    // The delivery's fate on its newest attempt (`failed · no more retries`), else the attempt's own status, a retry due
    // with its time of day; in the stream's compact form, without it (`failed · retry due`).
    const words = attemptWords(a, this.latest.isNewest(a), layout.compact('status') ? undefined : this.out.serviceNow());
    const previous = change.kind === 'status' ? sanitize(change.previous!) : undefined;
    const key = deliveryKey(a);
    const ownId = key === a.id ? undefined : `(${layout.id('own', sanitize(a.id))})`;
    const time = this.clock(a.created_at);
    this.write(
      layout.line({
        time: layout.compact('time') ? time.slice(0, -3) : time,
        webhook: layout.id('webhook', sanitize(change.webhookId)),
        event: sanitize(a.event),
        previous: previous === undefined ? undefined : { text: `${previous} →`, styled: `${statusLabel(change.previous!, colors)} →` },
        status: { text: words, styled: statusLabel(a.status, colors, words) },
        code: attemptCode(a).padStart(3),
        delivery: deliveryRef(layout, 'delivery', sanitize(key), numberText(a.attempts)),
        own: ownId === undefined ? undefined : { text: ownId, styled: colors.dim(ownId) },
      }),
    );
  }

  /** A forward's line: where it went by which route, and the app's answer. */
  forward(change: Change, key: string, route: ForwardRoute, outcome: ForwardLine): void {
    const a = change.attempt;
    if (this.out.json) {
      this.out.jsonOut.line({
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
      });
      return;
    }
    const { colors } = this.out;
    const layout = this.forwards();
    // Without the URL, the arrow says the line is a forward.
    const arrow = layout.has('url') ? '' : '→ ';
    const app =
      outcome.kind === 'answered'
        ? {
            text: `${arrow}app ${outcome.status}`,
            styled: `${arrow}app ${isDelivered(outcome.status) ? colors.green(String(outcome.status)) : colors.red(String(outcome.status))}`,
          }
        : { text: `${arrow}app down`, styled: arrow + colors.red('app down') };
    const verdict = outcome.signatureCheck === 'not_checked' ? 'not checked' : outcome.signatureCheck;
    const signatureStyle = { verified: colors.green, mismatch: colors.red, missing: colors.red, malformed: colors.red, not_checked: colors.dim }[
      outcome.signatureCheck
    ];
    // What the app's answer or the signature needs said, last: why the app did not answer, what a mismatch means.
    const why =
      outcome.kind === 'no_answer'
        ? `${noAnswer(outcome.error)}: not forwarded yet, tried again at the next poll`
        : outcome.signatureCheck === 'mismatch'
          ? 'it does NOT match the rebuilt body'
          : undefined;
    this.write(
      layout.line({
        time: this.clock(this.nowIso()),
        url: `→ ${shownUrl(route.url)}`,
        via: `via ${route.label}`,
        delivery: deliveryRef(this.changes(), 'delivery', sanitize(key), numberText(a.attempts)),
        app,
        signature: { text: verdict, styled: signatureStyle(verdict) },
        why: why === undefined ? undefined : { text: why, styled: colors.red(why) },
      }),
    );
  }

  /** The layout of the attempts' lines, decided at the first line. */
  private changes(): StreamLayout<ChangeKey> {
    this.changeLayout ??= new StreamLayout(CHANGE_FIELDS, this.columns());
    return this.changeLayout;
  }

  /**
   * The layout of the forwards' lines, decided at the first: the time, the app's answer and the signature's verdict
   * stay; the route (`via invoice.*`) goes first, then the URL keeps its scheme and host and loses its path's middle,
   * why the app did not answer goes, and the URL goes (the app's
   * answer then says `→ app 202`); the delivery is in the form of the attempts' lines.
   */
  private forwards(): StreamLayout<ForwardKey> {
    const widest = (texts: string[], floor: number) => Math.max(floor, ...texts.map(displayWidth));
    this.forwardLayout ??= new StreamLayout<ForwardKey>(
      [
        { key: 'time', width: TIME_WIDTH },
        {
          key: 'url',
          width: widest(
            this.routes.map((route) => `→ ${shownUrl(route.url)}`),
            16,
          ),
          min: 26,
          give: 1,
          drop: 4,
          cut: 'url',
        },
        {
          key: 'via',
          width: widest(
            this.routes.map((route) => `via ${route.label}`),
            5,
          ),
          drop: 0,
        },
        { key: 'delivery', width: this.changes().compact('delivery') ? DELIVERY_REF_SHORT : deliveryRefWidth(DELIVERY_ID_WIDTH) },
        { key: 'app', width: 10 },
        // The verdict alone, as listen's lines say it, at every width: `not checked` the widest.
        { key: 'signature', width: 11 },
        { key: 'why', width: 20, drop: 2 },
      ],
      this.columns(),
    );
    return this.forwardLayout;
  }

  private clock(iso: string): string {
    return clockTime(iso, this.out.serviceNow());
  }

  private nowIso(): string {
    return new Date(this.out.serviceNow()).toISOString();
  }

  private columns(): number | undefined {
    return this.out.stdout.isTTY ? this.out.stdout.columns : undefined;
  }

  private write(line: string): void {
    this.out.stdout.write(`${line}\n`);
  }
}
