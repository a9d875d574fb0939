import type { Jq } from 'jq-wasm';
import type { OutputStream } from '../render/stream.js';
import type { JsonDocument, JsonOutput, Shown } from './json-output.js';
import { sanitizeBlock } from '../render/text.js';
import { bytesText } from '../render/words.js';
import { ExitCode, usageError } from './errors.js';
import { namesCredential } from '../protocol/credential-names.js';
import { holdsSigningSecret, signingSecretsIn } from './credentials.js';
import { pastedSecret } from './secret.js';
import { exactParse } from '../exact-json.js';
import { redactUserinfo } from '../net.js';
import { laidOut } from '../render/wrap.js';
import { SecretMask } from '../api/redact.js';

/**
 * --jq EXPR: the output --json prints, through jq, as `--json | jq -r EXPR`
 * would: each JSON text the command writes (its one document, with --all the
 * one envelope of every page; each line of an NDJSON stream, as it comes) is
 * the filter's input, and its results are printed one a line, strings raw.
 * jq itself (jq 1.8, compiled to WebAssembly: the jq-wasm package) is loaded
 * only when the flag is given, and the expression is compiled before the
 * command runs, so a bad one is a usage error before any request.
 */

/** A compiled-and-checked filter: each input's results, or jq's error; `stopped` once jq itself failed and cannot run again. */
export interface JqFilter {
  run(input: string): { results: string[]; error?: string; warnings?: string; stopped?: boolean };
}

/**
 * jq's words for an error, without its `jq: error…:` prefix and its name for our input. An error whose value is not a
 * string (`error({…})`), which jq 1.8 writes `jq: error (at …) (not a string): VALUE`, reads `VALUE (not a string)`.
 */
export function jqMessage(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('jq: error'))
    .map((line) =>
      line
        .replace(/^jq: error \(at [^)]*\) \(not a string\): (.*)$/s, '$1 (not a string)')
        .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
        .replace(/ at <top-level>, line (\d+), column (\d+):$/, ' (line $1, column $2)'),
    )
    .join('; ');
}

/**
 * Compiles `expression` without running it: jq compiles a whole program before it reads any input, and runs it once
 * for each input, so given none it runs none of it; a compile error stops it there, in the user's lines and columns.
 * A compile can still run out of memory (jq works out `"x" * 1e9` as it compiles), so it runs as the filter does
 * (`unguarded`: Ctrl-C stops it), and jq itself failing is a usage error of one line.
 */
export function checkExpression(jq: Pick<Jq, 'raw'>, expression: string, unguarded: <T>(work: () => T) => T = (work) => work()): void {
  const deepest = bracketNesting(expression);
  if (deepest > MOST_NESTING) {
    throw usageError(`--jq ${echoed(expression)}: nested ${deepest} deep; whsvc's jq runs programs nested at most ${MOST_NESTING} deep`, JQ_MANUAL);
  }
  let compiled: ReturnType<Jq['raw']>;
  try {
    compiled = unguarded(() => withoutAbortLine(() => jq.raw('', expression, [])));
  } catch (error) {
    throw usageError(`--jq ${echoed(expression)}: ${jqItselfFailed(error)}`, JQ_MANUAL);
  }
  if (compiled.exitCode === 0) return;
  throw usageError(`--jq ${echoed(expression)}: ${jqMessage(compiled.stderr) || compiled.stderr.trim()}`, JQ_MANUAL);
}

const JQ_MANUAL = 'jq expressions as in jq 1.8: https://jqlang.org/manual/';

/**
 * The deepest nesting a program may have. jq's WebAssembly has a fixed stack: a program nested about 600 deep
 * overruns it as it runs (`memory access out of bounds`), after the command's requests; 500 runs. Refused before
 * anything is sent, with room to spare for the input's own depth.
 */
const MOST_NESTING = 256;

/**
 * How deep a program's brackets nest, (), [] and {} alike, with a string's interpolations `"\(…)"` among them, as jq
 * reads the program: the text of a string and a comment is no nesting, and neither hides what follows it.
 */
