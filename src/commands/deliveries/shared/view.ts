import type { Colors } from '../../../render/colors.js';
import { renderTable, tableTime, type TableOptions } from '../../../render/table.js';
import { clockTime, keyValues, relativeTime, sanitize, sanitizeBlock, statusWords } from '../../../render/text.js';
import { answeredStatus } from '../../../api/log.js';
import type { Attempt } from '../../../api/shapes.js';
import type { CommandDeps } from '../../../cli/context.js';
import { printJson } from '../../../cli/output.js';

/** The status word in its colour; a failed delivery's retry due after it, in the same words as everywhere (statusWords). */
export function statusLabel(status: string, colors: Colors, retry?: { nextAttemptAt: string | null | undefined; now: number }): string {
  const word = status === 'delivered' ? colors.green(status) : status === 'failed' ? colors.red(status) : colors.yellow(sanitize(status));
  const words = retry ? statusWords(status, retry.nextAttemptAt, retry.now) : status;
  return words === status ? word : `${word}${colors.yellow(words.slice(status.length))}`;
}

type Pair = [string, string | { styled: string }];

/** `2 of dlv_A` for a retry whose delivery the service names; a first attempt's own id is its delivery's. */
function attemptOf(attempt: Attempt): string {
  const number = attempt.attempts === undefined ? '' : String(attempt.attempts);
  return attempt.delivery_id && attempt.delivery_id !== attempt.id ? `${number} of ${attempt.delivery_id}` : number;
}

export async function attemptTable(items: Attempt[], colors: Colors, now: number, options: TableOptions = {}): Promise<string> {
  const code = (d: Attempt) => String(answeredStatus(d.response_code) ?? '-');
  if (options.plain) {
    // For scripts: the attempt's number alone, and its delivery's id (when the service says it) last.
    const rows = items.map((d) => [
      d.id,
      d.event,
      d.status,
      code(d),
      String(d.attempts ?? ''),
      tableTime(d.created_at, now, options),
      ...(d.delivery_id ? [d.delivery_id] : []),
    ]);
    return renderTable([], rows, colors, options);
  }
  // The id and the status stay whole; "2 of dlv_…" gives way first (keeping its number and the id's start), the event
  // type and the time last. Too narrow for all: the attempt, then the time, then the event type are left out (one
  // that reads the same on every row before anything is cut).
  return renderTable(
    ['ID', 'EVENT', 'STATUS', 'CODE', 'ATTEMPT', 'CREATED'],
    items.map((d) => [d.id, d.event, statusWords(d.status, d.next_attempt_at), code(d), attemptOf(d), tableTime(d.created_at, now, options)]),
    colors,
    { whole: [0, 2], reluctant: [1, 5], dropFirst: [4, 5, 1], events: [1], ...options },
  );
}

export function attemptBlock(attempt: Attempt, colors: Colors, now: number): string {
  const pairs: Pair[] = [
    ['id', attempt.id],
    ...(attempt.webhook_id ? [['webhook', attempt.webhook_id] as Pair] : []),
    ['event', attempt.event],
    ['status', { styled: statusLabel(attempt.status, colors, { nextAttemptAt: attempt.next_attempt_at, now }) }],
    ['response', String(answeredStatus(attempt.response_code) ?? 'no HTTP response')],
    ...(attempt.failure_reason ? [['failure', attempt.failure_reason] as Pair] : []),
    ...(attempt.attempts === undefined ? [] : [['attempt', attemptOf(attempt)] as Pair]),
    ['created', `${relativeTime(attempt.created_at, now)} (${attempt.created_at})`],
    ...(attempt.signature ? [['signature', attempt.signature] as Pair] : []),
  ];
  let text = keyValues(pairs, colors.dim);
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
  deps: Pick<CommandDeps, 'stdout' | 'stderr' | 'json' | 'colors' | 'serviceNow'>,
  attempt: Attempt,
  what: string,
  /** Whether automatic retries follow a failure (the interface's own, for a test send), to say so. */
  retriesFollow = false,
): number {
  if (deps.json) printJson(deps, attempt);
  else deps.stdout.write(attemptBlock(attempt, deps.colors, deps.serviceNow()));
  if (attempt.status !== 'failed') return 0;
  const status = answeredStatus(attempt.response_code);
  // Why there was no answer, when the service says (the sandbox's failure_reason: a timeout, a refused connection).
  const answer = status === undefined ? `no HTTP response${attempt.failure_reason ? `: ${attempt.failure_reason}` : ''}` : `it answered ${status}`;
  deps.stderr.write(`whsvc: the endpoint did not accept the ${what} (${sanitize(answer)})\n`);
  if (!retriesFollow) return 1;
  // The interface retries failed deliveries by itself, with backoff; say so, and how to follow them.
  const webhook = typeof attempt.webhook_id === 'string' ? sanitize(attempt.webhook_id) : '<webhook-id>';
  const due = attempt.next_attempt_at ? ` (retry due ${clockTime(attempt.next_attempt_at, deps.serviceNow())})` : '';
  deps.stderr.write(
    `hint: the service retries it automatically, with backoff${due}: follow it with \`whsvc deliveries list ${webhook} --status failed\`; \`whsvc deliveries retry ${sanitize(attempt.id)}\` sends it again now\n`,
  );
  return 1;
}
