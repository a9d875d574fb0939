// The request of `whsvc api` from its flags, as `gh api` reads them: -f/-F fields (typed or not, `key[]=` for arrays,
// `key[sub]=` for objects), -H headers, and the path (or a URL at the service's own address). Pure, so that each rule
// is tested alone; reading an @file is the caller's (readValue).
import { isHopHeader, unsendableHeader } from '../../protocol/headers.js';
import { usageError } from '../../cli/errors.js';

/** One -f or -F as given. */
export interface FieldFlag {
  /** -F: the value typed (true, false, null, numbers, @file); -f: a string as written. */
  typed: boolean;
  text: string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A field's key as its parts: `events[]` is `events` then an array's next item; `a[b][c]` is three keys. */
export function keyPath(key: string): Array<string | typeof NEXT> {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match)
    throw usageError(`the field name ${JSON.stringify(key)} is not a name, name[] or name[key]`, 'for example -f url=https://… -f "events[]=invoice.paid"');
  const parts: Array<string | typeof NEXT> = [match[1]!];
  for (const [, inner] of match[2]!.matchAll(/\[([^[\]]*)\]/g)) parts.push(inner === '' ? NEXT : inner!);
  if (parts.slice(0, -1).includes(NEXT)) {
    throw usageError(
      `the field name ${JSON.stringify(key)} puts [] before its end: arrays of objects are not built from fields`,
      'give the body whole with --input FILE',
    );
  }
  return parts;
}

/** `[]` in a key: the next item of an array. */
export const NEXT = Symbol('next item');

/** A -F value: true, false, null and numbers as themselves; `@file` read (by `read`); anything else a string. */
export function typedValue(text: string, read: (path: string) => string): JsonValue {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(text) && Number.isFinite(Number(text))) return Number(text);
  if (text.startsWith('@')) return read(text.slice(1));
  return text;
}

/** The key and the value of one field flag; a `key[]` without `=` is an empty array. */
export function splitField(flag: FieldFlag, read: (path: string) => string): { key: string; value: JsonValue | typeof EMPTY_ARRAY } {
  const equals = flag.text.indexOf('=');
  const option = flag.typed ? '-F' : '-f';
  if (equals < 0) {
    if (flag.text.endsWith('[]')) return { key: flag.text, value: EMPTY_ARRAY };
    throw usageError(
      `${option} ${JSON.stringify(flag.text)}: a field is key=value`,
      `for example ${option} url=https://example.com/hooks, or ${option} "events[]" for an empty array`,
    );
  }
  const key = flag.text.slice(0, equals);
  const text = flag.text.slice(equals + 1);
  return { key, value: flag.typed ? typedValue(text, read) : text };
}

/** `key[]` with no value: an empty array. */
export const EMPTY_ARRAY = Symbol('empty array');

/** The JSON body the fields make, in the order given. */
export function fieldsBody(flags: FieldFlag[], read: (path: string) => string): Record<string, JsonValue> {
  const body: Record<string, JsonValue> = {};
  for (const flag of flags) {
    const { key, value } = splitField(flag, read);
    const path = keyPath(key);
    let target: Record<string, JsonValue> | JsonValue[] = body;
    for (let i = 0; i < path.length; i++) {
      const part = path[i]!;
      const last = i === path.length - 1;
      if (part === NEXT) {
        // keyPath allows [] only last: the value is the array's next item.
        if (value !== EMPTY_ARRAY) (target as JsonValue[]).push(value);
        break;
      }
      const holder = target as Record<string, JsonValue>;
      if (last) {
        if (value === EMPTY_ARRAY) throw usageError(`${JSON.stringify(key)} without a value: only name[] makes an empty array`);
        if (Object.hasOwn(holder, part)) throw usageError(`the field ${JSON.stringify(key)} is given twice`, `for an array, write it ${part}[]=…`);
        setOwn(holder, part, value);
        break;
      }
      const wanted = path[i + 1] === NEXT ? 'array' : 'object';
      const existing = Object.hasOwn(holder, part) ? holder[part] : undefined;
      if (existing === undefined) setOwn(holder, part, wanted === 'array' ? [] : {});
      else if ((wanted === 'array') !== Array.isArray(existing) || existing === null || typeof existing !== 'object') {
        throw usageError(
          `the field ${JSON.stringify(key)} makes ${part} ${wanted === 'array' ? 'an array' : 'an object'}, and another field made it something else`,
        );
      }
      target = holder[part] as Record<string, JsonValue> | JsonValue[];
    }
  }
  return body;
}

/** A field of its own, whatever its name: `__proto__` too, which an assignment would take as the object's prototype and drop. */
function setOwn(holder: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(holder, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The fields as a query string's pairs (a GET's, or beside --input's body): each key as written, each value as text. */
export function fieldsQuery(flags: FieldFlag[], read: (path: string) => string): Array<[string, string]> {
  return flags.flatMap((flag) => {
    const { key, value } = splitField(flag, read);
    keyPath(key);
    if (value === EMPTY_ARRAY) return [];
    return [[key, typeof value === 'string' ? value : JSON.stringify(value)] as [string, string]];
  });
}

/** Headers whsvc sets itself, and those of the connection, which undici keeps. */
const OURS = new Set(['authorization', 'host', 'user-agent']);

/** -H "Name: value" as a header; the token's header and the connection's are whsvc's own. */
export function header(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw usageError(`-H ${JSON.stringify(text)}: a header is "Name: value"`, 'for example -H "Accept: application/json"');
  const name = text.slice(0, colon).trim();
  const value = text.slice(colon + 1).trim();
  const problem = unsendableHeader(name, value);
  if (problem) throw usageError(`-H: ${problem}`);
  if (OURS.has(name.toLowerCase()) || isHopHeader(name)) {
    throw usageError(
      `-H ${name}: whsvc sets this header itself`,
      name.toLowerCase() === 'authorization' ? "the token is the profile's: use --profile, or WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET" : undefined,
    );
  }
  return [name, value];
}

/**
 * The path to request at the service's address: `/v1/…` (or `v1/…`), with a
 * query if given; a full URL only when it is at that address, since the token
 * goes nowhere else.
 */
export function requestPath(given: string, baseUrl: string): string {
  const trimmed = given.trim();
  if (trimmed === '') throw usageError('<path> is empty', 'for example whsvc api /v1/webhooks');
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) {
    let url: URL;
    try {
      url = new URL(trimmed.startsWith('//') ? `http:${trimmed}` : trimmed);
    } catch {
      throw usageError(`${JSON.stringify(trimmed)} is neither a path nor a URL`, 'for example whsvc api /v1/webhooks');
    }
    const base = new URL(baseUrl);
    const prefix = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || !(url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) || url.username || url.password) {
      throw usageError(
        `${shownUrl(url)} is not at the service's address ${base.origin}${prefix}: whsvc sends its token there only`,
        'give a path (whsvc api /v1/webhooks), or choose the service with --base-url, WHSVC_BASE_URL or --profile',
      );
    }
    return url.pathname.slice(prefix.length) + url.search;
  }
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  // `..` (or `%2e%2e`) would climb out of the service's prefix (a base URL of …/tenant-a): as the URL resolves it, the
  // path must stay inside.
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const resolved = new URL(`${base.origin}${prefix}${path}`);
  if (!(resolved.pathname === prefix || resolved.pathname.startsWith(`${prefix}/`))) {
    throw usageError(`${JSON.stringify(trimmed)} climbs out of the service's address ${base.origin}${prefix}: whsvc sends its token there only`);
  }
  return path;
}

/** A URL for a message, without a user name or password. */
function shownUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  return shown.href;
}