export function bracketNesting(expression: string): number {
  // What is open, innermost last: a bracket, an interpolation, or a string (`"`), whose text is read until it closes.
  const open: string[] = [];
  let depth = 0;
  let deepest = 0;
  const enter = (what: string) => {
    open.push(what);
    if (what !== '"') deepest = Math.max(deepest, ++depth);
  };
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i]!;
    if (open.at(-1) === '"') {
      if (c === '"') open.pop();
      else if (c === '\\' && expression[i + 1] === '(') enter(expression[++i]!);
      else if (c === '\\') i++;
    } else if (c === '#') i = commentEnd(expression, i);
    else if (c === '"' || c === '(' || c === '[' || c === '{') enter(c);
    else if ((c === ')' || c === ']' || c === '}') && open.length > 0) {
      // An interpolation's `)` goes back into its string, which is below it.
      open.pop();
      depth--;
    }
  }
  return deepest;
}

/**
 * Where a comment that begins at `at` ends: at its line's end (`\n` or `\r\n`), as jq 1.8's lexer reads one, where a
 * backslash just before the line's end carries the comment on to the next line (and `\\` is a backslash that does not).
 */
function commentEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && text[i] !== '\n' && !text.startsWith('\r\n', i)) {
    i += /^\\(?:\\|\r?\n)/.exec(text.slice(i, i + 3))?.[0].length ?? 1;
  }
  return i;
}

/** The expression as an error echoes it: quoted, and cut to its first 60 characters when longer, so the line stays one. */
function echoed(expression: string): string {
  return JSON.stringify(expression.length > 60 ? `${expression.slice(0, 59)}…` : expression);
}

/**
 * What `$ENV` and `env` are inside --jq: the user's environment, as jq on the command line gives it, less what holds
 * a credential, by its name (namesCredential: DB_PASS, GITHUB_PAT, AUTHORIZATION…) or by its value (a signing secret,
 * the client secret of WHSVC_CLIENT_SECRET, any secret of the run's under another name), and with any password in a
 * URL (a proxy's) masked: a filter's output goes to CI logs. jq's WebAssembly has an environment of its own
 * (HOME=/home/web_user), which this takes the place of.
 */
export function jqEnvironment(env: Readonly<Record<string, string | undefined>>, secrets = new SecretMask()): Record<string, string> {
  const clientSecret = env.WHSVC_CLIENT_SECRET === undefined ? '' : pastedSecret(env.WHSVC_CLIENT_SECRET);
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || namesCredential(name) || holdsSigningSecret(value) || secrets.holds(value)) continue;
    if (clientSecret.length >= SecretMask.MIN_MASKED && value.includes(clientSecret)) continue;
    kept[name] = redactUserinfo(value);
  }
  return kept;
}

/** The variable the environment is given to the program in, bound as $ENV and env ahead of the user's program. */
const ENV_VARIABLE = '__whsvc_env';
/**
 * The program as jq on the command line runs it: $ENV and env the environment given (jqEnvironment), and
 * input_filename what jq names its stdin (jq-wasm reads it as the file /dev/stdin). On the program's first line, so
 * that $__loc__ and jq's lines are the user's.
 */
const withEnvironment = (expression: string) => ahead(expression, (body) => `$${ENV_VARIABLE} as $ENV | def env: $ENV; def input_filename: "<stdin>"; ${body}`);

/**
 * The program with its body (what follows its `module`, `import` and `include` directives, which jq takes only at
 * its start) made over by `wrap`.
 */
function ahead(expression: string, wrap: (body: string) => string): string {
  const start = directivesEnd(expression);
  return `${expression.slice(0, start)}${wrap(expression.slice(start))}`;
}

/** Where a program's leading directives (`module {…};`, `import "…" as x;`, `include "…";`) end: each ends at a `;` outside strings and comments. */
function directivesEnd(expression: string): number {
  let end = 0;
  for (;;) {
    const directive = /^(?:\s|#[^\n]*)*(?:module|import|include)(?![\w$])/.exec(expression.slice(end));
    if (directive === null) return end;
    let i = end + directive[0].length;
    for (; i < expression.length && expression[i] !== ';'; i++) {
      if (expression[i] === '"') i = stringEnd(expression, i);
      else if (expression[i] === '#') i = commentEnd(expression, i);
    }
    if (i >= expression.length) return end;
    end = i + 1;
  }
}

/** Where the string that opens at `at` closes (a directive's strings are constants: no interpolation). */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i;
}

/**
 * jq itself failed: its WebAssembly ran out of memory (`Aborted()`) or overran it, as a program recursing too deep
 * does (`memory access out of bounds`), or the call stack ran out. Its memory is then not to be trusted: run again,
 * it answers nonsense (`break`), so it is not run again.
 */
