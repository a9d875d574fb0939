import { durationText, sizeText, UNIT_MS } from '../render/words.js';
import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { DEFAULT_MAX_ANSWER_BYTES, LARGEST_MAX_ANSWER_BYTES } from '../api/client.js';
import { isLoopbackHost } from '../net.js';
import { DEFAULT_PLATFORM_NAME, PLATFORM_NAME } from '../protocol/headers.js';
import { didYouMean } from './suggest.js';
import { usageError } from './errors.js';

/** commander argument parsers: a bad value is a usage error (exit 2) before anything runs. */
export function integerIn(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}.`);
    }
    return Number(value);
  };
}

/** Path segments of the interface that are not ids: `webhooks get webhook-events` would read the catalog as a webhook. */
const NOT_IDS: Record<string, string> = {
  'webhook-events': 'it is the path of the event catalog (whsvc events)',
  'webhook-deliveries': 'it is the path of the delivery log (whsvc deliveries list WEBHOOK_ID)',
  '.': 'it would name the collection, not one of its items',
  '..': 'it would name the collection, not one of its items',
};

/** An id in the one short form a table or a line shows where the width needs it (shortId): `dlv_eb…aaee`, or as typed, `dlv_eb...aaee`. */
const SHORTENED_ID = /…|\.\.\./;

/**
 * A webhook or delivery id, refused before any request when it cannot be one: a word that names no item, or an id in
 * its short form, copied out of a narrow table, which the service would answer with a 404 saying only that there is
 * no such id.
 */
export function resourceId(kind: 'webhook' | 'delivery') {
  return (value: string): string => {
    if (value.trim() === '') throw new InvalidArgumentError(`a ${kind} id cannot be empty.`);
    if (SHORTENED_ID.test(value)) {
      throw usageError(
        `${JSON.stringify(value)} is an id in the short form tables show at narrow widths, not a whole id`,
        `a wider terminal, a pipe (\`| cat\`) or --json shows ids whole: whsvc ${kind === 'webhook' ? 'webhooks list' : 'deliveries list'} | cat`,
      );
    }
    const why = Object.hasOwn(NOT_IDS, value) ? NOT_IDS[value] : undefined;
    if (why) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a ${kind} id: ${why}.`);
    return value;
  };
}

/**
 * A URL written without its scheme, as stripe's `--forward-to localhost:3000/hooks` takes it: `http://`
 * for this machine (localhost, 127.0.0.1, [::1]), `https://` elsewhere, the only scheme the service
 * takes there. What names no host (no dot, no port: a word) or has a scheme is returned as it is, for
 * the URL checks to judge. For every flag that takes a URL: --url, --forward-to, --to, --base-url.
 */
export function withScheme(value: string): string {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)(:\d{1,5})?(?:[/?#]|$)/.exec(value);
  if (!match) return value;
  const host = match[1]!.toLowerCase();
  if (match[2] === undefined && !host.includes('.') && !host.startsWith('[') && host !== 'localhost') return value;
  return `${isLoopbackHost(host) ? 'http' : 'https'}://${value}`;
}

/**
 * `500ms`, `90s`, `30m`, `2h`, `3d` in milliseconds; a bare number is in `bare`, the unit the flag
 * has always read it in (seconds, or milliseconds for the `-ms` flags); undefined when it is none of them.
 */
export function durationMs(value: string, bare: 's' | 'ms' = 's'): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] ?? bare]!;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/**
 * The parser of every time flag: a duration from `minMs` up to `maxMs`, in milliseconds. Each flag
 * takes the same forms; a bare number keeps the unit it has always meant (`bare`: seconds for
 * --timeout, --token-ttl, --interval; milliseconds for --retry-base-ms and --delivery-timeout-ms).
 */
export function duration(maxMs: number, minMs = 0, bare: 's' | 'ms' = 's') {
  return (value: string): number => {
    const ms = durationMs(value, bare);
    if (ms === undefined) {
      throw new InvalidArgumentError(`must be a duration such as 500ms, 90s, 30m, 2h or 3d (a bare number is ${bare === 's' ? 'seconds' : 'milliseconds'}).`);
    }
    if (ms > maxMs) throw new InvalidArgumentError(`must be at most ${durationText(maxMs)}.`);
    if (ms < minMs) throw new InvalidArgumentError(`must be at least ${durationText(minMs)}.`);
    return ms;
  };
}

