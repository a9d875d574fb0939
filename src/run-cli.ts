import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { habitHint, refusalOf } from './cli/habits.js';
import { ApiError, AuthError, NetworkError } from './api/errors.js';
import { bindRun, type RunScope } from './cli/actions.js';
import { CliError, ExitCode, unreachableHint, usageMessage } from './cli/errors.js';
import { readGlobals } from './cli/globals.js';
import { canFail, type Host } from './cli/host.js';
import { ExitRequest, Interrupts } from './cli/interrupt.js';
import { ConfigError } from './config/errors.js';
import { FileError } from './files/user-file.js';
import type { OutputStream } from './render/stream.js';
import { buildProgram } from './program.js';
import { shellWord } from './render/text.js';
import { laidOut } from './render/wrap.js';

/**
 * whsvc as a function: runs the command line `argv` (the words after
 * `whsvc`) with what `host` gives, and resolves with the exit code. main.ts
 * calls it with the process's host; tests call it in-process with their own
 * (and their own `build`, to swap a verb's run: test/helpers/verb.ts).
 */
export async function runCli(argv: readonly string[], host: Host, build: typeof buildProgram = buildProgram): Promise<number> {
  let endRun!: (code: number) => void;
  const ended = new Promise<number>((resolve) => (endRun = resolve));
  const end = (code: number) => {
    host.exit?.(code);
    endRun(code);
  };
  const interrupts = new Interrupts(host.signals, host.stderr, end);
  const unguard = guardOutput(host, interrupts, end);
  // The first word that is not an option: the top-level command, when the options before it take no value.
  const program = build(
    argv.find((arg) => !arg.startsWith('-')),
    host,
  );
  const scope: RunScope = { host, interrupts, argv };
  bindRun(program, scope);
  const work = (async () => {
    try {
      await program.parseAsync([...argv], { from: 'user' });
      return scope.code ?? ExitCode.ok;
    } catch (error) {
      if (error instanceof ExitRequest) return error.code;
      // The global options as parsed, usage errors included: `--data '--json'` is a value, not the flag.
      const globals = readGlobals(program, host.env);
      const profile = globals.profile === 'default' ? '' : ` --profile ${shellWord(globals.profile)}`;
      return reportError(error, new ErrorWriter(host.stderr, globals.json), { debug: globals.debug, profile }, usageHint(program, argv));
    }
  })();
  try {
    return await Promise.race([work, ended]);
  } finally {
    // A run in-process gives its handlers back; the process keeps them to its end (output still flushing can fail then).
    if (!host.exit) {
      interrupts.uninstall();
      unguard();
    }
  }
}

/**
 * How errors are told: one line (and a hint) for people, laid out for a terminal's width (continued under the text
 * after `whsvc: ` and `hint: `; a pipe keeps one line, for grep); with --json also one JSON line, whose message leaves
 * out what status and code say.
 */
class ErrorWriter {
  constructor(
    readonly stderr: OutputStream,
    readonly json: boolean,
  ) {}

  write(message: string, exitCode: number, hint?: string, status?: number, code?: string, jsonMessage = message): number {
    this.say(`whsvc: ${message}`);
    if (hint) this.say(`hint: ${hint}`);
    if (this.json) this.jsonLine(status, code, jsonMessage);
    return exitCode;
  }

  /** A line for people. */
  say(line: string): void {
    this.stderr.write(`${laidOut(this.stderr, line)}\n`);
  }

  jsonLine(status: number | undefined, code: string | undefined, message: string): void {
    this.stderr.write(`${JSON.stringify({ error: { status: status ?? null, code: code ?? null, message } })}\n`);
  }
}

/** What to type instead, for a usage error of commander's: the answer to another tool's habit, or the command's help. */
function usageHint(program: CommandUnknownOpts, argv: readonly string[]): (error: CommanderError) => string {
  return (error) => {
    const refusal = refusalOf(error.code, error.message);
    return (refusal && habitHint(refusal, argv)) ?? `see ${typedCommand(program, argv)} --help for usage`;
  };
}

/** The command the words of argv name (`whsvc webhooks list`), as deep as they go. */
function typedCommand(program: CommandUnknownOpts, argv: readonly string[]): string {
  const words = ['whsvc'];
  let command = program;
  for (const arg of argv) {
    if (arg.startsWith('-')) continue;
    const sub = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!sub) break;
    words.push(sub.name());
    command = sub;
  }
  return words.join(' ');
}

