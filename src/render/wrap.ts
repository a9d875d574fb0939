import { TOP_COMMANDS } from './commands.js';
import type { OutputStream } from './stream.js';
import { displayWidth, MEASURE, padEnd, shortestOf, shortToken } from './width.js';

/**
 * Lines of prose laid out for a terminal, as --help lays out its descriptions: broken between words, each
 * continuation indented under its text, never a word broken. Off a terminal (a pipe, a file) a line stays whole, as
 * gh leaves it: a script or grep sees one line where a terminal sees several.
 */

/** The width lines are laid out for on `stream`: its columns on a terminal; none (no wrapping) in a pipe or a file. */
export function terminalColumns(stream: OutputStream): number | undefined {
  return stream.isTTY && stream.columns !== undefined && stream.columns > 0 ? stream.columns : undefined;
}

/** What else a line's layout may do, beyond breaking it between words. */
export interface WrapOptions {
  /** Ends every line but the last: ` \` lays out a command as a shell reads it back, pasted whole. */
  continued?: string;
  /** Every continuation after the hang, a word too wide for it too: where the indent is the text's structure (YAML). */
  hangAlways?: boolean;
  /**
   * Values only shown, whose whole form the user does not copy from here (a signature, a body's head: --json has them
   * whole): a word of these texts wider than a line after the hang is shortened as an id is (shortToken). `true`: every
   * word (a screen's pane, which no terminal wraps). Every other word, which a user may copy (an id, a secret, a path, a
   * URL, a command), stays whole.
   */
  shorten?: readonly string[] | true;
}

/** A colour code (chalk's SGR sequences): it takes no column. */
// biome-ignore lint/complexity/useRegexLiterals: a literal would hold the escape character itself
const STYLE = new RegExp('\u001b\\[[0-9;]*m', 'g');

/**
 * One line of prose in lines at most `width` columns wide (colour codes taking none): its own indent and the runs of
 * spaces inside it kept, broken only at spaces, each continuation after `hang` (the indent that puts it under its
 * text). A word is never broken, nor shortened: what a user copies (an id, a secret, a path, a URL, a quoted value, a
 * command) stays whole; one that does not fit the room left goes on the next line, after the hang, or, too wide for
 * that, at the start of a line of its own; only one wider than any line is left to the terminal to wrap. Each of `keep`
 * (a file's name with spaces in it, as it was given), each command quoted in backticks or said to run, a number and its
 * unit (`10 s`) and a short quoted literal (`", "`) stay on one line so; a command said to run wider than a line even
 * there is laid out as one (wrapCommand: ` \` joins its lines); one in backticks, a part of a sentence, is never given a
 * ` \` (a hint too long for its commands in backticks puts them on lines of their own, bare). Only a word of `shorten`
 * (a value only shown: a signature, a body's head) wider than a line is shortened as an id is (shortToken: its start
 * and its end kept), in the room left on its line or after the hang on the next.
 * `width` undefined: the line as it is.
 */
export function wrapLine(line: string, width: number | undefined, hang = '', keep: readonly string[] = [], options: WrapOptions = {}): string {
  if (width === undefined || displayWidth(line) <= width) return line;
  const lead = /^ */.exec(line)![0];
  const mark = options.continued ?? '';
  const room = width - displayWidth(mark);
  const lines: string[] = [];
  let current = lead;
  // A command laid out as one (wrapCommand) is broken at its options instead: it is not kept whole as a sentence's is.
  const commands = keptWhole(line, options.continued === undefined);
  const words = wordsOf(line, lead.length, [...keep, ...commands]);
  const shortens = (word: string) => options.shorten === true || options.shorten?.some((text) => text.split(' ').includes(word)) === true;
  for (let n = 0; n < words.length; n++) {
    const { spaces, word, kept } = words[n]!;
    const start = current === lead || current === hang;
    const used = displayWidth(current) + (start ? 0 : spaces.length);
    if (used + displayWidth(word) <= room) {
      current += start ? word : spaces + word;
      continue;
    }
    const tooWide = displayWidth(hang) + displayWidth(word) > room;
    // Only shown, wider than a line after the hang: shortened to the room left here, or on the next line where that has
    // more room, and this too little for its short form or not half the next one's.
    if (tooWide && shortens(word)) {
      const next = room - displayWidth(hang);
      const onNext = !start && next > room - used && room - used < Math.max(shortestOf(word), next / 2);
      if (onNext) lines.push(current);
      const here = onNext ? hang : start ? current : current + spaces;
      current = here + shortToken(word, Math.max(1, room - displayWidth(here)));
      continue;
    }
    // A command's option with its value wider than the room (wrapCommand): broken between the option and its value,
    // ` \` joining them; never inside a quoted value, where a shell would read ` \` and the line break as part of it.
    const parts = tooWide && kept && options.continued !== undefined ? wordsOf(word, 0, shellQuoted(word)) : [];
    if (parts.length > 1) {
      words.splice(n + 1, 0, ...parts.map((part, i) => (i === 0 ? { ...part, spaces } : part)));
      continue;
    }
    // A command said to run, wider than any line: on lines of its own, broken at its options, ` \` joining them. Not
    // one in backticks: a ` \` after its closing backtick is no part of it, and prose would follow it on the next line.
    if (displayWidth(word) > room && commands.some((command) => !command.startsWith('`') && word.startsWith(command))) {
      if (!start) lines.push(current);
      // A line that is the command, indented (a hint's commands under it), keeps its indent.
      const indent = current === lead ? lead : '';
      lines.push(...wrapCommand(indent + word, width, `${indent}  `).split('\n'));
      current = hang;
      continue;
    }
    if (!start) {
      lines.push(current);
      current = hang;
    }
    // Too wide after the hang: at a line's start, whole (a secret, a URL, a command pasted in one piece).
    current = tooWide && !options.hangAlways && lines.length > 0 ? word : current + word;
  }
  // Not the hang alone after a command on lines of its own.
  if (current.trim() !== '' || lines.length === 0) lines.push(current);
  return lines.map((text, n) => (n < lines.length - 1 ? text + mark : text)).join('\n');
}

