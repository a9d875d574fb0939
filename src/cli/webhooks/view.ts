import type { Colors } from '../../render/colors.js';
import { renderTable } from '../../render/table.js';
import { keyValues, relativeTime, sanitize } from '../../render/text.js';

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  signing_secret?: string;
  created_at?: string;
  updated_at?: string;
}

export const activeLabel = (active: boolean, colors: Colors) => (active ? colors.green('active') : colors.yellow('paused'));

export async function webhookTable(webhooks: Webhook[], colors: Colors, now: number, withHead = true): Promise<string> {
  const table = await renderTable(
    ['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED'],
    webhooks.map((w) => [w.id, w.url, (w.events ?? []).join(', '), w.active ? 'active' : 'paused', relativeTime(w.created_at, now)]),
    colors,
  );
  return withHead ? table : table.slice(table.indexOf('\n') + 1);
}

export function webhookBlock(webhook: Webhook, colors: Colors, now: number, extra: Array<[string, string]> = []): string {
  const pairs: Array<[string, string]> = [
    ['id', sanitize(webhook.id)],
    ['url', sanitize(webhook.url)],
    ['events', sanitize((webhook.events ?? []).join(', '))],
    ['status', activeLabel(webhook.active, colors)],
  ];
  if (webhook.created_at) pairs.push(['created', `${relativeTime(webhook.created_at, now)} (${sanitize(webhook.created_at)})`]);
  if (webhook.updated_at) pairs.push(['updated', `${relativeTime(webhook.updated_at, now)} (${sanitize(webhook.updated_at)})`]);
  return keyValues([...pairs, ...extra], colors.dim);
}
