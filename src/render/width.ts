import stringWidth from 'string-width';

/**
 * Widths as a terminal draws them: East Asian wide characters and emoji take
 * two columns, combining marks and zero-width joiners none. string-width is
 * the measure cli-table3 cuts its cells by, so a table's widths and its cuts
 * agree; every width whsvc measures (cells, titles, progress and log lines)
 * goes through here.
 */
export function displayWidth(text: string): number {
  // The common case (ids, URLs, numbers) costs nothing more than its length.
  return /^[\x20-\x7e]*$/.test(text) ? text.length : stringWidth(text);
}

let segmenter: Intl.Segmenter | undefined;

/** Whole characters as a terminal groups them (an emoji with its modifiers, a letter with its accents). */
function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

/** The longest start of `text` that takes at most `width` columns. */
function startOf(text: string, width: number): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text.slice(0, Math.max(0, width));
  let kept = '';
  let used = 0;
  for (const part of graphemes(text)) {
    const size = displayWidth(part);
    if (used + size > width) break;
    kept += part;
    used += size;
  }
  return kept;
}

/** The longest end of `text` that takes at most `width` columns. */
function endOf(text: string, width: number): string {
  if (/^[\x20-\x7e]*$/.test(text)) return width <= 0 ? '' : text.slice(-width);
  let kept = '';
  let used = 0;
  for (const part of graphemes(text).reverse()) {
    const size = displayWidth(part);
    if (used + size > width) break;
    kept = part + kept;
    used += size;
  }
  return kept;
}

/** `text` cut at its end to at most `width` columns, `…` marking the cut. */
export function cutEnd(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  return width < 1 ? '' : `${startOf(text, width - 1)}…`;
}

/** `text` cut in its middle to at most `width` columns (`dlv_01JD…7QF3`): its start and its end both stay. */
export function cutMiddle(text: string, width: number, startShare = 0.5): string {
  if (displayWidth(text) <= width) return text;
  if (width < 1) return '';
  if (width === 1) return '…';
  const room = width - 1;
  const start = startOf(text, Math.floor(room * startShare));
  return `${start}…${endOf(text, room - displayWidth(start))}`;
}

/** `text` padded with spaces to `width` columns, as a terminal measures them (padEnd counts UTF-16 units). */
export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*?)(:\d+)?([/?#].*)?$/i;
/** The host characters a shortened URL keeps, at least, after its scheme. */
const HOST_KEPT = 3;
/** A URL is not cut narrower than this while something else can give: past it, even its end is lost. */
export const URL_LEGIBLE = 30;

/**
 * The width below which a URL loses more than its host's end: its scheme, the
 * host's first characters, `…`, then its port and path whole
 * (`http://127.…:9001/fail`); a bare host keeps its whole name up to
 * URL_LEGIBLE. What a column of URLs keeps, at least, before other columns go.
 */
export function urlKeptWidth(url: string): number {
  const parts = URL_PARTS.exec(url);
  const whole = displayWidth(url);
  if (!parts) return Math.min(whole, URL_LEGIBLE);
  const [, scheme = '', host = '', port = '', path = ''] = parts;
  const tail = displayWidth(port + path.replace(/^\/$/, ''));
  if (tail === 0) return Math.min(whole, URL_LEGIBLE);
  return Math.min(whole, URL_LEGIBLE, scheme.length + Math.min(HOST_KEPT, displayWidth(host)) + 1 + tail);
}

/**
 * A URL in at most `width` columns, cut where URLs of one table are most
 * alike: the end of the host name first, so that the scheme, the host's
 * start, the port and the end of the path stay (`http://127.…:9001/fail`);
 * a path too long for that, or a URL with no path, loses its middle instead.
 */
export function shortenUrl(url: string, width: number): string {
  if (displayWidth(url) <= width) return url;
  const parts = URL_PARTS.exec(url);
  if (!parts) return cutMiddle(url, width);
  const [, scheme = '', host = '', port = '', path = ''] = parts;
  const tail = port + path;
  const headRoom = width - displayWidth(tail) - 1;
  if (tail.replace(/^\/$/, '') !== '' && headRoom >= scheme.length + Math.min(HOST_KEPT, displayWidth(host))) {
    return `${startOf(scheme + host, headRoom)}…${tail}`;
  }
  // The path alone is too long (or there is none): the start and the end stay, the middle goes.
  return cutMiddle(url, width, 0.4);
}
