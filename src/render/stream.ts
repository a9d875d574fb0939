/** Where rendered text goes: a process stream, or a test's fake. */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** A terminal's width. */
  columns?: number;
}

/**
 * The terminal line a command's own progress is drawn on: while one holds it
 * (ProgressLine, from its first draw to its wipe), a spinner on the same
 * stream stays quiet instead of drawing over it.
 */
const heldLines = new WeakSet<OutputStream>();
export const holdLine = (stream: OutputStream): void => void heldLines.add(stream);
export const releaseLine = (stream: OutputStream): void => void heldLines.delete(stream);
export const lineHeld = (stream: OutputStream): boolean => heldLines.has(stream);
