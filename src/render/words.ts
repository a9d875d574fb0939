// How whsvc says times, durations and the outcome of an attempt, in one place for the CLI, the sandbox's banner and
// log, and the inspector's page (which bundles this module: nothing here may need Node).

import type { Fate } from '../protocol/fate.js';
import type { DeliveryStatus } from '../protocol/status.js';
import { countText, sanitize } from './text.js';

/** The units of a duration as the flags take them. */
export const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A span of time in words: `12 ms`, `1.5 s`, `10 s`, `3 min 20 s`, `2 h 5 min`, `3 d 4 h`. Every duration
 * a sentence says (a time limit, how long an answer took, a wait, a clock's jump) is written by it.
 */
export function elapsed(ms: number): string {
  const abs = Math.abs(ms);
  if (Math.round(abs) < 1000) return `${Math.round(abs)} ms`;
  // Rounded to the smallest unit shown first, then split: 119.6 s is 2 min, never 1 min 60 s.
  if (Math.round(abs / 100) < 100) return `${Math.round(abs / 100) / 10} s`;
  const seconds = Math.round(abs / 1000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return pair(seconds, 60, 'min', 's');
  const minutes = Math.round(abs / 60_000);
  if (minutes < 1440) return pair(minutes, 60, 'h', 'min');
  return pair(Math.round(abs / 3_600_000), 24, 'd', 'h');
}

/** A duration as elapsed() says it, with tenths of a millisecond below 10 ms: an answer on loopback takes less than one. */
export const elapsedFine = (ms: number): string => (Math.abs(ms) < 9.95 ? `${Math.round(ms * 10) / 10} ms` : elapsed(ms));

/** `count` of the small unit as whole large units and the rest: `pair(90, 60, 'min', 's')` is `1 min 30 s`. */
const pair = (count: number, per: number, large: string, small: string): string =>
  `${Math.floor(count / per)} ${large}${count % per === 0 ? '' : ` ${count % per} ${small}`}`;

/** A duration as a flag takes it (for a flag to type, never a sentence), in the largest unit that says it whole: `24h`, `90s`, `1500ms`. */
export function durationText(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) if (ms >= UNIT_MS[unit]! && ms % UNIT_MS[unit]! === 0) return `${ms / UNIT_MS[unit]!}${unit}`;
  return `${ms}ms`;
}

const SIZE_UNITS: Array<[string, number]> = [
  ['GiB', 1024 ** 3],
  ['MiB', 1024 ** 2],
  ['KiB', 1024],
];

/** A number of bytes as a size flag takes it (for a flag to type, never a sentence), in the largest unit that says it whole: `64MiB`, `1GiB`, `1500B`. */
export function sizeText(bytes: number): string {
  for (const [unit, size] of SIZE_UNITS) if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  return `${bytes}B`;
}

/** A size in words, as every sentence says one (sizeText is a flag's form): `1 MiB`, `64 KiB`, else bytes. */
export function bytesText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${countText(bytes)} bytes`;
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

/**
 * An answer that breaks HTTP, in words that begin so (`broken answer: its headers pass 16 KiB`): printed as they
 * are, never after "no answer", since something did answer (net.ts BROKEN_ANSWER_CODE).
 */
export const BROKEN_ANSWER = 'broken answer';

/** A reason that says by itself what came instead of an answer: `no answer within 10 s`, `broken answer: …`. */
const saysItself = (why: string): boolean => why.startsWith(NO_ANSWER) || why.startsWith(BROKEN_ANSWER);

/**
 * An attempt's code as a table or a line shows it: the HTTP status the endpoint answered, `no answer` when it gave
 * none (`response_code` 0 or null, by `answered`), and `-` while the attempt is under way.
 */
export function codeWords(answered: number | undefined, status: DeliveryStatus): string {
  if (answered !== undefined) return String(answered);
  return status === 'pending' ? '-' : NO_ANSWER;
}

/**
 * A delivery's state in words, the same everywhere (tables, blocks, tail, the
 * sandbox's log, the inspector): the status, and for a failed one whose
 * automatic retry is scheduled, `failed · retry due 14:02:05`. Given no `now`
 * (a table's column, which must fit a narrow terminal beside a whole id), the
 * time is left out: `failed · retry due`.
 */
export function statusWords(status: DeliveryStatus, nextAttemptAt: string | null | undefined, now?: number): string {
  const word = sanitize(status);
  if (status !== 'failed' || !nextAttemptAt) return word;
  return now === undefined ? `${word} · retry due` : `${word} · retry due ${clockTime(nextAttemptAt, now)}`;
}

/** What a failed delivery whose automatic attempts ran out reads: `failed · no more retries`. */
export const NO_MORE_RETRIES = 'no more retries';

/**
 * A delivery's fate (protocol/fate.ts) in the words of its status, the same everywhere a status is said (tables, log
 * lines, the inspector's badges): `delivered`, `pending`, `failed · retry due 14:02:05` (`failed · retry due` given no
 * `now`, as statusWords), `failed · no more retries`, and `failed` alone when the service does not say what follows.
 */
export function fateWords(fate: Fate, now?: number): string {
  if (fate.status !== 'failed') return fate.status;
  if (fate.retry === 'due') return statusWords('failed', fate.due_at, now);
  return fate.retry === 'none' ? `failed · ${NO_MORE_RETRIES}` : 'failed';
}

/**
 * The fate said whole, where there is room for it (`deliveries show`, the inspector's delivery): a delivered one names
 * the attempt that got through and when, `delivered by attempt 6 at 14:02:11`; the others read as fateWords says them.
 */
export function fateSentence(fate: Fate, now: number): string {
  if (fate.status !== 'delivered') return fateWords(fate, now);
  return `delivered${fate.attempt === null ? '' : ` by attempt ${fate.attempt}`} at ${clockTime(fate.at, now)}`;
}
