import type { CommandDeps } from './context.js';
import { usageError } from './errors.js';
import { notOneOf } from './suggest.js';

import type { EventType } from '../api/shapes.js';
import { listEventTypes } from '../api/endpoints.js';

/** How long a fetched catalog is trusted for checking event types (completion uses it whatever its age). */
export const CATALOG_TTL_MS = 10 * 60 * 1000;

/** The service's event catalog, fetched now; kept in the config dir for checks and shell completion. */
export async function fetchCatalog(deps: Pick<CommandDeps, 'api' | 'config' | 'now'>): Promise<EventType[]> {
  const body = await listEventTypes(deps.api);
  // Only a cache: a config dir that cannot be written must not fail the command.
  await deps.config.writeCatalog(deps.api.baseUrl, body.data, deps.now()).catch(() => undefined);
  return body.data;
}

/** The catalog, from the cache when it is fresh enough. */
export async function catalog(deps: Pick<CommandDeps, 'api' | 'config' | 'now'>): Promise<EventType[]> {
  const cached = deps.config.readCatalog(deps.api.baseUrl);
  if (cached && deps.now() - cached.fetched_at < CATALOG_TTL_MS) return cached.data;
  return fetchCatalog(deps);
}

/** Checks each event type against the service's catalog before any request, with a suggestion for near misses. */
export async function checkEventTypes(deps: Pick<CommandDeps, 'api' | 'config' | 'now'>, list: string[], flag: string): Promise<string[]> {
  const types = (await catalog(deps)).map((entry) => entry.type);
  for (const type of list) {
    if (types.includes(type)) continue;
    // An event id from sandbox trigger, given where its type was meant.
    const hint = type.startsWith('evt_') ? `${type} is an event id; ${flag} takes event types, such as invoice.paid (whsvc events lists them)` : undefined;
    throw usageError(`${flag}: ${notOneOf('event type', type, types)}`, hint);
  }
  return list;
}
