import type { Webhook } from '../../../api/shapes.js';
import type { Colors } from '../../../render/colors.js';
import { renderTable, type Column, type TableOptions } from '../../../render/table.js';
import { URL_MIN, WEBHOOK_ID_WIDTH } from '../../../cli/columns.js';
import { type BlockValue, keyValues } from '../../../render/text.js';
import { relativeTime } from '../../../render/words.js';

export const activeLabel = (active: boolean, colors: Colors) => (active ? colors.green('active') : colors.yellow('paused'));

/**
 * The webhooks as a table. Its columns by width (the rows never change them): at 132 all, the time compact and the
 * event types shortened to whole ones and a count; at 100 the time is left out; at 80 the event types too; at 60, or
 * wherever a host would be cut, the id takes its short form, so that the URL keeps its host whole (its path loses its
 * middle, or goes; at the narrowest its scheme goes).
 */
export async function webhookTable(webhooks: Webhook[], colors: Colors, now: number, options: TableOptions = {}): Promise<string> {
  const columns: Column[] = [
    { title: 'ID', kind: 'id', width: WEBHOOK_ID_WIDTH, give: 5 },
    { title: 'URL', kind: 'url', width: 48, min: URL_MIN, give: 3 },
    { title: 'EVENTS', kind: 'list', width: 40, min: 16, give: 1, drop: 4 },
    { title: 'STATUS', width: 6, drop: 6 },
    { title: 'CREATED', kind: 'time', now, give: 0, drop: 2 },
  ];
  return renderTable(
    columns,
    webhooks.map((w) => [w.id, w.url, (w.events ?? []).join(', '), w.active ? 'active' : 'paused', w.created_at ?? '']),
    colors,
    options,
  );
}

type Pair = [string, BlockValue];

/** A webhook as a key/value block, laid out for a terminal `width` wide (none: a pipe's whole lines). */
export function webhookBlock(webhook: Webhook, colors: Colors, now: number, extra: Pair[] = [], width?: number): string {
  const pairs: Pair[] = [
    ['id', webhook.id],
    ['url', webhook.url],
    ['events', (webhook.events ?? []).join(', ')],
    ['status', { styled: activeLabel(webhook.active, colors) }],
  ];
  if (webhook.created_at) pairs.push(['created', `${relativeTime(webhook.created_at, now)} (${webhook.created_at})`]);
  if (webhook.updated_at) pairs.push(['updated', `${relativeTime(webhook.updated_at, now)} (${webhook.updated_at})`]);
  return keyValues([...pairs, ...extra], colors.dim, width);
}