/** A time flag whose value a command reads in seconds (listen's and tail's --timeout): the duration's parser, in seconds. */
export const inSeconds =
  (parse: (value: string) => number) =>
  (value: string): number =>
    parse(value) / 1000;

/** A commander parser for a share from 0 to 1 (`0.25`, or `25%`). */
export function share(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(value.trim());
  const p = match ? Number(match[1]) / (match[2] ? 100 : 1) : NaN;
  if (!(p >= 0 && p <= 1)) throw new InvalidArgumentError('must be a share from 0 to 1, such as 0.25 or 25%.');
  return p;
}

/**
 * A commander parser for a percentage from 0 to 100 (`95` or `95%`), as a
 * number of percent. A bare fraction (`0.95`) is refused: it would mean under
 * one percent, which is seldom what is meant; `0.95%` says it on purpose.
 */
export function percentage(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(value.trim());
  const p = match ? Number(match[1]) : NaN;
  if (!(p >= 0 && p <= 100)) throw new InvalidArgumentError('must be a percentage from 0 to 100, such as 95 or 95%.');
  if (p > 0 && p < 1 && !match![2])
    throw new InvalidArgumentError(
      `must be a percentage from 0 to 100: write ${Math.round(p * 1000) / 10} for ${Math.round(p * 1000) / 10}% (or ${value.trim()}% for under one percent).`,
    );
  return p;
}

/** A point in time given on the command line: a duration back from now (`2h`), or an ISO 8601 time. */
export type TimeBound = { ago: number } | { at: number };

/** A commander parser for `--since` / `--until`: `30m`, `2h`, `3d`, or `2026-11-23T08:00:00Z`. */
export function timeBound(value: string): TimeBound {
  const ago = durationMs(value);
  if (ago !== undefined) return { ago };
  if (/^\d{4}-\d\d-\d\d(T|$)/.test(value.trim())) {
    const at = Date.parse(value.trim());
    if (!Number.isNaN(at)) return { at };
  }
  throw new InvalidArgumentError('must be a duration back from now (30m, 2h, 3d) or an ISO 8601 time (2026-11-23T08:00:00Z).');
}

/** The epoch milliseconds a bound names, seen from `now`. */
export const boundAt = (bound: TimeBound, now: number): number => ('ago' in bound ? now - bound.ago : bound.at);

/**
 * --platform-name NAME: the platform name of the delivery headers
 * (`X-<name>-Signature`, …), the one the service sends them with; `what` says
 * what the command does with it.
 */
export const platformNameOption = (what: string) =>
  new Option('--platform-name <name>', what).default(DEFAULT_PLATFORM_NAME).argParser((value: string) => {
    if (!PLATFORM_NAME.test(value)) throw new InvalidArgumentError('must be letters, digits and dashes, starting with a letter (at most 40).');
    return value;
  });

/** A value from a fixed set, checked before any request, with a suggestion for near misses. */
export function oneOf<const T extends string>(choices: readonly T[]) {
  return (value: string): T => {
    // commander's line already names the option and the value.
    if (!(choices as readonly string[]).includes(value)) throw new InvalidArgumentError(`Use one of ${choices.join(', ')}${didYouMean(value, [...choices])}`);
    return value as T;
  };
}

const splitList = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A comma-separated filter (listen --events): a value given twice is the same filter. */
export const distinctList = (value: string): string[] => [...new Set(splitList(value))];

/** A comma-separated list option; a value given twice is a mistake, refused before any request. */
export function list(value: string): string[] {
  const items = splitList(value);
  const twice = items.find((item, i) => items.indexOf(item) !== i);
  if (twice !== undefined) throw new InvalidArgumentError(`${twice} is listed twice.`);
  return items;
}

/** A repeatable option's or a variadic argument's parser: each value checked, all kept. */
export const collect =
  <T>(parse: (value: string) => T) =>
  (value: string, previous: T[] | undefined): T[] => [...(previous ?? []), parse(value)];

