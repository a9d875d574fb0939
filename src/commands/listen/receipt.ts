import type { IncomingHttpHeaders } from 'node:http';
import type { Colors } from '../../render/colors.js';
import { deliveryIdFields, fittedLine, shortId, shortIdsAt, type LineField } from '../../render/line.js';
import { clockTime, sanitize } from '../../render/text.js';
import type { Decision } from './answer.js';
import { carriesClientSecret, withoutCredentials } from '../../protocol/record.js';

/** One request as listen shows it: what it decided, what the app answered a forward, and the request itself. */
export interface Receipt {
  decision: Decision;
  receivedAt: Date;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The app's answer to a forward: its status, or null and why there was none. */
  forwarded?: { url: string; route: string; status: number | null; error?: string | undefined } | undefined;
}

/** How listen was told to answer, as its lines say it. */
export interface AnswerWords {
  /** The default answer, not a flag given: `(default)`. */
  defaultStatus: boolean;
  failFirst?: number | undefined;
  failRate?: number | undefined;
  seed?: string | undefined;
  delayMs?: number | undefined;
  /** Several secrets are given (a move to a new one): a verified line names the one that verified it. */
  namesSecret?: boolean | undefined;
}

/**
 * The time of day a line is stamped with: the service's, as the sender's
 * `Date` header says it (the sandbox's clock, moved or not; the attempt's time
 * when `tail --forward-to` or `replay` sends one on), else when it arrived.
 */
function stampOf(receipt: Receipt): string {
  const sent = typeof receipt.headers.date === 'string' ? Date.parse(receipt.headers.date) : Number.NaN;
  const time = Number.isNaN(sent) ? receipt.receivedAt.getTime() : sent;
  return clockTime(new Date(time).toISOString(), time);
}

/** Wide enough for the catalog's longest type (production_order.completed), so the lines line up. */
const EVENT_WIDTH = 26;

/** The --json line of a request (NDJSON). */
export function receiptJson(receipt: Receipt, words: AnswerWords): string {
  const { decision: d, forwarded } = receipt;
  return `${JSON.stringify({
    received_at: receipt.receivedAt.toISOString(),
    event: d.event ?? null,
    header_event: d.headerEvent ?? null,
    event_mismatch: d.eventMismatch,
    delivery_id: d.deliveryId ?? null,
    repeat: d.repeat,
    repeat_of: d.repeatOf,
    attempt: d.attempt === undefined ? null : Number(d.attempt),
    signature_check: d.signatureCheck,
    verified_by: d.verifiedBy,
    status: d.status,
    rule: d.rule,
    delay_ms: words.delayMs ?? 0,
    forward: forwarded
      ? { url: forwarded.url, route: forwarded.route, status: forwarded.status, ...(forwarded.error ? { error: forwarded.error } : {}) }
      : null,
    // What a record never keeps is never printed either: credential headers, and a token request's body (its secret).
    headers: withoutCredentials(receipt.headers),
    body: carriesClientSecret(receipt.body) ? null : receipt.body.toString('utf8'),
  })}\n`;
}

/**
 * The line a person reads: time, event, delivery and attempt, the signature's
 * verdict, what is odd about it (a retry, a replay), and the answer with the
 * rule that decided it. On a terminal it fits `columns` (fitLine): the
 * delivery id loses its middle, then the event type is cut.
 */
export function receiptLine(receipt: Receipt, words: AnswerWords, colors: Colors, columns?: number): string {
  const { decision: d, forwarded } = receipt;
  const labelWords =
    d.signatureCheck === 'not_checked'
      ? 'signature not checked (no secret yet)'
      : d.verifiedBy !== null && words.namesSecret
        ? `signature verified by ${sanitize(d.verifiedBy)}`
        : `signature ${d.signatureCheck}`;
  const labelColor = { verified: colors.green, mismatch: colors.red, missing: colors.yellow, malformed: colors.red, not_checked: colors.yellow }[
    d.signatureCheck
  ];
  const because = {
    signature: 'signature',
    replay: 'replay',
    event_mismatch: 'event header',
    fail_first: `--fail-first: attempt ${d.attemptNumber} of ${words.failFirst}`,
    fail_rate: `--fail-rate ${words.failRate}, seed ${words.seed}`,
    forward: 'forwarded',
    respond_status: words.defaultStatus ? 'default' : '--respond-status',
    not_recorded: 'not recorded',
  }[d.rule];
  const ruleText = `(${because}${words.delayMs ? `, after ${words.delayMs} ms` : ''})`;
  // A retry or a replay of the delivery on this line names no id: it is the one beside it.
  const flags: Array<[string, (text: string) => string]> = [];
  if (d.eventMismatch) flags.push([`header says ${sanitize(d.headerEvent)}`, colors.red]);
  // Ids short on every line of a terminal narrower than a line with a flag and its ids whole.
  const short = shortIdsAt(columns, 120);
  const other = (id: unknown) => (short ? shortId(sanitize(id)) : sanitize(id));
  if (d.repeat === 'retry') flags.push([d.repeatOf === d.deliveryId ? 'retry' : `retry of ${other(d.repeatOf)}`, colors.yellow]);
  if (d.repeat === 'replay') flags.push([d.repeatOf === d.deliveryId ? 'REPLAY' : `REPLAY of ${other(d.repeatOf)}`, colors.red]);
  if (d.repeat === 'same_body') flags.push([`same body as ${other(d.repeatOf)}`, colors.yellow]);
  const forwardText = forwarded ? `app ${forwarded.status ?? `down (${forwarded.error})`}` : '';
  // On a narrow terminal, in this order: the delivery id takes its short form, the rule's words are cut, the event type
  // and a flag's id are cut, the rule's words go, then the event type. The verdict and the answer's status stay whole.
  const fields: LineField[] = [
    { text: stampOf(receipt) },
    { text: sanitize(d.event ?? '(no event)'), pad: EVENT_WIDTH, min: 12, cut: 'end', give: 3, drop: 5 },
    ...deliveryIdFields(sanitize(d.deliveryId ?? '-'), d.attempt ? sanitize(d.attempt) : undefined, { short, give: 1, pad: 32 }),
    { text: labelWords, styled: labelColor(labelWords) },
    ...flags.map(([text, color]): LineField => ({ text, styled: color(text), min: 12, cut: 'middle', give: 3 })),
    { text: `-> ${d.status}` },
    { text: ruleText, styled: colors.dim(ruleText), attached: true, min: 10, cut: 'end', give: 2, drop: 4 },
    ...(forwarded ? [{ text: forwardText }, { text: `via ${forwarded.route}`, drop: 1 }] : []),
  ];
  return `${fittedLine([fields], columns)}\n`;
}