/**
 * Rows of cells as aligned columns: every cell but a row's last padded to its column's widest (as a terminal measures
 * it, colour codes taking none), `gap` between them; the last cell (an id) as it is, for wrapLine to put whole on a
 * continuation where it does not fit.
 */
export function alignedRows(rows: readonly (readonly string[])[], gap = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.slice(0, -1).entries()) widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell));
  }
  return rows.map((row) => row.map((cell, i) => (i < row.length - 1 ? padEnd(cell, widths[i]!) : cell)).join(gap));
}

/**
 * A run of a shell word that a space inside does not end: '…', "…" with its backslash escapes, bash's and zsh's `$'…'`
 * (shellWord's), or one character after a backslash. A word is such runs and plain characters glued together up to an
 * unquoted space (SHELL_WORD): shellQuote writes `'it'\''s my dir'`, one word of three runs.
 */
const QUOTED_RUN = String.raw`\$'(?:[^'\\]|\\.)*'|'[^']*'|"(?:[^"\\]|\\.)*"|\\.`;

/**
 * A plain character of a shell word, none of `also` either: not one that starts a QUOTED_RUN, so that a word is read
 * one way only (never `$` then '…' where `$'…'` is one run).
 */
const plainChar = (also = '') => String.raw`(?!\$')[^\s'"\\${also}]`;

/** One word as a shell reads it, spaces inside its quotes and all (QUOTED_RUN); a quote left open is one character, none lost. */
const SHELL_WORD = String.raw`(?:${QUOTED_RUN}|${plainChar()}|[$'"\\])+`;

/** The words of a command line as a shell reads them (SHELL_WORD): a quoted one, spaces and all, is one. */
export function shellWords(command: string): string[] {
  return command.match(new RegExp(`(?<=^| )${SHELL_WORD}`, 'g')) ?? [];
}

/** The words of a command a shell reads as one with spaces in them, each one piece. */
const shellQuoted = (command: string): string[] => shellWords(command).filter((word) => word.includes(' '));

/**
 * A command to paste into a shell, laid out for `width` as one: broken between its words, each option kept with its
 * value (`--profile sandbox`, `--secret-file '/Users/jane/Application Support/new hook.secret'`), a quoted word never
 * broken, every line but the last ending in ` \`, which joins it to the next.
 */
export function wrapCommand(line: string, width: number | undefined, hang: string): string {
  const options = line.match(new RegExp(`(?<= )--?[A-Za-z][\\w-]* (?!-)${SHELL_WORD}`, 'g')) ?? [];
  return wrapLine(line, width, hang, [...options, ...shellQuoted(line)], { continued: ' \\' });
}

/**
 * Text for `stream`, each of its lines laid out for its width (wrapLine) on a terminal, as it is in a pipe. A line's
 * continuations go under its text: after its label (`whsvc: `, `whsvc listen: `, `hint: `, a `!` or a `✓`), or two
 * further in than its own indent.
 */
export function laidOut(stream: OutputStream, text: string, keep: readonly string[] = []): string {
  const width = terminalColumns(stream);
  if (width === undefined) return text;
  return text
    .split('\n')
    .map((line) => wrapLine(line, width, hangOf(line), keep))
    .join('\n');
}

/** A delivery's id and its attempt's number (`dlv_eb21…aaee #3`), which a line of another program's keeps together. */
const DELIVERY_REF = /\b[a-z]+_[\w…]+ #\d+\b/g;

/**
 * Text another program wrote to a pipe (so laid out for no width: each line whole), shown on `stream` after `prefix`
 * (`  [sandbox] `), as a script passes a child's lines through: on a terminal each line laid out for its width, broken
 * between words, its continuations under its text (the prefix's width in, and the line's own hang), no word broken
 * (an id, a secret, a URL whole, a delivery's id with its attempt's number); in a pipe, each line whole after it.
 */