function jqItselfFailed(error: unknown): string {
  const reason = ((error as Error | undefined)?.message ?? String(error)).replace(/\. Build with -sASSERTIONS.*$/s, '');
  return `jq ran out of memory or stack (${reason}): a program that builds too much or recurses too deep`;
}

/**
 * Runs jq with its runtime's own line for a failure (`Aborted()`, which it writes with console.error as it fails)
 * left out: the failure is said once, in whsvc's words (jqItselfFailed). Any other line of the runtime is written.
 */
function withoutAbortLine<T>(work: () => T): T {
  const { error } = console;
  console.error = (...args: unknown[]) => {
    if (!(typeof args[0] === 'string' && args[0].startsWith('Aborted('))) error(...args);
  };
  try {
    return work();
  } finally {
    console.error = error;
  }
}

/** jq's WebAssembly, compiled and started: the build with it embedded, nothing to find on disk next to the bundle's chunks. */
async function loadJq(): Promise<Jq> {
  return (await import('jq-wasm/inline')).loadJq();
}

/** jq, loaded at its first use: the WebAssembly module is compiled only for a command given --jq. */
export async function loadJqFilter(
  expression: string,
  {
    unguarded = (work) => work(),
    env = {},
    secrets,
    load = loadJq,
  }: {
    /** Runs jq's work with the signals left to the system (Interrupts.withSystemSignals): a program that never ends stops at Ctrl-C. */
    unguarded?: <T>(work: () => T) => T;
    /** The user's environment: `$ENV` and `env` in the program (jqEnvironment). */
    env?: Readonly<Record<string, string | undefined>>;
    /** The run's secrets, none of which `$ENV` gives under any name (jqEnvironment). */
    secrets?: SecretMask | undefined;
    /** Where jq comes from: a fresh one (a test running many programs gives one it loaded once). */
    load?: () => Promise<Jq>;
  } = {},
): Promise<JqFilter> {
  let jq: Jq | undefined = await load();
  checkExpression(jq, expression, unguarded);
  const program = withEnvironment(expression);
  // Made at the first input, once the run holds its secrets (its client's, those it read from files).
  let flags: string[] | undefined;
  let failed = '';
  return {
    run(input) {
      if (jq === undefined) return { results: [], error: failed, stopped: true };
      flags ??= ['-c', '--argjson', ENV_VARIABLE, JSON.stringify(jqEnvironment(env, secrets))];
      let ran: ReturnType<Jq['raw']>;
      try {
        const running = jq;
        const given = flags;
        ran = unguarded(() => withoutAbortLine(() => running.raw(input, program, given)));
      } catch (error) {
        // Its memory (up to its limit, hundreds of MB) goes with it.
        jq = undefined;
        failed = `${jqItselfFailed(error)}; nothing more is filtered`;
        return { results: [], error: failed, stopped: true };
      }
      const { stdout, stderr, exitCode } = ran;
      const results = stdout === '' ? [] : stdout.split('\n');
      if (exitCode !== 0) return { results, error: jqMessage(stderr) || stderr.trim() || `jq exited with ${exitCode}` };
      return stderr === '' ? { results } : { results, warnings: stderr };
    },
  };
}

/**
 * Where a command given --jq hands its --json output (cli/output.ts
 * JsonOutput): each JSON text, once whole (a document; with --all the one
 * envelope of every page; each line of an NDJSON stream, as it comes), goes
 * through the filter, and its results to stdout, one a line: a string raw
 * (`jq -r`); any other value compact in a pipe, indented on a terminal (as gh
 * prints it), where control characters are also taken out of a string, as of
 * every server value shown there. jq's errors go to stderr, and the
 * command's exit code becomes 1 (finish()), as a failing `| jq` in a pipeline
 * with pipefail would.
 */
export class JqJson implements JsonOutput {
  private failed = false;
  private said = false;
  /** jq itself failed (JqFilter's `stopped`): said once, and nothing more goes through it. */
  private stopped = false;

  constructor(
    private readonly filter: JqFilter,
    private readonly stdout: OutputStream,
    private readonly stderr: OutputStream,
    /** The most of one document kept for jq (--max-answer-size): a stream of every page is held whole until its end. */
    private readonly maxDocumentBytes = Number.POSITIVE_INFINITY,
    /** The run's secrets, masked in what jq writes to stderr: its errors quote the input (`string ("whsec_…") cannot…`). */
    private readonly secrets = new SecretMask(),
  ) {}

