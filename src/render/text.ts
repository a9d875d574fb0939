// Control characters (C0 but tab and newline, DEL, C1), so that no value from
// the server can move the cursor, change colours or retitle the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function sanitize(value: unknown): string {
  return String(value ?? '').replace(CONTROL, '');
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

/** A key/value block for one object. */
export function keyValues(pairs: Array<[string, string]>, label: (s: string) => string = (s) => s): string {
  const width = Math.max(...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => `${label(key.padEnd(width))}  ${value}`).join('\n') + '\n';
}
