import { BROKEN_ANSWER } from '../net.js';
// Control characters (C0, DEL, C1), so that no value from the server can move
// the cursor, change colours, retitle the terminal or forge another line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const LINE_BREAKS = /[\t\n\r]/g;

/** A server value for one line (a cell, a key/value pair): control characters removed, line breaks made spaces. */
export function sanitize(value: unknown): string {
  return String(value ?? '')
    .replace(LINE_BREAKS, ' ')
    .replace(CONTROL, '');
}

/** Text as one word of a POSIX shell, exactly: as it is when plain, else in single quotes. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9._=/:@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A server string made safe to paste into a shell: control characters removed, quoted unless plain. */
export function shellWord(value: string): string {
  return shellQuote(sanitize(value));
}

/** A value quoted for a message with every control character escaped (`"a\\u001b[31m"`): seen as it is, never acted on. */
export function quoted(value: string): string {
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A server text shown as a block (a payload): its own line breaks kept, every other control character removed. */
export function sanitizeBlock(value: string): string {
  return value.replace(CONTROL, '');
}

const TIME_UNITS: Array<[number, Intl.RelativeTimeFormatUnit, string]> = [
  [60, 'second', 's'],
  [3600, 'minute', 'm'],
  [86_400, 'hour', 'h'],
  [86_400 * 30, 'day', 'd'],
  [86_400 * 365, 'month', 'mo'],
  [Infinity, 'year', 'y'],
];

/** How far `iso` is from `now`, in the largest unit it rounds to below the next (59.7 minutes is 1 hour, not 60 minutes). */
function timeDistance(iso: string, now: number): { count: number; unit: (typeof TIME_UNITS)[number] } | undefined {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  let size = 1;
  for (const unit of TIME_UNITS) {
    if (Math.round(Math.abs(seconds) / size) * size < unit[0]) return { count: Math.round(seconds / size), unit };
    size = unit[0];
  }
  return undefined;
}

/** "3 minutes ago", "in 2 hours": times as people read them. */
export function relativeTime(iso: string | undefined, now: number): string {
  if (!iso) return '';
  if (Number.isNaN(Date.parse(iso))) return sanitize(iso);
  const distance = timeDistance(iso, now);
  if (!distance) return iso;
  return new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(distance.count, distance.unit[1]);
}

/**
 * The same time in a narrow column's form, a number and a unit's letter: `now`, `15s ago`, `2h ago`, `in 3d`
 * (at most 8 columns, COMPACT_TIME_WIDTH), so that no word of the long form is cut in two.
 */
export function compactTime(iso: string | undefined, now: number): string {
  if (!iso) return '';
  if (Number.isNaN(Date.parse(iso))) return sanitize(iso);
  const distance = timeDistance(iso, now);
  if (!distance) return iso;
  if (distance.count === 0) return 'now';
  const amount = `${Math.abs(distance.count)}${distance.unit[2]}`;
  return distance.count < 0 ? `${amount} ago` : `in ${amount}`;
}

/** The widest relativeTime writes (`59 seconds ago`, `11 months ago`), and compactTime (`11mo ago`). */
export const RELATIVE_TIME_WIDTH = 14;
export const COMPACT_TIME_WIDTH = 8;

/**
 * The one way of saying that an attempt got no HTTP answer from its endpoint (refused, reset, timed out, a TLS
 * failure), in every command, the sandbox's log and the inspector: `no answer`, with why when it is known
 * (`no answer: connection refused`); a reason that already says it (`no answer within 10 s`, or `broken answer: …`
 * for an answer that broke HTTP) is said as it is.
 */
export function noAnswer(reason?: string | null): string {
  const why = sanitize(reason ?? '').trim();
  if (!why) return NO_ANSWER;
  return saysItself(why) ? why : `${NO_ANSWER}: ${why}`;
}

export const NO_ANSWER = 'no answer';

/** A reason that says by itself what came instead of an answer: `no answer within 10 s`, `broken answer: …` (net.ts). */
export const saysItself = (why: string): boolean => why.startsWith(NO_ANSWER) || why.startsWith(BROKEN_ANSWER);

/**
 * An attempt's code as a table or a line shows it: the HTTP status the endpoint answered, `no answer` when it gave
 * none (`response_code` 0 or null, by `answered`), and `-` while the attempt is under way.
 */
export function codeWords(answered: number | undefined, status: string): string {
  if (answered !== undefined) return String(answered);
  return status === 'pending' ? '-' : NO_ANSWER;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * A time of day as log lines print it (the sandbox's log, tail, listen, a
 * retry due): local time to the second, with the date before it when it is
 * not the day of `now` (the service's now), as the inspector shows it.
 */
export function clockTime(iso: string, now: number, withMs = false): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '--:--:--';
  const ms = withMs ? `.${String(date.getMilliseconds()).padStart(3, '0')}` : '';
  const time = `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}${ms}`;
  if (date.toDateString() === new Date(now).toDateString()) return time;
  return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${time}`;
}

/**
 * A delivery's state in words, the same everywhere (tables, blocks, tail, the
 * sandbox's log, the inspector): the status, and for a failed one whose
 * automatic retry is scheduled, `failed · retry due 14:02:05`. Given no `now`
 * (a table's column, which must fit a narrow terminal beside a whole id), the
 * time is left out: `failed · retry due`.
 */
export function statusWords(status: string, nextAttemptAt: string | null | undefined, now?: number): string {
  const word = sanitize(status);
  if (status !== 'failed' || !nextAttemptAt) return word;
  return now === undefined ? `${word} · retry due` : `${word} · retry due ${clockTime(nextAttemptAt, now)}`;
}

/**
 * A key/value block for one object. Values pass through sanitize here, the
 * one gate for server strings; colour a value with `styled` after that.
 */
export function keyValues(pairs: Array<[string, string | { styled: string }]>, label: (s: string) => string = (s) => s): string {
  const width = Math.max(...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => `${label(key.padEnd(width))}  ${typeof value === 'string' ? sanitize(value) : value.styled}`).join('\n') + '\n';
}

/** The first few of a longer list, and how many more there were: `a, b, c and 5 more`. */
export function andMore(shown: string[], total: number, separator = ', '): string {
  return `${shown.join(separator)}${total > shown.length ? ` and ${total - shown.length} more` : ''}`;
}

/** A count and its noun, `1 delivery`, `3 deliveries`; `plural` when it is not the noun and an s. */
export function counted(count: number, noun: string, plural = /y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
