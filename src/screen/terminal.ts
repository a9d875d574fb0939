import { emitKeypressEvents } from 'node:readline';
import {
  beginSynchronizedOutput,
  cursorHide,
  cursorShow,
  cursorTo,
  endSynchronizedOutput,
  enterAlternativeScreen,
  eraseEndLine,
  eraseScreen,
  exitAlternativeScreen,
} from 'ansi-escapes';

// The terminal under the interactive screen: its alternate screen (the user's own screen comes back whole on leaving),
// its keys one by one (raw mode, read by Node's own key decoder), its size and its changes, and a painter that
// writes only the rows that changed since the last frame (within a synchronized update, so a terminal that knows it
// shows each frame at once). The escape codes are ansi-escapes', a small, well-kept package; the rest is here. Loaded
// only when a screen starts (screen.ts): this module and its package are a chunk of their own.

/** A key as Node's readline decodes it. */
export interface Key {
  name?: string | undefined;
  ctrl?: boolean | undefined;
  meta?: boolean | undefined;
  shift?: boolean | undefined;
  sequence?: string | undefined;
}

/** The keyboard: a terminal's input, in raw mode while the screen is up. */
export type Keyboard = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode(raw: boolean): unknown };

/** The display: a terminal's output, its size, and its `resize` events. */
export interface Display {
  write(chunk: string): unknown;
  columns?: number | undefined;
  rows?: number | undefined;
  on(event: 'resize', listener: () => void): unknown;
  removeListener(event: 'resize', listener: () => void): unknown;
}

/** The size a terminal that says none is drawn at. */
const FALLBACK = { columns: 80, rows: 24 };
/** The most OSC 52 carries: terminals refuse more (xterm's own limit is about this). */
export const MAX_COPY_BYTES = 74_000;

export class Terminal {
  private previous: string[] = [];
  private up = false;
  private readonly onKey = (text: string | undefined, key: Key | undefined) => this.keys(text, key ?? { sequence: text });
  private readonly onResize = () => {
    this.previous = [];
    this.display.write(eraseScreen);
    this.resized();
  };

  constructor(
    private readonly keyboard: Keyboard,
    private readonly display: Display,
    private readonly keys: (text: string | undefined, key: Key) => void,
    private readonly resized: () => void,
  ) {}

  get size(): { columns: number; rows: number } {
    const { columns, rows } = this.display;
    return { columns: columns && columns > 0 ? columns : FALLBACK.columns, rows: rows && rows > 0 ? rows : FALLBACK.rows };
  }

  /** The alternate screen, the cursor hidden, the keys read one by one. */
  enter(): void {
    if (this.up) return;
    this.up = true;
    emitKeypressEvents(this.keyboard);
    this.keyboard.setRawMode(true);
    this.keyboard.on('keypress', this.onKey);
    this.keyboard.resume();
    this.display.on('resize', this.onResize);
    this.display.write(enterAlternativeScreen + cursorHide + eraseScreen);
  }

  /** Back to the user's screen as it was, the cursor shown, the keyboard as it was. Safe to call twice. */
  leave(): void {
    if (!this.up) return;
    this.up = false;
    this.display.removeListener('resize', this.onResize);
    this.keyboard.removeListener('keypress', this.onKey);
    this.keyboard.setRawMode(false);
    this.keyboard.pause();
    this.display.write(cursorShow + exitAlternativeScreen);
  }

  /** Draws a frame: only the rows that differ from the last one, each written whole and the rest of its row erased. */
  paint(lines: string[]): void {
    if (!this.up) return;
    let out = '';
    for (let row = 0; row < Math.max(lines.length, this.previous.length); row += 1) {
      const line = lines[row] ?? '';
      if (line === this.previous[row]) continue;
      // SGR 0 before the erase: a row's colour or bar never runs into the blank after it.
      out += `${cursorTo(0, row)}${line}${line.includes('\u001b[') ? '\u001b[0m' : ''}${eraseEndLine}`;
    }
    this.previous = lines;
    if (out) this.display.write(beginSynchronizedOutput + out + endSynchronizedOutput);
  }

  /** Puts text on the clipboard through the terminal (OSC 52), where the terminal allows it; false when it is too large. */
  copy(text: string): boolean {
    const encoded = Buffer.from(text, 'utf8').toString('base64');
    if (encoded.length > MAX_COPY_BYTES) return false;
    this.display.write(`\u001b]52;c;${encoded}\u0007`);
    return true;
  }
}
