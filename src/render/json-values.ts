/**
 * The JSON texts in a stream of output, each as soon as it is whole: what jq
 * reads on its input (one document, NDJSON's lines, or documents one after
 * another). Text is pushed as it is written; a value is whole at the bracket
 * or quote that closes it, or, for a bare number or word, at what follows it.
 * Only the value under way is kept.
 */
export class JsonValueSplitter {
  /** The earlier chunks of the value under way. */
  private parts: string[] = [];
  private underway = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** A bare value (a number, true, false, null) under way at the top level. */
  private inBare = false;
  /** The first characters of what cannot begin a JSON text, once met: nothing more is read. */
  notJson: string | undefined;

  /** The values made whole by `text`, in order. */
  push(text: string): string[] {
    const whole: string[] = [];
    if (this.notJson !== undefined) return whole;
    let start = 0;
    const finish = (end: number) => {
      whole.push(this.parts.length === 0 ? text.slice(start, end) : this.parts.join('') + text.slice(start, end));
      this.parts = [];
      this.underway = false;
    };
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.depth === 0) finish(i + 1);
        }
        continue;
      }
      if (this.inBare) {
        if (!isSpace(c) && c !== QUOTE && c !== OPEN_OBJECT && c !== OPEN_ARRAY && c !== CLOSE_OBJECT && c !== CLOSE_ARRAY) continue;
        this.inBare = false;
        finish(i);
      }
      if (this.depth === 0 && !this.underway) {
        if (isSpace(c)) continue;
        if (!(c === QUOTE || c === OPEN_OBJECT || c === OPEN_ARRAY || c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9) || c === T || c === F || c === N)) {
          this.notJson = text.slice(i, i + 20);
          this.parts = [];
          return whole;
        }
        this.underway = true;
        start = i;
      }
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.depth += 1;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        this.depth -= 1;
        if (this.depth === 0) finish(i + 1);
      } else if (this.depth === 0) this.inBare = true;
    }
    if (this.underway) this.parts.push(text.slice(start));
    return whole;
  }

  /** At the end of the output: a bare value ends with it; anything else left is a value cut short. */
  end(): { last?: string; cut: boolean } {
    if (this.inBare) {
      this.inBare = false;
      const last = this.parts.join('');
      this.parts = [];
      this.underway = false;
      return { last, cut: false };
    }
    return { cut: this.underway };
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
// The first letters of true, false and null.
const T = 0x74;
const F = 0x66;
const N = 0x6e;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
