// What `webhooks apply` will do: the declared webhooks against the account's, keyed by URL. Pure (no request, no
// output), so that every case is tested alone.
import type { Webhook } from '../../../api/shapes.js';
import { usageError } from '../../../cli/errors.js';
import type { Declared } from './declaration.js';
import { sameEvents } from '../shared/events.js';
import { urlKey } from '../shared/url.js';

export interface Changes {
  events?: { from: string[]; to: string[] };
  active?: { from: boolean; to: boolean };
}

export interface Plan {
  create: Array<Pick<Declared, 'url' | 'events' | 'active'>>;
  update: Array<{ id: string; url: string; changes: Changes; events: string[]; active: boolean }>;
  delete: Array<{ id: string; url: string }>;
  unchanged: Array<{ id: string; url: string }>;
  /** In the account, not in the file, and left alone (without --prune). */
  notInFile: Array<{ id: string; url: string }>;
}

/**
 * The steps that make the account as declared: create what the file names and
 * the account lacks; update the events (compared as a set: order is not a
 * change) and `active` that differ; delete, with `prune`, what the file does
 * not name. Two webhooks of the account with a URL the file names are an error
 * naming both (which one the file means cannot be told); two the file does
 * not name are deleted with --prune, and left alone without.
 */
export function planApply(declared: Declared[], account: Webhook[], prune: boolean): Plan {
  const byUrl = new Map<string, Webhook[]>();
  for (const webhook of account) {
    const key = urlKey(webhook.url);
    byUrl.set(key, [...(byUrl.get(key) ?? []), webhook]);
  }
  const plan: Plan = { create: [], update: [], delete: [], unchanged: [], notInFile: [] };
  const named = new Set<string>();
  for (const wanted of declared) {
    named.add(wanted.url);
    const found = byUrl.get(wanted.url) ?? [];
    if (found.length > 1) {
      throw usageError(
        `webhooks ${found.map((w) => w.id).join(' and ')} both have the URL ${wanted.url} (declared at ${wanted.at}): apply cannot tell which one the file means; nothing was changed`,
        `delete the one to drop: whsvc webhooks delete ${found[found.length - 1]!.id}`,
      );
    }
    const [current] = found;
    if (!current) {
      plan.create.push({ url: wanted.url, events: wanted.events, active: wanted.active });
      continue;
    }
    const changes: Changes = {};
    if (!sameEvents(current.events ?? [], wanted.events)) changes.events = { from: current.events ?? [], to: wanted.events };
    if (current.active !== wanted.active) changes.active = { from: current.active, to: wanted.active };
    if (Object.keys(changes).length === 0) plan.unchanged.push({ id: current.id, url: current.url });
    else plan.update.push({ id: current.id, url: current.url, changes, events: wanted.events, active: wanted.active });
  }
  for (const webhook of account) {
    if (named.has(urlKey(webhook.url))) continue;
    (prune ? plan.delete : plan.notInFile).push({ id: webhook.id, url: webhook.url });
  }
  return plan;
}

/** Whether the plan changes anything. */
export const changesAnything = (plan: Plan): boolean => plan.create.length + plan.update.length + plan.delete.length > 0;
