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

const URL_PARTS = /^(.*?[a-z][a-z0-9+.-]*:\/\/[^/?#]*)([/?#].*)?$/i;

/** A URL's scheme and host (and port), `https://hooks.example.com`; the whole text when it is no URL. */
export function originOf(url: string): string {
  return URL_PARTS.exec(url)?.[1] ?? url;
}

/** A URL's scheme, `https://`. */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** The one scheme a URL may lose when room is short: every other (`http://`, sent unencrypted) tells its endpoint apart. */
const DROPPABLE_SCHEME = /^https:\/\//i;

/**
 * A URL in at most `width` columns. Its scheme and host (with a port, if any) are what tell endpoints apart (a
 * production and a staging host, one port from another), so they stay whole and the path loses its middle, at the
 * slashes where it can: `https://hooks.prod.example.com/api/…/erp/invoices`, the end of the path kept first. When
 * the room is narrower than the scheme and host, or `https` is false (a column whose https URLs drop theirs,
 * keepsScheme), `https://` goes (`hooks.prod.example.com/…`), then the path (the host alone); only a host wider than
 * the room itself is shortened, as an id is: its start and its end kept (`hooks.produ…ample-company.com`). Any other
 * scheme stays: `http://` says the deliveries go unencrypted, which no row may hide.
 */
export function shortenUrl(url: string, width: number, https = true): string {
  const parts = URL_PARTS.exec(url);
  if (!parts) return displayWidth(url) <= width ? url : cutMiddle(url, width);
  const [, origin = '', path = ''] = parts;
  const droppable = DROPPABLE_SCHEME.test(origin);
  if (!droppable || https) {
    if (displayWidth(url) <= width) return url;
    if (displayWidth(origin) + 2 <= width) return origin + shortenPath(path, width - displayWidth(origin));
  }
  // The host tells rows apart, `https://` seldom does, so it goes first (`hooks.example.com/…`).
  const whole = SCHEME.exec(origin)?.[0] ?? '';
  const scheme = droppable ? '' : whole;
  const host = origin.slice(whole.length);
  const room = width - displayWidth(scheme);
  if (displayWidth(host + path) <= room) return scheme + host + path;
  if (displayWidth(host) + 2 <= room) return scheme + host + shortenPath(path, room - displayWidth(host));
  // The host is worth more than `/…` saying a path follows; wider than the room, its start and its end.
  return room >= 2 ? scheme + cutMiddle(host, room) : cutMiddle(origin, width);
}

/** Whether `url` keeps its scheme in `width` columns, as shortenUrl shows it. */
export function keepsScheme(url: string, width: number): boolean {
  const scheme = SCHEME.exec(url)?.[0];
  return scheme === undefined || shortenUrl(url, width).startsWith(scheme);
}

/** A path (with its query) in `room` columns, its middle gone: whole segments from its end, then from its start. */
function shortenPath(path: string, room: number): string {
  const segments = path.split('/').slice(1);
  const last = segments.pop() ?? '';
  // The last segment alone does not fit after `/…/`: after `…/`, or not at all (`/…`): never a part of it.
  if (displayWidth(last) + 3 > room) return displayWidth(last) + 2 <= room ? `…/${last}` : '/…';
  let tail = `/${last}`;
  let lead = '';
  // `/…` plus whole segments: from the end while they fit, then from the start.
  while (segments.length > 0 && displayWidth(`/…/${segments[segments.length - 1]}${tail}`) <= room) tail = `/${segments.pop()}${tail}`;
  while (segments.length > 0 && displayWidth(`${lead}/${segments[0]}/…${tail}`) <= room) lead += `/${segments.shift()}`;
  return segments.length === 0 ? lead + tail : `${lead}/…${tail}`;
}

/** The columns a delivery's id keeps in its short form: its start and its end (`dlv_3e…fe2d`). */
export const ID_SHORT_WIDTH = 11;
/** The share of a cut id's room kept from its start: the type prefix and the first characters after it. */
const ID_START_SHARE = 0.6;

/**
 * An id in its one short form: its start and its end, `width` columns in all (`dlv_eb…aaee`, `wh_32…a772`). Every
 * table and log line that cannot show an id whole shows it so, and only so.
 */
export function shortId(id: string, width = ID_SHORT_WIDTH): string {
  return cutMiddle(id, width, ID_START_SHARE);
}

/**
 * Text ending in an id, or a delivery's id and its attempt's number, with its id in its short form, what comes before
 * or after it kept (`3 of dlv_eb…aaee`, `dlv_eb…aaee #3`).
 */
export function shortIdText(text: string): string {
  // `dlv_… #3`, a delivery and its attempt's number, has its id first.
  const numbered = /^(\S+)( #\S+)$/.exec(text);
  if (numbered) return shortId(numbered[1]!) + numbered[2]!;
  const at = text.lastIndexOf(' ') + 1;
  return text.slice(0, at) + shortId(text.slice(at));
}

/** What a word starts and ends with that is no part of its token: `(https://…/invoices):` is a URL in brackets. */
const AROUND_TOKEN = /^([("'[{<`]*)(.*?)([)"'\]}>`,;:.!?]*)$/su;

/**
 * A word of text that is read, not copied (a URL, a file's path, a signature), in at most `width` columns: shortened
 * in its middle as an id is (shortId), its start and its end kept; a URL keeps its scheme and host and its path's end
 * (shortenUrl). The brackets and punctuation around it stay whole.
 */
export function shortToken(word: string, width: number): string {
  if (displayWidth(word) <= width) return word;
  const [, open = '', token = '', close = ''] = AROUND_TOKEN.exec(word)!;
  const room = width - displayWidth(open) - displayWidth(close);
  if (token === '' || room < 2) return shortId(word, width);
  return open + (token.includes('://') ? shortenUrl(token, room) : shortId(token, room)) + close;
}

/**
 * The fewest columns `word` is shortened to on a line (shortToken) without losing what tells it apart: an id's short
 * form; a URL's scheme and host with its path's last segment (`https://hooks.example.com/…/invoices`).
 */
export function shortestOf(word: string): number {
  const url = AROUND_TOKEN.exec(word)![2]!;
  const last =
    url
      .replace(/[?#].*$/, '')
      .split('/')
      .pop() ?? '';
  const around = displayWidth(word) - displayWidth(url);
  const wanted = url.includes('://') ? displayWidth(originOf(url)) + displayWidth(`/…/${last}`) + around : ID_SHORT_WIDTH;
  return Math.min(wanted, displayWidth(word));
}

/** Where text may be cut between words: after a space, a comma, a dot, an underscore, a hyphen, a colon or a slash. */
const WORD_END = /[\s,._:/-]/u;

/**
 * `text` in at most `width` columns, cut between words (`production_order.…`, `A product's master…`), never inside
 * one; a first word wider than `width` alone is cut at its end.
 */
export function cutWords(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  const start = startOf(text, width - 1);
  // What fits ends a word (a separator follows it): it is all kept (`sales_order…`).
  if (WORD_END.test(text.charAt(start.length))) return `${start.trimEnd()}…`;
  // Else the cut falls after the last word end in what fits (a separator kept: `production_…` reads as cut there).
  for (let i = start.length - 1; i > 0; i--) {
    if (WORD_END.test(start[i]!)) return `${start.slice(0, /\s/.test(start[i]!) ? i : i + 1).trimEnd()}…`;
  }
  return `${start}…`;
}

/**
 * `text` in at most `width` columns by whole words, those that do not fit left out at its end and `…` said for them
 * (`app: no answer…`, `signature…`): never a word cut, not even at a dot or an underscore (an id's short form,
 * `retry of dlv_eb…aaee`, stays whole or goes). `…` alone when not even the first word fits.
 */
export function dropWords(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width < 1) return '';
  const words = text.split(/(?<=\S)(?= )/);
  let kept = '';
  for (const word of words) {
    if (displayWidth(`${kept}${word}`.trimEnd()) + 1 > width) break;
    kept += word;
  }
  // A word's own punctuation goes with the words after it (`app: no answer…`, not `app: no answer:…`), and so does
  // a separator between phrases (`attempt 2 failed…`, not `attempt 2 failed ·…`).
  return `${kept.trimEnd().replace(/\s*[,;:·]$/, '')}…`;
}

/**
 * A list (event types, scopes) in at most `width` columns: as many whole items as fit, then how many more
 * (`invoice.paid +2`, `webhooks:read +1`), never an item cut in two while one whole item fits.
 */
export function shortList(items: string[], width: number, separator = ', '): string {
  const whole = items.join(separator);
  if (displayWidth(whole) <= width) return whole;
  for (let kept = items.length - 1; kept >= 1; kept--) {
    const text = `${items.slice(0, kept).join(separator)} +${items.length - kept}`;
    if (displayWidth(text) <= width) return text;
  }
  const more = items.length > 1 ? ` +${items.length - 1}` : '';
  return cutWords(items[0] ?? '', Math.max(1, width - more.length)) + more;
}

/**
 * A number and the unit elapsed() or bytesText() (words.ts) says after it (`10 s`, `1.5 s`, `3 min`, `64 KiB`, `1500 bytes`): a
 * layout keeps them on one line (render/wrap.ts). Not a no-break space: that would reach pipes and --json too.
 */
export const MEASURE = /(?<![\w.])\d+(?:\.\d+)? (?:ms|s|min|h|d|KiB|MiB|GiB|bytes)(?!\w)/g;