/** What an error's words depend on: --debug, and the profile in use (` --profile prod`, or nothing for the default) for the hints' commands. */
interface Reporting {
  debug: boolean;
  profile: string;
}

function reportError(error: unknown, out: ErrorWriter, { debug, profile }: Reporting, hintFor: (error: CommanderError) => string): number {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return ExitCode.ok;
    // commander has printed its line already; the hint is ours.
    out.say(`hint: ${hintFor(error)}`);
    if (out.json) out.jsonLine(undefined, 'usage', usageMessage(error.message));
    return ExitCode.usage;
  }
  if (error instanceof CliError) {
    return out.write(error.message, error.exitCode, error.hint, undefined, error.exitCode === ExitCode.usage ? 'usage' : undefined);
  }
  if (error instanceof ConfigError) return out.write(error.message, ExitCode.failure, error.hint);
  if (error instanceof FileError) {
    return out.write(error.message, error.refused ? ExitCode.usage : ExitCode.failure, error.hint, undefined, error.refused ? 'usage' : undefined);
  }
  if (error instanceof AuthError) {
    return out.write(
      error.message,
      ExitCode.auth,
      error.hint ?? 'run `whsvc login`, or set WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET',
      error.status,
      error.code ?? 'unauthorized',
    );
  }
  if (error instanceof NetworkError) {
    const hint = error.proxy ? 'check HTTPS_PROXY / HTTP_PROXY, or name the host in NO_PROXY to go around the proxy' : unreachableHint(error.host);
    return out.write(error.message, ExitCode.failure, hint);
  }
  if (error instanceof ApiError) return reportApiError(error, out, profile);
  out.say(`whsvc: unexpected error: ${(error as Error)?.message ?? String(error)}`);
  if (debug) out.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  else out.say('hint: run again with --debug for details');
  return ExitCode.failure;
}

function reportApiError(error: ApiError, out: ErrorWriter, profile: string): number {
  const status = error.status;
  if (status === 403) {
    const scope = error.requiredScope ?? 'a scope the token lacks';
    const message = error.message.includes(scope)
      ? `permission denied: ${error.message}`
      : `permission denied: this needs the ${scope} scope (${error.message})`;
    return out.write(
      message,
      ExitCode.permission,
      // The profile in use, named: followed as written, the hint must not replace another profile's login.
      `log in with a client that has ${scope}: whsvc login${profile} --client-id ID (whsvc auth status${profile} shows the scope of this one)`,
      403,
      error.code,
    );
  }
  const exit = status === 401 ? ExitCode.auth : status === 404 ? ExitCode.notFound : ExitCode.failure;
  return out.write(`${error.message} (HTTP ${status}${error.code ? ` ${error.code}` : ''})`, exit, error.hint, status, error.code, error.message);
}

/**
 * Output that cannot be written. A reader that went away (`whsvc … | head`)
 * ends the command at once and quietly, exit 0: it has what it asked for. Any
 * other failure (a full disk) is one line on stderr, exit 1. With stderr
 * itself gone there is nobody left to tell: its writes are dropped, and the
 * command (the sandbox, say) goes on. Returns the undo, for a run in-process.
 */
function guardOutput(host: Host, interrupts: Interrupts, end: (code: number) => void): () => void {
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    // Writes after the reader went are refused again (EPIPE, a destroyed stream): nothing more to say.
    if (interrupts.stdoutWasClosed) return;
    if (error.code === 'EPIPE') {
      if (!interrupts.stdoutGone()) end(ExitCode.ok);
      return;
    }
    host.stderr.write(
      laidOut(
        host.stderr,
        `whsvc: cannot write the output: ${error.code === 'ENOSPC' ? 'no space left on the device' : error.message} (${error.code ?? 'error'})\n`,
      ),
    );
    end(ExitCode.failure);
  };
  const ignore = () => {};
  if (canFail(host.stdout)) host.stdout.on('error', onStdoutError);
  if (canFail(host.stderr)) host.stderr.on('error', ignore);
  return () => {
    if (canFail(host.stdout)) host.stdout.removeListener?.('error', onStdoutError);
    if (canFail(host.stderr)) host.stderr.removeListener?.('error', ignore);
  };
}
