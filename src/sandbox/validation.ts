import { EVENT_TYPES, isEventType } from '../protocol/catalog.js';
import { badRequest } from './http.js';
import { DELIVERY_STATUSES, isDeliveryStatus, type DeliveryStatus } from '../protocol/status.js';
import { webhookUrl } from '../net.js';

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

/**
 * Refuses query parameters a route does not take, as unknown body fields are: a typo, or a filter the interface does
 * not have (`?since=`), would otherwise filter nothing, silently. `unlisted`: taken, but not named in the message.
 */
export function rejectUnknownParameters(query: URLSearchParams, known: readonly string[], unlisted: readonly string[] = []): void {
  const unknown = [...query.keys()].find((key) => !known.includes(key) && !unlisted.includes(key));
  if (unknown === undefined) return;
  throw badRequest(
    'invalid_parameter',
    `${unknown}: unknown query parameter; ${known.length ? `this route takes ${known.join(', ')}` : 'this route takes none'}`,
  );
}

/** One event type of the catalog, for the body field `field`. */
export function validateEventType(field: string, value: unknown): string {
  if (!isEventType(value)) {
    throw badRequest('invalid_field', `${field}: ${describeValue(value)} is not an event type; known types: ${EVENT_TYPES.join(', ')}`);
  }
  return value;
}

/** An absolute https URL, or http to a loopback host, returned in its normalised form (see webhookUrl). */
export function validateUrl(value: unknown): string {
  const checked = webhookUrl(value);
  if ('problem' in checked) throw badRequest('invalid_field', `url: ${checked.problem}`);
  return checked.href;
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

export function parseStatusFilter(value: string | null): DeliveryStatus | undefined {
  if (value === null) return undefined;
  if (isDeliveryStatus(value)) return value;
  throw badRequest('invalid_parameter', `status: must be one of ${DELIVERY_STATUSES.join(', ')}`);
}