/** A repeatable option that also takes comma lists (`--event a --event b,c`): every value kept once, an empty one refused. */
export const collectList =
  (what: string) =>
  (value: string, previous: string[] | undefined): string[] => {
    const items = splitList(value);
    if (items.length === 0) throw new InvalidArgumentError(`is empty: give ${what}.`);
    return [...new Set([...(previous ?? []), ...items])];
  };

/** The parser of an option given at most once (`--secret-file` of a command that signs with one secret): a second is refused, not silently taken. */
export const once =
  (why: string) =>
  (value: string, previous: string | undefined): string => {
    if (previous !== undefined) throw new InvalidArgumentError(`is given twice: ${why}.`);
    return value;
  };

/**
 * The limit of each request when the user set one (--request-timeout, else WHSVC_TIMEOUT): what a delivery sent on to
 * an app (listen and tail --forward-to, replay) is held to instead of the service's own 10 s.
 */
export function requestTimeoutGivenMs(globals: { requestTimeoutMs?: number | undefined }, env: NodeJS.ProcessEnv): number | undefined {
  return globals.requestTimeoutMs ?? requestTimeoutFromEnv(env.WHSVC_TIMEOUT);
}

/** WHSVC_TIMEOUT: a duration as --request-timeout takes it (a bare number is seconds); empty is unset. */
export function requestTimeoutFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = durationMs(value);
  if (ms === undefined || ms < 1 || ms > 86_400_000) {
    throw usageError(`WHSVC_TIMEOUT ${JSON.stringify(value)} is not a request timeout`, 'a duration from 1ms to 24h, such as 10s or 2m');
  }
  return ms;
}

const SIZE_UNITS: Record<string, number> = { b: 1, k: 1024, kib: 1024, m: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gib: 1024 ** 3 };

/** `64MiB`, `512KiB`, `1GiB` (also `64M`, `64 MiB`) in bytes; a bare number is bytes; undefined when it is none of them. */
export function sizeBytes(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?) ?(b|k|kib|m|mib|g|gib)?$/i.exec(value.trim());
  if (!match) return undefined;
  const bytes = Math.round(Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()]!);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

const SIZE_FORMS = 'a size such as 64MiB, 512KiB or 1GiB (a bare number is bytes)';
const MAX_ANSWER_SIZES = { min: 1024, max: LARGEST_MAX_ANSWER_BYTES };

/** Why a --max-answer-size is refused, or undefined when it is taken. */
function answerSizeProblem(bytes: number | undefined): string | undefined {
  if (bytes === undefined) return `must be ${SIZE_FORMS}`;
  if (bytes > MAX_ANSWER_SIZES.max) return `must be at most ${sizeText(MAX_ANSWER_SIZES.max)}: an answer is read as one text, and Node holds none longer`;
  if (bytes < MAX_ANSWER_SIZES.min) return `must be at least ${sizeText(MAX_ANSWER_SIZES.min)}`;
  return undefined;
}

/** The parser of --max-answer-size: a size from 1KiB to 512MiB, in bytes. */
export function maxAnswerSize(value: string): number {
  const bytes = sizeBytes(value);
  const problem = answerSizeProblem(bytes);
  if (problem) throw new InvalidArgumentError(`${problem}.`);
  return bytes!;
}

/** The most of an answer read: --max-answer-size, else WHSVC_MAX_ANSWER_SIZE (empty is unset), else 64MiB. */
export function maxAnswerBytes(globals: { maxAnswerBytes?: number | undefined }, env: NodeJS.ProcessEnv): number {
  if (globals.maxAnswerBytes !== undefined) return globals.maxAnswerBytes;
  const value = env.WHSVC_MAX_ANSWER_SIZE;
  if (value === undefined || value === '') return DEFAULT_MAX_ANSWER_BYTES;
  const bytes = sizeBytes(value);
  const problem = answerSizeProblem(bytes);
  if (problem) throw usageError(`WHSVC_MAX_ANSWER_SIZE ${JSON.stringify(value)}: ${problem}`, 'as --max-answer-size takes it, such as 128MiB');
  return bytes!;
}