export function laidOutAfter(stream: OutputStream, prefix: string, text: string): string {
  const width = terminalColumns(stream);
  const under = ' '.repeat(displayWidth(prefix));
  return text
    .split('\n')
    .map((line) => wrapLine(prefix + line, width, under + hangOf(line), line.match(DELIVERY_REF) ?? []))
    .join('\n');
}

/**
 * YAML for `stream` (a file's text shown on a terminal), each line laid out for its width as YAML reads it back: a
 * comment goes on in comments under its text (`# `); a value goes on two deeper than its key, where a plain or quoted
 * scalar and a flow sequence (`[a, b]`) fold the line break back into the space it was. A word too wide for a line
 * stays after the indent, as YAML needs it. In a pipe, the text as it is.
 */
export function laidOutYaml(stream: OutputStream, text: string): string {
  const width = terminalColumns(stream);
  if (width === undefined) return text;
  return text
    .split('\n')
    .map((line) => {
      const indent = /^ */.exec(line)![0];
      // Under a comment's text; else two deeper than the line's key (after a sequence's `- `, where there is one).
      const key = /^ *(?:- )?/.exec(line)![0].length;
      const hang = line.startsWith(`${indent}#`) ? `${indent}# ` : ' '.repeat(key + 2);
      return wrapLine(line, width, hang, [], { hangAlways: true });
    })
    .join('\n');
}

/** The label a note's text starts after (`whsvc: `, `whsvc sandbox: `, `hint: `, `! `, `✓ `), colour codes aside. */
const LABEL = /^(?:whsvc(?: [a-z-]+)?: |hint: |[!✓✗] )/;

/** Where a line's continuations start: under the text after its label, or two further in than its own indent. */
export function hangOf(line: string): string {
  const plain = line.replace(STYLE, '');
  const label = LABEL.exec(plain)?.[0];
  const indent = /^ */.exec(plain)![0].length;
  return ' '.repeat(label === undefined ? (indent === 0 ? 0 : indent + 2) : displayWidth(label));
}

interface Word {
  spaces: string;
  word: string;
  /** One of `keep` (spaces inside it). */
  kept: boolean;
}

/** The words of `line` after its indent, each with the spaces before it; a space inside one of `keep` joins, never breaks. */
function wordsOf(line: string, from: number, keep: readonly string[]): Word[] {
  const kept = keptRanges(line, keep);
  const words: Word[] = [];
  const pieces = /( +)|([^ ]+)/g;
  pieces.lastIndex = from;
  let spaces = '';
  for (let piece = pieces.exec(line); piece !== null; piece = pieces.exec(line)) {
    const inside = kept.some(([start, end]) => piece!.index > start && piece!.index < end);
    if (piece[1] !== undefined && !inside) spaces = piece[1];
    else if (inside && words.length > 0) Object.assign(words[words.length - 1]!, { word: words[words.length - 1]!.word + piece[0], kept: true });
    else {
      words.push({ spaces, word: piece[0], kept: false });
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

/**
 * A whsvc command a line says to run (`hint: JSON is --json here: whsvc webhooks list --json`): `whsvc` then one of its
 * commands (TOP_COMMANDS) or an option (`whsvc --profile sandbox webhooks list`), and its words, a quoted one with its
 * spaces, up to the `;`, `,`, `:` or `)` that ends the sentence's part, or the backtick that closes it. Kept whole, it is pasted whole; split at a
 * line's end, a shell would run `whsvc` alone, then the rest. A sentence whsvc is the subject of (`whsvc stops there`)
 * is prose, broken as prose is.
 */
const SUGGESTED_COMMAND = new RegExp(
  `(?<![\\w-])whsvc(?= (?:-|(?:${TOP_COMMANDS.join('|')})(?![\\w-])))(?: (?:${QUOTED_RUN}|${plainChar('(`')})*(?:${QUOTED_RUN}|${plainChar(';,:()`')}))+`,
  'g',
);

/**
 * What a line keeps whole of itself: the commands it quotes in backticks (`` `whsvc deliveries retry dlv_…` ``) or
 * says to run (SUGGESTED_COMMAND), unless it is a command laid out as one (`commands` false), each number with its unit (`10 s`, MEASURE), and each quoted literal of a few
 * characters that are no word (`", "`, `": "`).
 */
function keptWhole(line: string, commands: boolean): string[] {
  return [
    ...((commands && line.match(/`[^`]+`/g)) || []),
    ...((commands && line.match(SUGGESTED_COMMAND)) || []),
    ...(line.match(MEASURE) ?? []),
    ...(line.match(/(?<![\w"])"[^"\w]{1,3}"(?![\w"])/g) ?? []),
  ];
}
