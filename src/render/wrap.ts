import type { OutputStream } from './stream.js';
import { displayWidth } from './width.js';

/**
 * Lines of prose laid out for a terminal, as --help lays out its descriptions: broken between words, each
 * continuation indented under its text, never a word broken. Off a terminal (a pipe, a file) a line stays whole, as
 * gh leaves it: a script or grep sees one line where a terminal sees several.
 */

/** The width lines are laid out for on `stream`: its columns on a terminal; none (no wrapping) in a pipe or a file. */
export function terminalColumns(stream: OutputStream): number | undefined {
  return stream.isTTY && stream.columns !== undefined && stream.columns > 0 ? stream.columns : undefined;
}

/**
 * One line of prose in lines at most `width` columns wide (colour codes taking none): its own indent and the runs of
 * spaces inside it kept, broken only at spaces, each continuation after `hang` (the indent that puts it under its
 * text). A word is never broken: an id, a URL, a file's name wider than the room goes whole on a line of its own,
 * and so does each of `keep` (a file's name with spaces in it, as it was given). `width` undefined: the line as it is.
 */
export function wrapLine(line: string, width: number | undefined, hang = '', keep: readonly string[] = []): string {
  if (width === undefined || displayWidth(line) <= width) return line;
  const lead = /^ */.exec(line)![0];
  const lines: string[] = [];
  let current = lead;
  for (const { spaces, word } of wordsOf(line, lead.length, keep)) {
    const start = current === lead || current === hang;
    if (!start && displayWidth(current) + spaces.length + displayWidth(word) > width) {
      lines.push(current);
      current = hang + word;
    } else {
      current += start ? word : spaces + word;
    }
  }
  lines.push(current);
  return lines.join('\n');
}

/** The words of `line` after its indent, each with the spaces before it; a space inside one of `keep` joins, never breaks. */
function wordsOf(line: string, from: number, keep: readonly string[]): Array<{ spaces: string; word: string }> {
  const kept = keptRanges(line, keep);
  const words: Array<{ spaces: string; word: string }> = [];
  const pieces = /( +)|([^ ]+)/g;
  pieces.lastIndex = from;
  let spaces = '';
  for (let piece = pieces.exec(line); piece !== null; piece = pieces.exec(line)) {
    const inside = kept.some(([start, end]) => piece!.index > start && piece!.index < end);
    if (piece[1] !== undefined && !inside) spaces = piece[1];
    else if (inside && words.length > 0) words[words.length - 1]!.word += piece[0];
    else {
      words.push({ spaces, word: piece[0] });
      spaces = '';
    }
  }
  return words;
}

/** Where each of `keep` stands in `line`: [start, end) of every occurrence. */
function keptRanges(line: string, keep: readonly string[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const text of keep) {
    if (!text.includes(' ')) continue;
    for (let at = line.indexOf(text); at >= 0; at = line.indexOf(text, at + text.length)) ranges.push([at, at + text.length]);
  }
  return ranges;
}
