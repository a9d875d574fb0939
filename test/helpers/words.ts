import { stripVTControlCharacters } from 'node:util';
import { displayWidth } from '../../src/render/width.js';

// Whether text on a terminal says what the same text says in a pipe, word for word: a terminal gets lines laid out for
// its width, a pipe whole ones, and a word broken across two lines, or cut, shows as words the pipe never wrote.

/** The widths a user tries: a narrow pane, the classic terminal, a wide one. */
export const WIDTHS = [60, 80, 132] as const;

/**
 * The lines of `text` wider than `columns`, as a terminal draws them; a line that is one token a user copies, alone
 * wider than the line (copiedToken), is no such line: it is kept whole, the terminal wraps it.
 */
export function widerLines(text: string, columns: number): string[] {
  return text.split('\n').filter((line) => displayWidth(line) > columns && !copiedToken(line));
}

/** A token a user copies: a URL, a file's path, an id or a secret (`wh_…`, `whsec_…`), an option of a command. */
const COPIED = /^[("'`]*(?:[a-z][a-z0-9+.-]*:\/\/\S+|[.~]?\/\S*|[a-z]+_\w[\w-]*|--?[a-z][\w-]*(?:=\S+)?)[)"'`,;:.]*$/i;

/**
 * Whether `line` (colour aside) is one token a user copies alone (COPIED, or a quoted shell word with its spaces),
 * after its indent, a command's piece with its ` \`: whsvc keeps such a token whole, on a line of its own, where the
 * terminal wraps it only when it is wider than the whole line. Anything else on a line must fit it.
 */
export function copiedToken(line: string): boolean {
  const token = stripVTControlCharacters(line).trim().replace(/ \\$/, '');
  return /^(?:'[^']*'|"[^"]*")$/.test(token) || COPIED.test(token);
}

/**
 * What may differ between two runs of one command, left out: an id (whole or in its short form, `dlv_eb…aaee`: both
 * `dlv_ID`), a client secret, hex runs (signatures) and digits (times, counts, ports).
 */
const mask = (word: string) =>
  word
    .replace(/\bsbx_secret_[\w-]+/g, 'sbx_secret_X')
    .replace(/\b([a-z]+)_[0-9a-f]{2,}(?:…[0-9a-f]+\b)?/g, '$1_ID')
    .replace(/[0-9a-f]{6,}/g, '#')
    .replace(/\d+/g, '#')
    .replace(/#+/g, '#');

/**
 * A time relative to now (`now`, `1 second ago`, `in 5 minutes`, `yesterday`), which two runs a second apart say
 * differently, as one word: what is compared is where words go, not when a run was.
 */
const RELATIVE_TIME = /\b(?:now|yesterday|tomorrow|(?:in\s+)?\d+\s+(?:second|minute|hour|day|month|year)s?(?:\s+ago)?)\b/g;

const wordsOf = (text: string) =>
  text
    .replace(RELATIVE_TIME, 'WHEN')
    .split(/\s+/)
    .filter((word) => word !== '' && word !== '\\')
    .map(mask);

/**
 * Whether a word on a terminal is `whole`'s: the same, or, too wide for a line, shortened as an id is
 * (`sha256=3f2a…9c1d`), or as a URL is (`https://hooks.example.com/…/invoices`, `hooks.example.com/…`: its scheme, then
 * its path, gone).
 */
function sameWord(shown: string, whole: string): boolean {
  if (shown === whole) return true;
  const cut = shown.indexOf('…');
  if (cut < 0 || whole.includes('…')) return false;
  const [start, end] = [shown.slice(0, cut), shown.slice(cut + 1)];
  const schemeless = whole.replace(/^([("'[{<`]*)[a-z][a-z0-9+.-]*:\/\//i, '$1');
  return start !== '' && (end !== '' || start.endsWith('/')) && [whole, schemeless].some((word) => word.startsWith(start)) && whole.endsWith(end);
}

/**
 * Whether `shown` (a terminal's lines) holds the words of `whole` (a pipe's), each whole (sameWord): in order, or, for
 * a terminal that showed stdout and stderr as they came where the pipe kept them apart, in any order. A line's ` \`
 * (a command continued) is no word. The runs may differ in what `mask` leaves out.
 */
export function sameWords(shown: string, whole: string, anyOrder = false): boolean {
  const [terminal, pipe] = [wordsOf(shown), wordsOf(whole)];
  if (terminal.length !== pipe.length) return false;
  if (!anyOrder) return terminal.every((word, n) => sameWord(word, pipe[n]!));
  const left = [...pipe];
  return terminal.every((word) => {
    const at = left.indexOf(word);
    const found = at >= 0 ? at : left.findIndex((candidate) => sameWord(word, candidate));
    if (found >= 0) left.splice(found, 1);
    return found >= 0;
  });
}

/**
 * Whether `line` (a stream's line on a terminal, which leaves fields out) holds only whole words of `whole` (the same
 * line in a pipe): each as it is there, an id in its short form, a URL without its path (`http://127.0.0.1:3000/…`),
 * an event type cut after a separator (`production_…`), or a last word that says words were left out after it (`no…`).
 */
export function onlyWholeWords(line: string, whole: string): boolean {
  const words = new Set(wordsOf(whole).flatMap((word) => [word, word.replace(/[,;:]$/, '')]));
  return wordsOf(line).every((word) => {
    if (words.has(word) || word === '…') return true;
    const [start = '', end] = word.split('…');
    if (end !== '') return [...words].some((candidate) => sameWord(word, candidate));
    return words.has(start) || (/[/_.:-]$/.test(start) && [...words].some((candidate) => candidate.startsWith(start)));
  });
}
