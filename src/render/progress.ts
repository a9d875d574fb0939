import type { OutputStream } from './stream.js';

/** Redraws at most this often: a terminal flooded with redraws only flickers. */
const REDRAW_MS = 100;

/**
 * One status line on a terminal, redrawn in place and wiped at the end. Only
 * for a stream that is a terminal; the caller decides.
 */
export class ProgressLine {
  private drawnAt = Number.NEGATIVE_INFINITY;
  private shown = false;

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
    // Wider than the terminal would wrap, and \r would then only go back to the second row.
    const fitted = text.length >= width ? `${text.slice(0, Math.max(0, width - 2))}…` : text;
    this.stream.write(`\r\u001b[2K${fitted}`);
    this.shown = true;
  }

  clear(): void {
    if (this.shown) this.stream.write('\r\u001b[2K');
    this.shown = false;
  }
}
