import type { Colors } from '../../render/colors.js';
import { DELIVERY_REF_SHORT, deliveryRef, deliveryRefWidth, StreamLayout, type StreamField } from '../../render/line.js';
import { displayWidth } from '../../render/width.js';
import { DELIVERY_ID_WIDTH, EVENT_MIN, EVENT_WIDTH } from '../../cli/columns.js';
import { sanitize } from '../../render/text.js';
import { clockTime, noAnswer, elapsed } from '../../render/words.js';
import { serviceTimeOf } from '../../protocol/headers.js';
import type { Decision } from '../../receiver/answer.js';
import type { Receipt } from '../../receiver/receive.js';
import { isMistakenTokenRequest, withoutCredentials } from '../../protocol/record-line.js';

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
  /** Their names (files), for the room a line keeps for `verified by <file>`. */
  secretNames?: readonly string[] | undefined;
}

/**
 * The time of day a line is stamped with: the service's, as the sender's
 * `Date` header says it (the sandbox's clock, moved or not; the attempt's time
 * when `tail --forward-to` or `replay` sends one on), else when it arrived.
 */
function stampOf(receipt: Receipt): string {
  const sent = serviceTimeOf(receipt.headers, receipt.receivedAt);
  return clockTime(sent, Date.parse(sent));
}

/** The --json line of a request (NDJSON). */
export function receiptJson(receipt: Receipt, words: AnswerWords): Record<string, unknown> {
  const { decision: d, forwarded } = receipt;
  return {
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
    too_late: receipt.senderLeftAfterMs !== undefined,
    forward: forwarded
      ? { url: forwarded.url, route: forwarded.route, status: forwarded.status, ...(forwarded.error ? { error: forwarded.error } : {}) }
      : null,
    // What a record never keeps is never printed either: credential headers, and a token request's body (its secret).
    headers: withoutCredentials(receipt.headers),
    body: isMistakenTokenRequest(receipt.body, d.signatureCheck) ? null : receipt.body.toString('utf8'),
  };
}

type ReceiptKey = 'time' | 'event' | 'delivery' | 'signature' | 'answer' | 'rule' | 'app' | 'via' | 'notes';

/** Why listen answered as it did, in the words of the flag or the check that decided it. */
export function ruleWords(rule: Decision['rule'], words: AnswerWords, attemptNumber: number | undefined): string {
  const because = {
    signature: 'signature',
    replay: 'replay',
    event_mismatch: 'event header',
    fail_first: `--fail-first: attempt ${attemptNumber} of ${words.failFirst}`,
    fail_rate: `--fail-rate ${words.failRate}, seed ${words.seed}`,
    forward: 'forwarded',
    respond_status: words.defaultStatus ? 'default' : '--respond-status',
    not_recorded: 'not recorded',
  }[rule];
  return `(${because}${words.delayMs ? `, after ${elapsed(words.delayMs)}` : ''})`;
}

/**
 * The fields of listen's lines, decided once from the terminal's width when it starts, so that every line has them
 * in the same places and a field left out is left out of every line. They give way in this order: the delivery id
 * takes its short form; the route (`via …`) goes; the rule's words go; the event type is cut between its words; the app's status (the answer's) goes; the event type goes. The time,
 * the verdict and the answer stay, and what is odd about a delivery (a retry, a replay, a contradicting event header)
 * is said last, on every width.
 */
