import { CommanderError } from '@commander-js/extra-typings';
import { ApiError, AuthError, NetworkError } from './api/errors.js';
import { CliError, ExitCode, unreachableHint, usageMessage } from './cli/errors.js';
import { readGlobals } from './cli/globals.js';
import { ConfigError } from './config/errors.js';
import { FileError } from './files/user-file.js';
import { stdoutGone, stdoutWasClosed } from './cli/interrupt.js';
import { buildProgram } from './program.js';

/** How errors are told, from the global options as commander parsed them: with --json, also as one JSON line on stderr. */
let jsonErrors = false;
let debug = false;

/** One line (and a hint) for people; with --json also the JSON line, whose message leaves out what status and code say. */
function writeError(message: string, exitCode: number, hint?: string, status?: number, code?: string, jsonMessage = message): number {
  process.stderr.write(`whsvc: ${message}\n`);
  if (hint) process.stderr.write(`hint: ${hint}\n`);
  if (jsonErrors) {
    process.stderr.write(`${JSON.stringify({ error: { status: status ?? null, code: code ?? null, message: jsonMessage } })}\n`);
  }
  return exitCode;
}

async function reportError(error: unknown): Promise<number> {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return ExitCode.ok;
    // commander has printed its line (and suggestion) already.
    if (jsonErrors) process.stderr.write(`${JSON.stringify({ error: { status: null, code: 'usage', message: usageMessage(error.message) } })}\n`);
    return ExitCode.usage;
  }
  if (error instanceof CliError) {
    return writeError(error.message, error.exitCode, error.hint, undefined, error.exitCode === ExitCode.usage ? 'usage' : undefined);
  }
  if (error instanceof ConfigError) return writeError(error.message, ExitCode.failure, error.hint);
  if (error instanceof FileError) {
    return writeError(error.message, error.refused ? ExitCode.usage : ExitCode.failure, error.hint, undefined, error.refused ? 'usage' : undefined);
  }
  if (error instanceof AuthError) {
    return writeError(
      error.message,
      ExitCode.auth,
      error.hint ?? 'run `whsvc login`, or set WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET',
      error.status,
      error.code ?? 'unauthorized',
    );
  }
  if (error instanceof NetworkError) {
    const hint = error.proxy ? 'check HTTPS_PROXY / HTTP_PROXY, or name the host in NO_PROXY to go around the proxy' : unreachableHint(error.host);
    return writeError(error.message, ExitCode.failure, hint);
  }
  if (error instanceof ApiError) {
    const status = error.status;
    if (status === 403) {
      const scope = error.requiredScope ?? 'a scope the token lacks';
      const message = error.message.includes(scope)
        ? `permission denied: ${error.message}`
        : `permission denied: this needs the ${scope} scope (${error.message})`;
      return writeError(
        message,
        ExitCode.permission,
        `log in with a client that has ${scope}: whsvc login --client-id ID (whsvc auth status shows the scope of this one)`,
        403,
        error.code,
      );
    }
    const exit = status === 401 ? ExitCode.auth : status === 404 ? ExitCode.notFound : ExitCode.failure;
    return writeError(`${error.message} (HTTP ${status}${error.code ? ` ${error.code}` : ''})`, exit, error.hint, status, error.code, error.message);
  }
  process.stderr.write(`whsvc: unexpected error: ${(error as Error)?.message ?? String(error)}\n`);
  if (debug) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  else process.stderr.write('hint: run again with --debug for details\n');
  return ExitCode.failure;
}

/**
 * Output that cannot be written. A reader that went away (`whsvc … | head`)
 * ends the command at once and quietly, exit 0: it has what it asked for. Any
 * other failure (a full disk) is one line on stderr, exit 1. With stderr
 * itself gone there is nobody left to tell: its writes are dropped, and the
 * command (the sandbox, say) goes on.
 */
function guardOutput(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // Writes after the reader went are refused again (EPIPE, a destroyed stream): nothing more to say.
    if (stdoutWasClosed()) return;
    if (error.code === 'EPIPE') {
      if (stdoutGone()) return;
      process.exit(ExitCode.ok);
    }
    process.stderr.write(
      `whsvc: cannot write the output: ${error.code === 'ENOSPC' ? 'no space left on the device' : error.message} (${error.code ?? 'error'})\n`,
    );
    process.exit(ExitCode.failure);
  });
  process.stderr.on('error', () => {});
}

guardOutput();

/** The first word that is not an option: the top-level command, when the options before it take no value. */
const commandName = process.argv.slice(2).find((arg) => !arg.startsWith('-'));

const program = buildProgram(commandName);
try {
  await program.parseAsync(process.argv);
} catch (error) {
  // The global options as parsed, usage errors included: `--data '--json'` is a value, not the flag.
  const globals = readGlobals(program, process.env);
  jsonErrors = globals.json;
  debug = globals.debug;
  process.exitCode = await reportError(error);
}
