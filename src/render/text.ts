// Control characters (C0, DEL, C1), so that no value from the server can move
// the cursor, change colours, retitle the terminal or forge another line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const LINE_BREAKS = /[\t\n\r]/g;

/** A server value for one line (a cell, a key/value pair): control characters removed, line breaks made spaces. */
export function sanitize(value: unknown): string {
  return String(value ?? '').replace(LINE_BREAKS, ' ').replace(CONTROL, '');
}

/** A server text shown as a block (a payload): its own line breaks kept, every other control character removed. */
export function sanitizeBlock(value: string): string {
  return value.replace(CONTROL, '');
}

/** "3 minutes ago", "in 2 hours": times as people read them. */
export function relativeTime(iso: string | undefined, now: number): string {
  if (!iso) return '';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return sanitize(iso);
  const seconds = Math.round((then - now) / 1000);
  const abs = Math.abs(seconds);
  const units: Array<[number, Intl.RelativeTimeFormatUnit]> = [
    [60, 'second'],
    [3600, 'minute'],
    [86_400, 'hour'],
    [86_400 * 30, 'day'],
    [86_400 * 365, 'month'],
    [Infinity, 'year'],
  ];
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  let size = 1;
  for (const [limit, unit] of units) {
    if (abs < limit) return format.format(Math.round(seconds / size), unit);
    size = limit;
  }
  return iso;
}

/**
 * A key/value block for one object. Values pass through sanitize here, the
 * one gate for server strings; colour a value with `styled` after that.
 */
export function keyValues(
  pairs: Array<[string, string | { styled: string }]>,
  label: (s: string) => string = (s) => s,
): string {
  const width = Math.max(...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => `${label(key.padEnd(width))}  ${typeof value === 'string' ? sanitize(value) : value.styled}`).join('\n') + '\n';
}
