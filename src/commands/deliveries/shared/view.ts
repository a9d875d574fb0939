import type { Colors } from '../../../render/colors.js';
import { DELIVERY_REF_SHORT, deliveryRefWidth } from '../../../render/line.js';
import { renderTable, type Column, type TableOptions } from '../../../render/table.js';
import { type BlockValue, keyValues, sanitize, sanitizeBlock, shellWord } from '../../../render/text.js';
import { laidOut, terminalColumns } from '../../../render/wrap.js';
import { clockTime, codeWords, fateSentence, fateWords, noAnswer, relativeTime, statusWords } from '../../../render/words.js';
import { answeredStatus, deliveryKey } from '../../../api/log.js';
import type { Attempt } from '../../../api/shapes.js';
import type { DeliveryStatus } from '../../../protocol/status.js';
import type { CommandDeps } from '../../../cli/context.js';
import { printJson } from '../../../cli/output.js';
import { CODE_WIDTH, DELIVERY_ID_WIDTH, EVENT_MIN, EVENT_WIDTH, STATUS_WIDTH, WEBHOOK_ID_WIDTH } from '../../../cli/columns.js';
import { numberText } from '../../../exact-json.js';
import { attemptWords, fateOfNewest, NewestFirst, type ShownFate } from './fate.js';

/**
 * The status word in its colour, and what is said after it (a failed delivery's retry due, or no more retries: the
 * words of statusWords or fateWords, which begin with the status) in yellow.
 */
export function statusLabel(status: DeliveryStatus, colors: Colors, words: string = status): string {
  const word = status === 'delivered' ? colors.green(status) : status === 'failed' ? colors.red(status) : colors.yellow(sanitize(status));
  return words === status || !words.startsWith(status) ? word : `${word}${colors.yellow(words.slice(status.length))}`;
}

type Pair = [string, BlockValue];

/** The delivery an attempt belongs to and its number, as listen, tail and the sandbox's log name it: `dlv_A #2`. */
function deliveryRefOf(attempt: Attempt): string {
  const number = numberText(attempt.attempts);
  return `${deliveryKey(attempt)}${number === undefined ? '' : ` #${number}`}`;
}

/** What an attempt's detail (deliveries show, tail -i) calls its code: the glossary's word. */
export const RESPONSE = 'response';

/**
 * An attempt's code in its detail: the status its endpoint answered, or no answer with why, as every command says it
 * (`no answer: connection refused`).
 */
export const responseWords = (attempt: Pick<Attempt, 'response_code' | 'status' | 'failure_reason'>) =>
  String(answeredStatus(attempt.response_code) ?? noAnswer(attempt.status === 'pending' ? undefined : attempt.failure_reason));

/** An attempt's code: the status its endpoint answered, `no answer`, or nothing while it is under way. */
export const attemptCode = (attempt: Pick<Attempt, 'response_code' | 'status'>) => codeWords(answeredStatus(attempt.response_code), attempt.status);

/**
 * The attempt log as a table, each row named by its delivery and its number (`dlv_A #3`, as listen and tail name it),
 * so that a delivery's retries read as one. Its columns by width, for the widest rows (narrower rows get back what
 * they leave room for: render/table.ts): at 132 columns all, the time in its compact form, the event type cut between
 * its words; at 100 the attempt's own id is left out; at 80 the delivery's id takes its short form; at 60 the time and
 * the event type are left out too. The status (with the delivery's fate on its newest attempt) and the code stay
 * whole, at every width (the glossary's compact fate, `failed · retry due`, `failed · no more retries`: 24 columns).
 * A list across webhooks (`withWebhook`, streamed: its columns from these declared widths alone) adds the webhook
 * after the delivery: whole at 132 columns (the attempt's own id gone, the event type cut between its words takes the
 * room left), short from 100; at 60 it goes, as the event type does, for the status's words whole.
 */
export const attemptColumns = (now: number, withWebhook = false): Column[] => [
  { title: 'DELIVERY', kind: 'id', width: deliveryRefWidth(DELIVERY_ID_WIDTH), min: DELIVERY_REF_SHORT, give: 3 },
  ...(withWebhook ? [{ title: 'WEBHOOK', kind: 'id', width: WEBHOOK_ID_WIDTH, give: 1.5, drop: 6 } satisfies Column] : []),
  { title: 'EVENT', kind: 'words', width: EVENT_WIDTH, min: EVENT_MIN, give: 1, drop: 5 },
  // Whole at every width: a state has one wording (the glossary's compact fate, `failed · retry due`).
  { title: 'STATUS', width: STATUS_WIDTH },
  { title: 'CODE', width: CODE_WIDTH },
  { title: 'CREATED', kind: 'time', now, give: 0, drop: 4 },
  // The attempt's own id, for `deliveries show`, where it is not its delivery's (a retry's).
  { title: 'ATTEMPT ID', kind: 'id', width: DELIVERY_ID_WIDTH, drop: 2 },
];

/**
 * A page of the attempt log. `newest` tells which rows are their delivery's newest attempt: their status says the
 * delivery's fate (`failed · no more retries`); the others say their own. `withWebhook`: with each one's webhook
 * (`webhook_id`), for a list across webhooks.
 */
