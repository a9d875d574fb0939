import { isLoopbackHost, redactUserinfo } from '../net.js';
import { shellWord } from '../render/text.js';
/** The exit codes, as the README lists them. */
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

/** What to check when the service at `host` (`127.0.0.1:4010`) gave no answer: on this machine, it is usually a sandbox not started. */
export function unreachableHint(host: string): string {
  const hostname = host.replace(/:\d+$/, '');
  const where = "check --base-url, WHSVC_BASE_URL or the profile's base URL";
  return isLoopbackHost(hostname)
    ? `is the sandbox running there? Start it with \`whsvc sandbox start\`, or ${where}`
    : `is the service running at ${host}? ${where[0]!.toUpperCase()}${where.slice(1)}`;
}

/** A server that could not listen, said the way a user can act on. */
export function listenError(error: unknown, host: string, port: number): CliError {
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return new CliError(`port ${port} on ${host} is already in use`, ExitCode.failure, 'pick another with --port N, or --port 0 for any free port');
  }
  return new CliError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
}

/** A flag's value as an error echoes it: a URL's user name and password masked, also in a route's PATTERN=URL. */
function echoedValue(value: string): string {
  const route = /^([^:=/]+=)(.*)$/s.exec(value);
  return route ? `${route[1]}${redactUserinfo(route[2]!)}` : redactUserinfo(value);
}

/**
 * commander's usage errors in the tool's own style, the one its commands'
 * checks use: the flag, the value given, and why (`--request-timeout 0: must
 * be at least 1 ms`), with no quoting of flag names and no trailing period.
 */
export function usageMessage(commanderMessage: string): string {
  const [first = '', ...rest] = commanderMessage.replace(/^error: /, '').split('\n');
  const why = (text: string) => text.replace(/\.$/, '').replace(/^[A-Z]/, (c) => c.toLowerCase());
  let line = first;
  let match: RegExpExecArray | null;
  if ((match = /^option '(-[^ ,']+)(?:, (--[^ ']+))?[^']*' argument '(.*)' is invalid\. (.*)$/.exec(first))) {
    line = `${match[2] ?? match[1]} ${shellWord(echoedValue(match[3]!))}: ${why(match[4]!)}`;
  } else if ((match = /^command-argument value '(.*)' is invalid for argument '([^']+)'\. (.*)$/.exec(first))) {
    // The argument parsers name the value themselves; say it once.
    line = match[3]!.includes(JSON.stringify(match[1])) ? why(match[3]!) : `<${match[2]}> ${shellWord(match[1]!)}: ${why(match[3]!)}`;
  } else if ((match = /^option '(-[^ ,']+)(?:, (--[^ ']+))?[^']*' argument missing$/.exec(first))) {
    line = `${match[2] ?? match[1]} needs a value`;
  } else if ((match = /^missing required argument '([^']+)'$/.exec(first))) {
    line = `<${match[1]}> is required`;
  } else if ((match = /^required option '(-[^ ,']+)(?:, (--[^ ']+))?[^']*' not specified$/.exec(first))) {
    line = `${match[2] ?? match[1]} is required`;
  } else if ((match = /^unknown (option|command) '([^']+)'$/.exec(first))) {
    line = `unknown ${match[1]} ${match[2]}`;
    if (match[2] === '--timeout') line += ' (the limit of each request is --request-timeout; --timeout is how long listen and tail wait)';
  } else if ((match = /^too many arguments(?: for '([^']+)')?\. (.*)$/.exec(first))) {
    line = `too many arguments${match[1] ? ` for ${match[1]}` : ''}: ${why(match[2]!)}`;
  }
  // commander's near miss, on a line of its own and in brackets, said in the same line.
  const nearMiss = /^\(Did you mean (.+)\?\)$/.exec(rest[0] ?? '');
  if (nearMiss) return [`${line}; did you mean ${nearMiss[1]}?`, ...rest.slice(1)].join('\n');
  return [line, ...rest].join('\n');
}
