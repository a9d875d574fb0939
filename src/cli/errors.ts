/** Exit codes of PRODUCT.md. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  permission: 4,
  notFound: 5,
  timedOut: 6,
  interrupted: 130,
} as const;

/** An error a command reports as one line (and a hint), with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.failure,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Why a command did not ask: said in the message of a usage error for missing input. */
export const NO_PROMPT = 'prompts are off: no terminal, --no-input or CI=true';

export const usageError = (message: string, hint?: string) => new CliError(message, ExitCode.usage, hint);

/** A server that could not listen, said the way a user can act on. */
export function listenError(error: unknown, host: string, port: number): CliError {
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return new CliError(`port ${port} on ${host} is already in use`, ExitCode.failure, 'pick another with --port N, or --port 0 for any free port');
  }
  return new CliError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
}