export async function attemptTable(
  items: Attempt[],
  colors: Colors,
  now: number,
  options: TableOptions = {},
  { newest = new NewestFirst(false), withWebhook = false }: { newest?: NewestFirst; withWebhook?: boolean } = {},
): Promise<string> {
  const webhook = (d: Attempt) => (withWebhook ? [d.webhook_id ?? ''] : []);
  if (options.plain) {
    // For scripts: the code a number or nothing (empty with no answer, as gh leaves a field, for awk's comparisons),
    // the attempt's number alone, and its delivery's id (when the service says it) last.
    const rows = items.map((d) => [
      d.id,
      ...webhook(d),
      d.event,
      d.status,
      String(answeredStatus(d.response_code) ?? ''),
      numberText(d.attempts) ?? '',
      d.created_at,
      ...(d.delivery_id ? [d.delivery_id] : []),
    ]);
    return renderTable([], rows, colors, options);
  }
  return renderTable(
    attemptColumns(now, withWebhook),
    items.map((d) => [
      deliveryRefOf(d),
      ...webhook(d),
      d.event,
      attemptWords(d, newest.isNewest(d)),
      attemptCode(d),
      d.created_at,
      d.id === deliveryKey(d) ? '' : d.id,
    ]),
    colors,
    options,
  );
}

/**
 * One attempt as a key/value block. Its status line says the delivery's fate when the attempt is the delivery's
 * newest (`failed · no more retries`); for an earlier one a `fate` line says it (`delivered by attempt 6 at
 * 14:02:11`), or why it is not known. Laid out for a terminal `width` wide (none: a pipe's whole lines).
 */
export function attemptBlock(attempt: Attempt, colors: Colors, now: number, shown: ShownFate = { newest: false }, width?: number): string {
  const words = shown.newest && shown.fate ? fateWords(shown.fate, now) : statusWords(attempt.status, attempt.next_attempt_at, now);
  const fate = !shown.newest && shown.fate ? fateSentence(shown.fate, now) : shown.unknown && `not known: ${shown.unknown}`;
  const pairs: Pair[] = [
    ['id', attempt.id],
    ...(attempt.webhook_id ? [['webhook', attempt.webhook_id] as Pair] : []),
    ['event', attempt.event],
    ['status', { styled: statusLabel(attempt.status, colors, words) }],
    ...(fate ? [['fate', fate] as Pair] : []),
    [RESPONSE, responseWords(attempt)],
    ...(attempt.failure_reason && answeredStatus(attempt.response_code) !== undefined ? [['failure', attempt.failure_reason] as Pair] : []),
    // Its delivery and number as listen and tail name them (`dlv_A #2`); its number alone when the service names no delivery.
    ...(attempt.delivery_id !== undefined ? [['delivery', deliveryRefOf(attempt)] as Pair] : []),
    ...(attempt.delivery_id === undefined && attempt.attempts !== undefined ? [['attempt', numberText(attempt.attempts)] as Pair] : []),
    ['created', `${relativeTime(attempt.created_at, now)} (${attempt.created_at})`],
    // Shown, not copied (diagnose checks it): wider than the line, it is shortened as an id is.
    ...(attempt.signature ? [['signature', { text: attempt.signature, shorten: [attempt.signature] }] as Pair] : []),
  ];
  let text = keyValues(pairs, colors.dim, width);
  if (attempt.response_body) text += `${colors.dim('answer')}\n${sanitizeBlock(attempt.response_body)}\n`;
  if (attempt.payload !== undefined) {
    text += `${colors.dim('payload')}\n${sanitizeBlock(JSON.stringify(attempt.payload, null, 2))}\n`;
  }
  return text;
}

/**
 * Shows an attempt that was just sent (test, retry) and says on stderr when the
 * endpoint did not take it: exit 1 then, for scripts, though the request itself
 * went through.
 */
export function reportSentAttempt(
  deps: Pick<CommandDeps, 'stdout' | 'stderr' | 'json' | 'jsonOut' | 'colors' | 'serviceNow'>,
  attempt: Attempt,
  what: string,
  /** Whether automatic retries follow a failure (the interface's own, for a test send), to say so. */
  retriesFollow = false,
): number {
  if (deps.json) printJson(deps, attempt);
  else deps.stdout.write(attemptBlock(attempt, deps.colors, deps.serviceNow(), { fate: fateOfNewest(attempt), newest: true }, terminalColumns(deps.stdout)));
  if (attempt.status !== 'failed') return 0;
  const status = answeredStatus(attempt.response_code);
  // Why there was no answer, when the service says (the sandbox's failure_reason: a timeout, a refused connection).
  const answer = status === undefined ? noAnswer(attempt.failure_reason) : `it answered ${status}`;
  const message = `the endpoint did not accept the ${what} (${sanitize(answer)})`;
  deps.stderr.write(laidOut(deps.stderr, `whsvc: ${message}\n`));
  // As every failure with --json: its JSON line on stderr too, for a script that reads errors there.
  if (deps.json) deps.stderr.write(`${JSON.stringify({ error: { status: status ?? null, code: 'not_delivered', message } })}\n`);
  if (!retriesFollow) return 1;
  // The interface retries failed deliveries by itself, with backoff; say so, and how to follow them: each command on a
  // line of its own, to be pasted whole (broken at its options, ` \`, where it is wider than the line).
  const webhook = typeof attempt.webhook_id === 'string' ? shellWord(attempt.webhook_id) : 'WEBHOOK_ID';
  const due = attempt.next_attempt_at ? ` (retry due ${clockTime(attempt.next_attempt_at, deps.serviceNow())})` : '';
  deps.stderr.write(
    laidOut(
      deps.stderr,
      `hint: the service retries it automatically, with backoff${due}; follow it, or send it again now:\n  whsvc deliveries list ${webhook} --status failed\n  whsvc deliveries retry ${shellWord(attempt.id)}\n`,
    ),
  );
  return 1;
}
