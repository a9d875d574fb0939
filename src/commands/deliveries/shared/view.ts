import type { Colors } from '../../../render/colors.js';
import { renderTable, type Column, type TableOptions } from '../../../render/table.js';
import { ID_SHORT_WIDTH } from '../../../render/width.js';
import { type BlockValue, keyValues, sanitize, sanitizeBlock } from '../../../render/text.js';
import { laidOut, terminalColumns } from '../../../render/wrap.js';
import { clockTime, codeWords, noAnswer, relativeTime, statusWords } from '../../../render/words.js';
import { answeredStatus } from '../../../api/log.js';
import type { Attempt } from '../../../api/shapes.js';
import type { DeliveryStatus } from '../../../protocol/status.js';
import type { CommandDeps } from '../../../cli/context.js';
import { printJson } from '../../../cli/output.js';
import { CODE_WIDTH, DELIVERY_ID_WIDTH, EVENT_MIN, EVENT_WIDTH, STATUS_WIDTH } from '../../../cli/columns.js';
import { numberText } from '../../../exact-json.js';

/**
 * The status word in its colour; a failed delivery's retry due after it, in the same words as everywhere
 * (statusWords): with its time of day given `now`, without it (`failed · retry due`) given none.
 */
export function statusLabel(status: DeliveryStatus, colors: Colors, retry?: { nextAttemptAt: string | null | undefined; now?: number | undefined }): string {
  const word = status === 'delivered' ? colors.green(status) : status === 'failed' ? colors.red(status) : colors.yellow(sanitize(status));
  const words = retry ? statusWords(status, retry.nextAttemptAt, retry.now) : status;
  return words === status ? word : `${word}${colors.yellow(words.slice(status.length))}`;
}

type Pair = [string, BlockValue];

/** `2 of dlv_A` for a retry whose delivery the service names; a first attempt's own id is its delivery's. */
function attemptOf(attempt: Attempt): string {
  const number = numberText(attempt.attempts) ?? '';
  return attempt.delivery_id && attempt.delivery_id !== attempt.id ? `${number} of ${attempt.delivery_id}` : number;
}

/** An attempt's code: the status its endpoint answered, `no answer`, or nothing while it is under way. */
export const attemptCode = (attempt: Pick<Attempt, 'response_code' | 'status'>) => codeWords(answeredStatus(attempt.response_code), attempt.status);

/**
 * The attempt log as a table. Its columns by width (the rows never change them): at 132 columns all, the time in
 * its compact form; at 100 the attempt is left out; at 80 the time too, the event type cut between its words; at 60
 * the event type too. The id, the status with its retry due and the code stay whole at every width.
 */
export const attemptColumns = (now: number): Column[] => [
  { title: 'ID', kind: 'id', width: DELIVERY_ID_WIDTH },
  { title: 'EVENT', kind: 'words', width: EVENT_WIDTH, min: EVENT_MIN, give: 3, drop: 5 },
  { title: 'STATUS', width: STATUS_WIDTH },
  { title: 'CODE', width: CODE_WIDTH },
  // `3 of dlv_…`: the attempt's number, and its delivery's id (whole, or in its short form).
  { title: 'ATTEMPT', kind: 'id', width: 5 + DELIVERY_ID_WIDTH, min: 5 + ID_SHORT_WIDTH, give: 1, drop: 2 },
  { title: 'CREATED', kind: 'time', now, give: 0, drop: 4 },
];

export async function attemptTable(items: Attempt[], colors: Colors, now: number, options: TableOptions = {}): Promise<string> {
  if (options.plain) {
    // For scripts: the attempt's number alone, and its delivery's id (when the service says it) last.
    const rows = items.map((d) => [
      d.id,
      d.event,
      d.status,
      attemptCode(d),
      numberText(d.attempts) ?? '',
      d.created_at,
      ...(d.delivery_id ? [d.delivery_id] : []),
    ]);
    return renderTable([], rows, colors, options);
  }
  return renderTable(
    attemptColumns(now),
    items.map((d) => [d.id, d.event, statusWords(d.status, d.next_attempt_at), attemptCode(d), attemptOf(d), d.created_at]),
    colors,
    options,
  );
}

/** An attempt as a key/value block, laid out for a terminal `width` wide (none: a pipe's whole lines). */
export function attemptBlock(attempt: Attempt, colors: Colors, now: number, width?: number): string {
  const pairs: Pair[] = [
    ['id', attempt.id],
    ...(attempt.webhook_id ? [['webhook', attempt.webhook_id] as Pair] : []),
    ['event', attempt.event],
    ['status', { styled: statusLabel(attempt.status, colors, { nextAttemptAt: attempt.next_attempt_at, now }) }],
    // No answer says why on its own line, as every command says it (`no answer: connection refused`).
    ['response', String(answeredStatus(attempt.response_code) ?? noAnswer(attempt.status === 'pending' ? undefined : attempt.failure_reason))],
    ...(attempt.failure_reason && answeredStatus(attempt.response_code) !== undefined ? [['failure', attempt.failure_reason] as Pair] : []),
    ...(attempt.attempts === undefined ? [] : [['attempt', attemptOf(attempt)] as Pair]),
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
  else deps.stdout.write(attemptBlock(attempt, deps.colors, deps.serviceNow(), terminalColumns(deps.stdout)));
  if (attempt.status !== 'failed') return 0;
  const status = answeredStatus(attempt.response_code);
  // Why there was no answer, when the service says (the sandbox's failure_reason: a timeout, a refused connection).
  const answer = status === undefined ? noAnswer(attempt.failure_reason) : `it answered ${status}`;
  deps.stderr.write(laidOut(deps.stderr, `whsvc: the endpoint did not accept the ${what} (${sanitize(answer)})\n`));
  if (!retriesFollow) return 1;
  // The interface retries failed deliveries by itself, with backoff; say so, and how to follow them.
  const webhook = typeof attempt.webhook_id === 'string' ? sanitize(attempt.webhook_id) : '<webhook-id>';
  const due = attempt.next_attempt_at ? ` (retry due ${clockTime(attempt.next_attempt_at, deps.serviceNow())})` : '';
  deps.stderr.write(
    laidOut(
      deps.stderr,
      `hint: the service retries it automatically, with backoff${due}: follow it with \`whsvc deliveries list ${webhook} --status failed\`; \`whsvc deliveries retry ${sanitize(attempt.id)}\` sends it again now\n`,
    ),
  );
  return 1;
}