export function receiptLayout(words: AnswerWords, routeLabels: string[], columns?: number): StreamLayout<ReceiptKey> {
  // The widest rule this run can give (its flags are known now): the rule's place is as wide on every line.
  const rules = (['signature', 'replay', 'event_mismatch', 'respond_status', 'not_recorded'] as const).map((rule) => ruleWords(rule, words, undefined));
  if (words.failFirst !== undefined) rules.push(ruleWords('fail_first', words, words.failFirst));
  if (words.failRate !== undefined) rules.push(ruleWords('fail_rate', words, undefined));
  if (routeLabels.length > 0) rules.push(ruleWords('forward', words, undefined));
  const fields: Array<StreamField<ReceiptKey>> = [
    { key: 'time', width: 8 },
    { key: 'event', width: EVENT_WIDTH, min: EVENT_MIN, give: 5, drop: 8, cut: 'words' },
    { key: 'delivery', width: deliveryRefWidth(DELIVERY_ID_WIDTH), min: DELIVERY_REF_SHORT, give: 1, cut: 'id' },
    // The verdict alone, the glossary's word, at every width: `not checked` the widest.
    { key: 'signature', width: 11 },
    { key: 'answer', width: 6 },
    // With several secrets, which one verified a delivery is what a line is for (a move to a new one): the rule gives way first.
    { key: 'rule', width: Math.max(...rules.map(displayWidth)), drop: words.namesSecret ? 0 : 4, attached: true, cut: 'words' },
    ...(routeLabels.length > 0
      ? [
          // The app's status is the answer's (`-> 202  app 202`): on a narrow terminal the answer alone says it.
          { key: 'app' as const, width: 8, drop: 7 },
          { key: 'via' as const, width: Math.max(...routeLabels.map((label) => displayWidth(`via ${label}`))), drop: 3 },
        ]
      : []),
    { key: 'notes', width: words.namesSecret ? Math.max(5, ...(words.secretNames ?? []).map((name) => displayWidth(`verified by ${sanitize(name)}`))) : 5 },
  ];
  return new StreamLayout(fields, columns);
}

/**
 * The line a person reads: time, event, delivery and attempt, the signature's verdict, the answer with the rule that
 * decided it, the app's answer to a forward and its route, and what is odd about it (a retry, a replay), in the
 * stream's layout (receiptLayout).
 */
export function receiptLine(receipt: Receipt, words: AnswerWords, colors: Colors, layout: StreamLayout<ReceiptKey>): string {
  const { decision: d, forwarded } = receipt;
  const verdict = d.signatureCheck === 'not_checked' ? 'not checked' : d.signatureCheck;
  const labelColor = { verified: colors.green, mismatch: colors.red, missing: colors.yellow, malformed: colors.red, not_checked: colors.yellow }[
    d.signatureCheck
  ];
  const ruleText = ruleWords(d.rule, words, d.attemptNumber);
  // A retry or a replay of the delivery on this line names no id: it is the one beside it. Another's id is in the
  // stream's form.
  const notes: Array<[string, (text: string) => string]> = [];
  if (d.signatureCheck === 'not_checked') notes.push(['no secret yet', colors.yellow]);
  // With several secrets (a receiver moving to a new one), which one verified: by file, never the secret.
  if (d.verifiedBy !== null && words.namesSecret) notes.push([`verified by ${sanitize(d.verifiedBy)}`, colors.green]);
  if (d.eventMismatch) notes.push([`header says ${sanitize(d.headerEvent)}`, colors.red]);
  const other = (id: unknown) => layout.id('delivery', sanitize(id));
  if (d.repeat === 'retry') notes.push([d.repeatOf === d.deliveryId ? 'retry' : `retry of ${other(d.repeatOf)}`, colors.yellow]);
  if (d.repeat === 'replay') notes.push([d.repeatOf === d.deliveryId ? 'REPLAY' : `REPLAY of ${other(d.repeatOf)}`, colors.red]);
  if (d.repeat === 'same_body') notes.push([`same body as ${other(d.repeatOf)}`, colors.yellow]);
  if (forwarded && forwarded.status === null) notes.push([`app: ${noAnswer(forwarded.error)}`, colors.red]);
  if (receipt.senderLeftAfterMs !== undefined) notes.push([`too late: the sender left after ${elapsed(receipt.senderLeftAfterMs)}`, colors.red]);
  const notesText = notes.map(([text]) => text).join('  ');
  return `${layout.line({
    time: stampOf(receipt),
    event: sanitize(d.event ?? '(no event)'),
    delivery: deliveryRef(layout, 'delivery', sanitize(d.deliveryId ?? '-'), d.attempt ? sanitize(d.attempt) : undefined),
    signature: { text: verdict, styled: labelColor(verdict) },
    answer: `-> ${d.status}`,
    rule: { text: ruleText, styled: colors.dim(ruleText) },
    app: forwarded ? `app ${forwarded.status ?? 'down'}` : undefined,
    via: forwarded ? `via ${sanitize(forwarded.route)}` : undefined,
    notes: notes.length === 0 ? undefined : { text: notesText, styled: notes.map(([text, color]) => color(text)).join('  ') },
  })}\n`;
}
