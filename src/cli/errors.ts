import { isLoopbackHost, redactUserinfo } from '../net.js';
import { cutWords, shellWord } from '../render/text.js';
import { withCredentialsMasked } from './credentials.js';
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
    /** whsvc's own name for the case, the `code` of --json's error object (`secret_not_kept`); a usage error's is `usage`. */
    readonly code?: string,
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
 * What it echoes of the command line is shown as a shell takes it (shellWord:
 * a control character escaped, never sent to the terminal), a credential in it
 * masked (`--token=<secret>`), and a long list of words cut.
 */
export function usageMessage(commanderMessage: string): string {
  const ending = commanderMessage.endsWith('\n') ? '\n' : '';
  const message = commanderMessage.slice(0, commanderMessage.length - ending.length).replace(/^error: /, '');
  // commander's near miss, on a line of its own and in brackets, said in the same line.
  const nearMiss = /\n\(Did you mean (.+)\?\)$/.exec(message);
  const first = nearMiss ? message.slice(0, nearMiss.index) : message;
  const why = (text: string) => text.replace(/\.$/, '').replace(/^[A-Z]/, (c) => c.toLowerCase());
  let line = first;
  let match: RegExpExecArray | null;
  if ((match = /^option '(-[^ ,']+)(?:, (--[^ ']+))?[^']*' argument '(.*)' is invalid\. (.*)$/s.exec(first))) {
    const flag = match[2] ?? match[1]!;
    line = `${flag} ${shellWord(withCredentialsMasked([flag, echoedValue(match[3]!)])[1]!)}: ${why(match[4]!)}`;
  } else if ((match = /^command-argument value '(.*)' is invalid for argument '([^']+)'\. (.*)$/s.exec(first))) {
    // The argument parsers name the value themselves; say it once.
    line = match[3]!.includes(JSON.stringify(match[1])) ? why(match[3]!) : `<${match[2]}> ${shellWord(match[1]!)}: ${why(match[3]!)}`;
  } else if ((match = /^option '(-[^ ,']+)(?:, (--[^ ']+))?[^']*' argument missing$/.exec(first))) {
    line = `${match[2] ?? match[1]} needs a value`;
  } else if ((match = /^missing required argument '([^']+)'$/.exec(first))) {
    line = `<${match[1]}> is required`;
  } else if ((match = /^required option '(-[^ ,']+)(?:, (--[^ ']+))?[^']*' not specified$/.exec(first))) {
    line = `${match[2] ?? match[1]} is required`;
  } else if ((match = /^unknown (option|command) '(.*)'$/s.exec(first))) {
    line = `unknown ${match[1]} ${shellWord(withCredentialsMasked([match[2]!])[0]!)}`;
    if (match[2] === '--timeout') line += ' (the limit of each request is --request-timeout; --timeout is how long listen and tail wait)';
  } else if ((match = /^too many arguments(?: for '([^']+)')?\. (.*)$/s.exec(first))) {
    // commander lists the words too many (`got 3: a, b, c`): a list of thousands is cut.
    const said = why(match[2]!);
    const at = said.indexOf(': ');
    const words = at < 0 ? said : `${said.slice(0, at)}: ${cutWords(said.slice(at + 2).split(', '), ', ')}`;
    line = `too many arguments${match[1] ? ` for ${match[1]}` : ''}: ${words}`;
  }
  // Whatever else commander echoed, with no control character left to act on the terminal.
  line = line.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => shellWord(c).slice(2, -1));
  return `${nearMiss ? `${line}; did you mean ${nearMiss[1]}?` : line}${ending}`;
}
