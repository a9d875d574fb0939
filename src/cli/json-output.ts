/**
 * What became of a document handed on: `shown` to its reader; `failed`, --jq failed on it (said on stderr); `dropped`,
 * the secret it carries (a signing secret given once) is in none of --jq's results. Only a document handed on with its
 * secret is ever `dropped`; of such a document, the filter's results are printed only when `shown`. Unless `shown`, the
 * exit code becomes 1.
 */
export type Shown = 'shown' | 'failed' | 'dropped';

/**
 * Where a command's --json output goes, as values: printed as JSON text, or,
 * with --jq, each JSON text through the filter (jq.ts JqJson). A command
 * hands it values and never writes JSON text to stdout itself, so that --jq
 * gets what the command meant, not text to take apart again.
 */
export interface JsonOutput {
  /**
   * One whole document: an object, a page, a summary; with `secret`, one whose secret the service gives only once, so
   * that it must not be lost without a word (a webhook created).
   */
  document(value: unknown, secret?: string): Shown;
  /** A document that is already JSON text (the service's own bytes, every digit kept: `whsvc api`), as document(). */
  text(json: string, secret?: string): Shown;
  /**
   * A document --jq failed on that must not be lost (an answer holding a signing secret, given only once): printed
   * as it came, where --json alone prints it, past the filter.
   */
  unfiltered(json: string): void;
  /** One line of an NDJSON stream (listen, tail, replay), printed at once. */
  line(value: unknown): void;
  /**
   * A line about a stream, ahead of it (listen's address, which a script given --port 0 reads): on stdout with
   * --json; with --jq on stderr, out of the way of the user's program, which sees only the stream's own lines.
   */
  heading(value: unknown): void;
  /** One document written as it goes, `{ head…, "<key>": [items…], tail… }` (JsonDocumentStream). */
  stream(key: string, head?: Record<string, unknown>, pretty?: boolean): JsonDocument;
}

/** A document written as it goes: begun with the first item, then ended whole, or cut where a failure stopped it. */
export interface JsonDocument {
  readonly count: number;
  /** Whether anything was written. */
  readonly started: boolean;
  item(value: unknown): void;
  end(tail: Record<string, unknown>): void;
  /**
   * A list a failure stopped part-way: left unfinished after its last whole item (and a newline), never closed, so
   * that jq, or any JSON parser, refuses it with the command's error rather than a script taking part of the list for
   * the whole of it. Closed with `has_more: true`, `jq '.data[]'` would hand on the part with exit 0. A command that
   * acts (recover, retry) closes its document with an `error` instead: what it did is done, and is the part a script
   * must read.
   */
  cut(): void;
}

/** --json's output as text on stdout: documents indented, lines compact. */
export class PrintedJson implements JsonOutput {
  constructor(private readonly out: { write(chunk: string): unknown }) {}

  document(value: unknown): Shown {
    this.out.write(`${JSON.stringify(value, null, 2)}\n`);
    return 'shown';
  }

  text(json: string): Shown {
    this.out.write(json.endsWith('\n') ? json : `${json}\n`);
    return 'shown';
  }

  unfiltered(json: string): void {
    this.text(json);
  }

  line(value: unknown): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }

  heading(value: unknown): void {
    this.line(value);
  }

  stream(key: string, head: Record<string, unknown> = {}, pretty = false): JsonDocument {
    return new JsonDocumentStream(this.out, key, head, pretty);
  }
}

/**
 * One JSON document written as it goes, `{ head…, "<key>": [items…], tail… }`:
 * begun with the first item (or at the end), so that a run that fails before
 * any leaves stdout empty; ended whole, or cut (JsonDocument.cut), never left
 * mid-item. Compact (an item a line) or `pretty`, as printJson writes.
 */
class JsonDocumentStream implements JsonDocument {
  private begun = false;
  count = 0;

  constructor(
    private readonly out: { write(chunk: string): unknown },
    private readonly key: string,
    private readonly head: Record<string, unknown>,
    private readonly pretty: boolean,
  ) {}

  get started(): boolean {
    return this.begun;
  }

  item(value: unknown): void {
    this.begin();
    this.out.write(`${this.count === 0 ? '' : ','}\n${this.pretty ? `    ${JSON.stringify(value, null, 2).replace(/\n/g, '\n    ')}` : JSON.stringify(value)}`);
    this.count += 1;
  }

  end(tail: Record<string, unknown>): void {
    this.begin();
    const fields = Object.entries(tail).map(([name, value]) => `,${this.field(name, value)}`);
    this.out.write(`${this.count === 0 ? '' : this.pretty ? '\n  ' : '\n'}]${fields.join('')}${this.pretty ? '\n' : ''}}\n`);
  }

  cut(): void {
    if (this.begun) this.out.write('\n');
  }

  private begin(): void {
    if (this.begun) return;
    this.begun = true;
    const fields = Object.entries(this.head).map(([name, value]) => `${this.field(name, value)},`);
    this.out.write(`{${fields.join('')}${this.pretty ? `\n  ${JSON.stringify(this.key)}: [` : `${JSON.stringify(this.key)}:[`}`);
  }

  private field(name: string, value: unknown): string {
    return this.pretty
      ? `\n  ${JSON.stringify(name)}: ${JSON.stringify(value, null, 2).replace(/\n/g, '\n  ')}`
      : `${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
}
