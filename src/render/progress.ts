import { holdLine, releaseLine, type OutputStream } from './stream.js';
import { cutWords } from './width.js';

/** Redraws at most this often: a terminal flooded with redraws only flickers. */
const REDRAW_MS = 100;

/**
 * One status line on a terminal, redrawn in place and wiped at the end. Only
 * for a stream that is a terminal; the caller decides. From its first draw to
 * its wipe it holds the stream's line: no spinner draws there meanwhile.
 */
export class ProgressLine {
  private drawnAt = Number.NEGATIVE_INFINITY;
  private shown = false;
  private drawn = '';

  constructor(
    private readonly stream: OutputStream,
    private readonly now: () => number = Date.now,
  ) {}

  /** Draws `text` unless the line was drawn a moment ago; `force` draws it anyway. */
  update(text: string, force = false): void {
    const now = this.now();
    if (!force && now - this.drawnAt < REDRAW_MS) return;
    this.drawnAt = now;
    const width = this.stream.columns ?? 80;
    // Wider than the terminal would wrap, and \r would then only go back to the second row; cut between words.
    const fitted = cutWords(text, width - 1);
    holdLine(this.stream);
    this.stream.write(`\r\u001b[2K${fitted}`);
    this.shown = true;
    this.drawn = fitted;
  }

  /** Writes whole lines above the progress line, which is drawn again below them. */
  writeAbove(lines: string): void {
    this.stream.write(this.shown ? `\r\u001b[2K${lines}${this.drawn}` : lines);
  }

  clear(): void {
    if (this.shown) this.stream.write('\r\u001b[2K');
    this.shown = false;
    releaseLine(this.stream);
  }
}
