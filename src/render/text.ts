import { wrapLine } from './wrap.js';

// Control characters (C0, DEL, C1), so that no value from the server can move
// the cursor, change colours, retitle the terminal or forge another line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const LINE_BREAKS = /[\t\n\r]/g;

/** A server value for one line (a cell, a key/value pair): control characters removed, line breaks made spaces. */
export function sanitize(value: unknown): string {
  return String(value ?? '')
    .replace(LINE_BREAKS, ' ')
    .replace(CONTROL, '');
}

/** Text as one word of a POSIX shell, exactly: as it is when plain, else in single quotes. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9._=/:@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A string (a server's, or a word typed) made safe to paste into a shell, and to show: quoted unless plain; one with
 * control characters in bash's and zsh's `$'…'`, each escaped (`$'\e[31mred'`), so that it is seen as it is, never
 * acted on by the terminal, and pasted back it is the same string.
 */
export function shellWord(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u001f\u007f-\u009f]/.test(value)) return shellQuote(value);
  return `$'${value.replace(/[\u0000-\u001f\u007f-\u009f'\\]/g, ansiCEscape)}'`;
}

const ANSI_C_ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r', '\u001b': '\\e', '\u0007': '\\a' };

/** One character as `$'…'` writes it: `\n`, `\e`, `\x01`, `\u0085`. */
function ansiCEscape(c: string): string {
  const code = c.charCodeAt(0);
  return ANSI_C_ESCAPES[c] ?? (code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/** A value quoted for a message with every control character escaped (`"a\\u001b[31m"`): seen as it is, never acted on. */
export function quoted(value: string): string {
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A server text shown as a block (a payload): its own line breaks kept, every other control character removed. */
export function sanitizeBlock(value: string): string {
  return value.replace(CONTROL, '');
}

/**
 * A value of a key/value block: text (sanitised there), text in colour, or text with values only shown (`shorten`: a
 * signature, a body's head, whose whole form --json has), shortened as an id is when wider than the line.
 */
export type BlockValue = string | { styled: string } | { text: string; shorten: string[] };

/**
 * A key/value block for one object. Values pass through sanitize here, the
 * one gate for server strings; colour a value with `styled` after that. On a
 * terminal `width` wide, a value too long for its line goes on under itself,
 * broken between words (wrapLine), every word whole (an id, a URL, a secret:
 * a user copies them), but a word of `shorten` wider than the line. `width` is given by each caller, undefined off a
 * terminal (terminalColumns): a block left without it was never laid out.
 */
export function keyValues(pairs: Array<[string, BlockValue]>, label: (s: string) => string, width: number | undefined): string {
  const keyWidth = Math.max(...pairs.map(([key]) => key.length));
  const hang = ' '.repeat(keyWidth + 2);
  return (
    pairs
      .map(([key, value]) => {
        const shown = typeof value === 'string' ? sanitize(value) : 'styled' in value ? value.styled : sanitize(value.text);
        const shorten = typeof value === 'object' && 'shorten' in value ? value.shorten.map(sanitize) : [];
        return wrapLine(`${label(key.padEnd(keyWidth))}  ${shown}`, width, hang, [], { shorten });
      })
      .join('\n') + '\n'
  );
}

/** The most of a command line echoed (cutWords): 30,000 words would be one line of 169 KB. */
const ECHO_MOST = 200;

/**
 * Words joined by `separator`; past `most` characters, the first and the last of them (two thirds and one third of
 * `most`) around `… N more words …`, cut between words, so that what is shown is whole words and says it is not all.
 */
export function cutWords(words: readonly string[], separator = ' ', most = ECHO_MOST): string {
  const line = words.join(separator);
  if (line.length <= most) return line;
  const within = (from: readonly string[], room: number) => {
    const kept: string[] = [];
    let length = 0;
    for (const word of from) {
      length += word.length + separator.length;
      if (length > room) break;
      kept.push(word);
    }
    return kept;
  };
  const head = within(words, (most * 2) / 3);
  const tail = within(words.slice(head.length).reverse(), most / 3).reverse();
  const left = words.length - head.length - tail.length;
  return [...head, `… ${counted(left, 'more word')} …`, ...tail].join(separator);
}

/** The first few of a longer list, and how many more there were: `a, b, c and 5 more`. */
export function andMore(shown: string[], total: number, separator = ', '): string {
  return `${shown.join(separator)}${total > shown.length ? ` and ${countText(total - shown.length)} more` : ''}`;
}

/**
 * A count as every line a user reads says one (never --json, whose numbers are numbers): its digits grouped by
 * threes with commas, `1,234`, as gh and stripe write them, whatever the machine's locale. Given as text (a service's
 * number as it wrote it, exact past a double), its digits are grouped as they are.
 */
export function countText(count: number | string): string {
  const [whole = '', fraction] = String(count).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** A count and its noun, `1 delivery`, `1,234 deliveries`; `plural` when it is not the noun and an s. */
export function counted(count: number | string, noun: string, plural = /y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`): string {
  return `${countText(count)} ${Number(count) === 1 ? noun : plural}`;
}