  document(value: unknown, secret?: string): Shown {
    return this.apply(JSON.stringify(value), secret);
  }

  text(json: string, secret?: string): Shown {
    return this.apply(json, secret);
  }

  unfiltered(json: string): void {
    this.stdout.write(json.endsWith('\n') ? json : `${json}\n`);
  }

  line(value: unknown): void {
    this.apply(JSON.stringify(value));
  }

  heading(value: unknown): void {
    this.stderr.write(`${JSON.stringify(value)}\n`);
  }

  /**
   * The document is filtered whole, once ended: one that a failure cut short is dropped, as jq drops a cut input. It is
   * kept whole until then (jq reads a whole input), so a long --all under --jq holds every item, as `| jq` would.
   */
  stream(key: string, head: Record<string, unknown> = {}): JsonDocument {
    const items: unknown[] = [];
    let bytes = 0;
    let tooLarge = false;
    return {
      get count() {
        return items.length;
      },
      get started() {
        return items.length > 0;
      },
      item: (value) => {
        if (tooLarge) return;
        bytes += JSON.stringify(value)?.length ?? 0;
        if (bytes <= this.maxDocumentBytes) return void items.push(value);
        tooLarge = true;
        items.length = 0;
        this.fail(
          `--jq: the document passed ${bytesText(this.maxDocumentBytes)} (--max-answer-size), the most kept for jq, which reads a document whole: nothing is filtered; --json | jq, or a page at a time (--cursor), has no such limit`,
        );
      },
      end: (tail) => {
        if (!tooLarge) this.document({ ...head, [key]: items, ...tail });
      },
      // Nothing was filtered yet: a cut document is not given to jq at all.
      cut: () => {
        items.length = 0;
      },
    };
  }

  /**
   * The stdout a command given --jq has for anything but its JSON: there is nothing there to filter, so text
   * written to it is not printed, and said once (a command with no JSON output to give).
   */
  get plainOutput(): OutputStream {
    return {
      isTTY: this.stdout.isTTY,
      columns: this.stdout.columns,
      write: () => {
        if (!this.said) this.fail('--jq: this command prints no JSON document to filter');
        this.said = true;
        return true;
      },
    };
  }

  /** The end of the command: the exit code, 1 where jq failed and the command did not. */
  finish(exitCode: number): number {
    return this.failed && exitCode === ExitCode.ok ? ExitCode.failure : exitCode;
  }

  /**
   * `json` through the filter, its results printed, jq's words on stderr (masked: secretsMasked). A document with a
   * `secret` has its results printed only when they hold it in a form it can be had back whole from (as it is, base64,
   * after its `whsec_`: SecretMask.holdsWhole); else none, and the exit code is 1 (Shown).
   */
  private apply(json: string | undefined, secret?: string): Shown {
    if (json === undefined) return 'shown';
    if (this.stopped) return 'failed';
    // Before jq runs: its errors may quote the input's secrets in any form (cut, encoded: SecretMask).
    for (const found of signingSecretsIn(json)) this.secrets.add(found);
    const { results, error, warnings, stopped } = this.filter.run(json);
    this.stopped = stopped === true;
    const lines = results.map((result) => this.shown(result));
    const kept = secret === undefined || (error === undefined && lines.some((line) => SecretMask.holdsWhole(line, secret)));
    if (kept) for (const line of lines) this.stdout.write(`${line}\n`);
    if (warnings) this.stderr.write(`${this.secretsMasked(warnings)}\n`);
    if (error !== undefined) {
      this.fail(`--jq: ${this.secretsMasked(error)}`);
      return 'failed';
    }
    if (kept) return 'shown';
    // Said by the command, which knows what the secret was for.
    this.failed = true;
    return 'dropped';
  }

  /**
   * What jq writes to stderr (its errors, `halt_error`, `debug`, `stderr`) with the run's secrets masked, and any
   * signing secret it holds besides (one the program made): jq quotes its input (`string ("whsec_…") cannot…`).
   */
  private secretsMasked(text: string): string {
    // The secrets known first, so that one cut short (`"whsec_abcdefghijklmnopqr..."`) is masked with its ellipsis.
    const masked = this.secrets.mask(text);
    for (const found of signingSecretsIn(masked)) this.secrets.add(found);
    return this.secrets.mask(masked);
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
    this.stderr.write(laidOut(this.stderr, `whsvc: ${message}\n`));
  }
}
