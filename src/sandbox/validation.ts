import { EVENT_TYPES, isEventType } from './catalog.js';
import { badRequest } from './http.js';
import type { AttemptStatus } from './store.js';
import { isLoopbackHost } from '../net.js';

export const MAX_URL_LENGTH = 2048;

/** A value from a request, for an error message: strings quoted and clipped, anything else by its kind. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

export function rejectUnknownFields(body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw badRequest('unknown_field', `${unknown}: unknown field; the fields are ${known.join(', ')}`);
  }
}

/** One event type of the catalog, for the body field `field`. */
export function validateEventType(field: string, value: unknown): string {
  if (!isEventType(value)) {
    throw badRequest('invalid_field', `${field}: ${describeValue(value)} is not an event type; known types: ${EVENT_TYPES.join(', ')}`);
  }
  return value;
}

// Characters that change how a URL reads without changing where it goes:
// bidirectional controls, zero-width spaces and joiners, the word joiner and
// invisible operators, the byte order mark, the soft hyphen.
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** 169.254.0.0/16 or fe80::/10 (also inside an IPv6 address): where cloud metadata services answer. */
function isLinkLocal(hostname: string): boolean {
  if (/^169\.254\.\d{1,3}\.\d{1,3}$/.test(hostname)) return true;
  if (!hostname.startsWith('[')) return false;
  const address = hostname.slice(1, -1).toLowerCase();
  if (/^fe[89ab][0-9a-f]?:/.test(address)) return true;
  // An IPv4 address inside IPv6: mapped (::ffff:0:0/96), compatible (::/96) or NAT64 (64:ff9b::/96).
  const embedded = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(address);
  return embedded !== null && parseInt(embedded[1]!, 16) >> 8 === 169 && (parseInt(embedded[1]!, 16) & 0xff) === 254;
}

/**
 * An absolute https URL, or http to a loopback host (the sandbox's receivers
 * run locally), returned in its normalised form: what is stored, shown and
 * sent to is one and the same string.
 */
export function validateUrl(value: unknown): string {
  const invalid = (why: string) => badRequest('invalid_field', `url: ${why}`);
  if (typeof value !== 'string' || value.trim() === '') throw invalid('is required and must be a string');
  // URL parsing drops tabs and newlines silently; a URL that holds them would print as something else.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f-\u009f]/.test(value)) throw invalid('must not contain spaces or control characters');
  if (!value.isWellFormed()) throw invalid('must be well-formed Unicode (it holds a lone surrogate)');
  if (INVISIBLE.test(value)) throw invalid('must not contain invisible or bidirectional characters (zero-width spaces, direction marks)');
  if (value.length > MAX_URL_LENGTH) throw invalid(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('must be an absolute URL such as https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`scheme ${url.protocol.replace(':', '')} is not supported; use https`);
  // The parser forgives `https:/host/x` and `https:///host/x`; a URL that only parses by forgiveness is a typo.
  if (!/^https?:\/\/[^/\\]/i.test(value)) throw invalid('must be written scheme://host/path, such as https://example.com/webhooks');
  if (url.username !== '' || url.password !== '') throw invalid('must not carry a user name or password (user:pass@); the signature authenticates deliveries');
  if (isLinkLocal(url.hostname)) throw invalid(`${url.hostname} is a link-local address (169.254.0.0/16, fe80::/10), refused`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) throw invalid('must use https (http is accepted only for localhost and 127.0.0.1)');
  if (url.href.length > MAX_URL_LENGTH) throw invalid(`must be at most ${MAX_URL_LENGTH} characters`);
  return url.href;
}

export function validateEvents(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw badRequest('invalid_field', 'events: must be a non-empty array of event types');
  }
  const seen = new Set<string>();
  for (const item of value) {
    const event = validateEventType('events', item);
    if (seen.has(event)) throw badRequest('invalid_field', `events: ${event} is listed twice`);
    seen.add(event);
  }
  return [...seen];
}

export function validateActive(value: unknown): boolean {
  if (typeof value !== 'boolean') throw badRequest('invalid_field', 'active: must be true or false');
  return value;
}

export function parseLimit(value: string | null): number {
  if (value === null) return 50;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 200) {
    throw badRequest('invalid_parameter', 'limit: must be an integer from 1 to 200');
  }
  return Number(value);
}

export function parseActiveFilter(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw badRequest('invalid_parameter', 'active: must be true or false');
}

const STATUSES: readonly AttemptStatus[] = ['delivered', 'failed', 'pending'];

export function parseStatusFilter(value: string | null): AttemptStatus | undefined {
  if (value === null) return undefined;
  if ((STATUSES as readonly string[]).includes(value)) return value as AttemptStatus;
  throw badRequest('invalid_parameter', `status: must be one of ${STATUSES.join(', ')}`);
}
