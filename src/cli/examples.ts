import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { hangOf, shellWords, wrapLine } from '../render/wrap.js';

interface HelpContext {
  error: boolean;
  command: CommandUnknownOpts;
}

/**
 * The "Examples:" block every command's --help ends with (a test walks them
 * all), fitted to the help's width when it is drawn: a line too long for the
 * terminal is broken between words with a shell continuation (` \`), so that
 * it can still be copied whole, and its `# comment` goes on a line of its own
 * above it, instead of the terminal cutting a word in two.
 */
export function examples(...lines: string[]): (context: HelpContext) => string {
  return (context) => {
    const width = helpWidth(context);
    return `\n${lines.length === 1 ? 'Example' : 'Examples'}:\n${lines.flatMap((line) => fitExample(line, width)).join('\n')}`;
  };
}

/**
 * Paragraphs a command's --help ends with (what it waits for, its exit codes), each one line here and laid out for the
 * help's width when it is drawn, as its descriptions are: broken between words, never inside one.
 */
export function notes(...paragraphs: string[]): (context: HelpContext) => string {
  return (context) => {
    const width = helpWidth(context);
    return `\n${paragraphs.map((paragraph) => wrapLine(paragraph, width, hangOf(paragraph))).join('\n')}`;
  };
}

/** The width the help is drawn at: the terminal's it goes to (commander's help width, program.ts), 80 elsewhere. */
function helpWidth({ error, command }: HelpContext): number {
  const output = command.configureOutput();
  return (error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? 80;
}

const INDENT = '  ';
const CONTINUED = '    ';

/** One example as the lines of a help `width` columns wide (each indented). */
export function fitExample(example: string, width: number): string[] {
  if (INDENT.length + example.length <= width) return [INDENT + example];
  if (example.startsWith('# ')) return wrapComment(example.slice(2), width);
  const comment = /^(.*?)\s+(#\s.*)$/.exec(example);
  if (comment) return [...fitExample(comment[2]!, width), ...fitExample(comment[1]!, width)];
  const lines: string[] = [];
  let line = INDENT;
  const words = withValues(shellWords(example));
  for (const [i, word] of words.entries()) {
    const start = line === INDENT || line === CONTINUED;
    // Room for the word, and for ` \` after it unless it is the last.
    if (!start && line.length + 1 + word.length + (i < words.length - 1 ? 2 : 0) > width) {
      lines.push(`${line} \\`);
      line = CONTINUED;
    }
    line += line === INDENT || line === CONTINUED ? word : ` ${word}`;
  }
  return [...lines, line];
}

/** A `# comment` as lines of `# ` and words. */
function wrapComment(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/)) {
    const line = lines.at(-1);
    if (line !== undefined && line.length + 1 + word.length <= width) lines[lines.length - 1] = `${line} ${word}`;
    else lines.push(`${INDENT}# ${word}`);
  }
  return lines;
}

/** The words of a command line, each option kept with its value. */
function withValues(words: string[]): string[] {
  return words.reduce<string[]>((units, word) => {
    const last = units.at(-1);
    if (last !== undefined && /^--?[\w-]+$/.test(last) && !word.startsWith('-')) units[units.length - 1] = `${last} ${word}`;
    else units.push(word);
    return units;
  }, []);
}
