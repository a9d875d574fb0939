import type { Webhook } from '../../../api/shapes.js';
import type { Colors } from '../../../render/colors.js';
import { renderTable, tableTime, type TableOptions } from '../../../render/table.js';
import { keyValues, relativeTime } from '../../../render/text.js';

export const activeLabel = (active: boolean, colors: Colors) => (active ? colors.green('active') : colors.yellow('paused'));

export async function webhookTable(webhooks: Webhook[], colors: Colors, now: number, options: TableOptions = {}): Promise<string> {
  return renderTable(
    ['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED'],
    webhooks.map((w) => [w.id, w.url, (w.events ?? []).join(', '), w.active ? 'active' : 'paused', tableTime(w.created_at, now, options)]),
    colors,
    // Too narrow for all: the time, then the event types are left out; the id and the status stay whole, and the URL
    // keeps its host's start, its port and its path's end (what tells webhooks apart) until nothing else can give.
    { whole: [0, 3], reluctant: [4], dropFirst: [4, 2], urls: [1], events: [2], ...options },
  );
}

type Pair = [string, string | { styled: string }];

export function webhookBlock(webhook: Webhook, colors: Colors, now: number, extra: Pair[] = []): string {
  const pairs: Pair[] = [
    ['id', webhook.id],
    ['url', webhook.url],
    ['events', (webhook.events ?? []).join(', ')],
    ['status', { styled: activeLabel(webhook.active, colors) }],
  ];
  if (webhook.created_at) pairs.push(['created', `${relativeTime(webhook.created_at, now)} (${webhook.created_at})`]);
  if (webhook.updated_at) pairs.push(['updated', `${relativeTime(webhook.updated_at, now)} (${webhook.updated_at})`]);
  return keyValues([...pairs, ...extra], colors.dim);
}
