import type { CommandDeps } from './context.js';
import { usageError } from './errors.js';
import { notOneOf } from './suggest.js';

export interface EventTypeEntry {
  type: string;
  module: string;
  desc: string;
}

/** The service's event catalog; a command calls it before sending event types, so a typo never reaches a request. */
export async function fetchCatalog(deps: Pick<CommandDeps, 'api'>): Promise<EventTypeEntry[]> {
  const body = await deps.api.json<{ data: EventTypeEntry[] }>('GET', '/v1/webhooks/webhook-events');
  return body.data;
}

/** Splits `a,b` and checks each against the catalog, with a suggestion for near misses. */
export async function checkEventTypes(deps: Pick<CommandDeps, 'api'>, list: string[], flag: string): Promise<string[]> {
  const types = (await fetchCatalog(deps)).map((entry) => entry.type);
  for (const type of list) {
    if (!types.includes(type)) throw usageError(`${flag}: ${notOneOf('event type', type, types)}`);
  }
  return list;
}

export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
