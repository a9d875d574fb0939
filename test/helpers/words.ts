import { displayWidth } from '../../src/render/width.js';

// Whether text on a terminal says what the same text says in a pipe, word for word: a terminal gets lines laid out for
// its width, a pipe whole ones, and a word broken across two lines, or cut, shows as words the pipe never wrote.

/** The widths a user tries: a narrow pane, the classic terminal, a wide one. */
export const WIDTHS = [60, 80, 132] as const;

/** The lines of `text` wider than `columns`, as a terminal draws them. */
export function widerLines(text: string, columns: number): string[] {
  return text.split('\n').filter((line) => displayWidth(line) > columns);
}

/** What may differ between two runs of one command: the digits of times, counts and ids, hex runs (ids, signatures). */
const mask = (word: string) => word.replace(/[0-9a-f]{3,}|\d+/gi, '#').replace(/#+/g, '#');

/**
 * Whether `shown` (a terminal's lines) holds the words of `whole` (a pipe's), in order, each whole: as it is, or, too
 * wide for a line, shortened as an id is (its start and its end around `…`). A line's ` \` (a command continued) is
 * no word. The runs may differ in what `mask` leaves out.
 */
export function sameWords(shown: string, whole: string): boolean {
  const words = (text: string) =>
    text
      .split(/\s+/)
      .filter((word) => word !== '' && word !== '\\')
      .map(mask);
  const [terminal, pipe] = [words(shown), words(whole)];
  return (
    terminal.length === pipe.length &&
    terminal.every((word, n) => {
      const same = pipe[n]!;
      if (word === same) return true;
      const cut = word.indexOf('…');
      if (cut < 0 || same.includes('…')) return false;
      const [start, end] = [word.slice(0, cut), word.slice(cut + 1)];
      return start !== '' && end !== '' && same.startsWith(start) && same.endsWith(end);
    })
  );
}
