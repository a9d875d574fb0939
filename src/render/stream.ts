/** Where rendered text goes: a process stream, or a test's fake. */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** A terminal's width. */
  columns?: number;
}
