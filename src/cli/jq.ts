import { withSystemSignals } from './interrupt.js';
import type { Jq } from 'jq-wasm';
import type { OutputStream } from '../render/stream.js';
import { JsonValueSplitter } from '../render/json-values.js';
import { sanitizeBlock } from '../render/text.js';
import { ExitCode, usageError } from './errors.js';
import { exactParse } from '../exact-json.js';

/**
 * --jq EXPR: the output --json prints, through jq, as `--json | jq -r EXPR`
 * would: each JSON text the command writes (its one document, with --all the
 * one envelope of every page; each line of an NDJSON stream, as it comes) is
 * the filter's input, and its results are printed one a line, strings raw.
 * jq itself (jq 1.8, compiled to WebAssembly: the jq-wasm package) is loaded
 * only when the flag is given, and the expression is compiled before the
 * command runs, so a bad one is a usage error before any request.
 */

/** A compiled-and-checked filter: each input's results, or jq's error. */
export interface JqFilter {
  run(input: string): { results: string[]; error?: string; warnings?: string };
}

/** jq's words for an error, without its `jq: error…:` prefix and its name for our input. */
function jqMessage(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('jq: error'))
    .map((line) => line.replace(/^jq: error(?: \(at [^)]*\))?: /, '').replace(/ at <top-level>, line (\d+), column (\d+):$/, ' (line $1, column $2)'))
    .join('; ');
}

/**
 * Compiles `expression` without running it: jq compiles a whole program
 * before it runs any of it, and `if false then (…) else empty end` never runs
 * its branch. When it does not compile, the error is asked of the expression
 * alone, so that its line and column are the user's (a compile error stops jq
 * before anything runs there too).
 */
export function checkExpression(jq: Pick<Jq, 'raw'>, expression: string): void {
  const guarded = jq.raw('null', `if false then (\n${expression}\n) else empty end`, ['-n']);
  if (guarded.exitCode === 0) return;
  const alone = jq.raw('null', expression, ['-n']);
  const message = jqMessage(alone.exitCode === 3 ? alone.stderr : guarded.stderr) || guarded.stderr.trim();
  throw usageError(`--jq ${JSON.stringify(expression)}: ${message}`, 'jq expressions as in jq 1.8: https://jqlang.org/manual/');
}

/** jq, loaded at its first use: the WebAssembly module is compiled only for a command given --jq. */
export async function loadJqFilter(expression: string): Promise<JqFilter> {
  // The build with the WebAssembly embedded: nothing to find on disk next to the bundle's chunks.
  const { loadJq } = await import('jq-wasm/inline');
  const jq = await loadJq();
  checkExpression(jq, expression);
  return {
    run(input) {
      const { stdout, stderr, exitCode } = withSystemSignals(() => jq.raw(input, expression, ['-c']));
      const results = stdout === '' ? [] : stdout.split('\n');
      if (exitCode !== 0) return { results, error: jqMessage(stderr) || stderr.trim() || `jq exited with ${exitCode}` };
      return stderr === '' ? { results } : { results, warnings: stderr };
    },
  };
}

/**
 * Where a command given --jq writes its output: each JSON text, once whole,
 * goes through the filter, and its results to stdout, one a line: a string
 * raw (`jq -r`); any other value compact in a pipe, indented on a terminal
 * (as gh prints it), where control characters are also taken out of a
 * string, as of every server value shown there. jq's errors go to stderr,
 * and the command's exit code becomes 1 (finish()), as a failing `| jq` in a
 * pipeline with pipefail would.
 */
export class JqOutput implements OutputStream {
  private readonly splitter = new JsonValueSplitter();
  private failed = false;

  constructor(
    private readonly filter: JqFilter,
    private readonly stdout: OutputStream,
    private readonly stderr: OutputStream,
  ) {}

  get isTTY(): boolean | undefined {
    return this.stdout.isTTY;
  }

  get columns(): number | undefined {
    return this.stdout.columns;
  }

  write(chunk: string): boolean {
    const before = this.splitter.notJson;
    for (const value of this.splitter.push(String(chunk))) this.apply(value);
    if (before === undefined && this.splitter.notJson !== undefined) {
      this.fail(`--jq: the output is not JSON (it begins ${JSON.stringify(this.splitter.notJson)}): this command prints no JSON document to filter`);
    }
    return true;
  }

  /**
   * The end of the command's output: a number or word it ended with is
   * filtered; a document cut short (the command failed half-way) is dropped.
   * Returns the exit code, 1 where jq failed and the command did not.
   */
  finish(exitCode: number): number {
    const { last } = this.splitter.end();
    if (last !== undefined) this.apply(last);
    return this.failed && exitCode === ExitCode.ok ? ExitCode.failure : exitCode;
  }

  private apply(value: string): void {
    const { results, error, warnings } = this.filter.run(value);
    for (const result of results) this.stdout.write(`${this.shown(result)}\n`);
    if (warnings) this.stderr.write(`${warnings}\n`);
    if (error !== undefined) this.fail(`--jq: ${error}`);
  }

  private shown(result: string): string {
    const tty = this.stdout.isTTY === true;
    if (result.startsWith('"')) {
      const text = JSON.parse(result) as string;
      return tty ? sanitizeBlock(text) : text;
    }
    // jq's own text in a pipe (every digit of a number kept); indented for a reader, where JSON.stringify escapes
    // every control character.
    return tty ? JSON.stringify(exactParse(result), null, 2) : result;
  }

  private fail(message: string): void {
    this.failed = true;
    this.stderr.write(`whsvc: ${message}\n`);
  }
}
