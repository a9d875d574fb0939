import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { habitHint, refusalOf } from './cli/habits.js';
import { bindRun, type RunScope } from './cli/actions.js';
import { ExitCode, usageMessage } from './cli/errors.js';
import { errorReport, type Reporting as ProfileReporting } from './cli/error-report.js';
import { readGlobals } from './cli/globals.js';
import { canFail, type Host } from './cli/host.js';
import { ExitRequest, Interrupts } from './cli/interrupt.js';
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

/** What an error's words depend on: --debug, and the profile in use (error-report.ts). */
interface Reporting extends ProfileReporting {
  debug: boolean;
}

function reportError(error: unknown, out: ErrorWriter, { debug, profile }: Reporting, hintFor: (error: CommanderError) => string): number {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return ExitCode.ok;
    // commander has printed its line already; the hint is ours.
    out.say(`hint: ${hintFor(error)}`);
    if (out.json) out.jsonLine(undefined, 'usage', usageMessage(error.message));
    return ExitCode.usage;
  }
  const told = errorReport(error, { profile });
  if (told) return out.write(told.message, told.exitCode, told.hint, told.status, told.code, told.jsonMessage);
  out.say(`whsvc: unexpected error: ${(error as Error)?.message ?? String(error)}`);
  if (debug) out.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  else out.say('hint: run again with --debug for details');
  return ExitCode.failure;
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
