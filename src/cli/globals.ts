import { type Command, type CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { DEFAULT_BASE_URL } from './defaults.js';
import { DEFAULT_MAX_ANSWER_BYTES } from '../api/client.js';
import { sizeText } from '../render/words.js';
import { duration, maxAnswerSize, withScheme } from './parse.js';

/**
 * The global options, declared once: the program is built on them, and the
 * type of what commander parses is read off this declaration (extra-typings),
 * so a flag renamed here is a compile error wherever its old name is read.
 */
export function withGlobalOptions(program: Command) {
  return program
    .option('--profile <name>', 'credentials profile (env WHSVC_PROFILE)')
    .option('--base-url <url>', `service base address, overriding the profile's (env WHSVC_BASE_URL; default ${DEFAULT_BASE_URL}, the sandbox)`)
    .option('--json', 'machine output on stdout')
    .option('--jq <expression>', 'the --json output through this jq filter (implies --json); strings print raw, as jq -r')
    .option('--no-color', 'no colour (also NO_COLOR); colour is only ever used on a terminal')
    .option('--no-input', 'never prompt; missing input is a usage error (also CI=true)')
    .option('--debug', 'HTTP exchanges on stderr, secrets redacted (also WHSVC_DEBUG=1)')
    .addOption(
      new Option('--request-timeout <duration>', 'limit of each request, such as 10s or 2m (env WHSVC_TIMEOUT; default 30s)').argParser(
        duration(86_400_000, 1),
      ),
    )
    .addOption(
      new Option(
        '--max-answer-size <size>',
        `the most of an answer read from the service, such as 256MiB (env WHSVC_MAX_ANSWER_SIZE; default ${sizeText(DEFAULT_MAX_ANSWER_BYTES)})`,
      ).argParser(maxAnswerSize),
    );
}

/** The global options as commander parses them. */
type GlobalFlags = ReturnType<ReturnType<typeof withGlobalOptions>['opts']>;

/** The global options, after flags and environment are merged. */
export interface GlobalOptions {
  profile: string;
  /** Where the profile name came from, for messages. */
  profileSource?: '--profile' | 'WHSVC_PROFILE' | undefined;
  baseUrl?: string | undefined;
  /** Where baseUrl came from, for messages. */
  baseUrlSource?: '--base-url' | 'WHSVC_BASE_URL' | undefined;
  json: boolean;
  /** --jq: the filter --json's output goes through (cli/jq.ts). */
  jq?: string | undefined;
  color: boolean;
  input: boolean;
  debug: boolean;
  /** The limit of each request (--request-timeout); WHSVC_TIMEOUT is read in buildDeps, where a bad value is a usage error. */
  requestTimeoutMs?: number | undefined;
  /** The most of an answer read (--max-answer-size); WHSVC_MAX_ANSWER_SIZE is read in buildDeps, where a bad value is a usage error. */
  maxAnswerBytes?: number | undefined;
}

/**
 * The global options of a run, from any command of the program (the options
 * of the program that withGlobalOptions declared; commander reads them before
 * and after the verb), merged with the environment. The one place they are
 * read: the action wrapper, and main.ts for how to tell an error.
 */
export function readGlobals(command: CommandUnknownOpts, env: NodeJS.ProcessEnv): GlobalOptions {
  let program = command;
  while (program.parent) program = program.parent;
  const flags = program.opts() as GlobalFlags;
  const baseUrl = flags.baseUrl ?? env.WHSVC_BASE_URL;
  return {
    profile: flags.profile ?? env.WHSVC_PROFILE ?? 'default',
    profileSource: flags.profile !== undefined ? '--profile' : env.WHSVC_PROFILE !== undefined ? 'WHSVC_PROFILE' : undefined,
    // `--base-url localhost:4010` is http://localhost:4010 (withScheme).
    baseUrl: baseUrl === undefined ? undefined : withScheme(baseUrl),
    baseUrlSource: flags.baseUrl !== undefined ? '--base-url' : env.WHSVC_BASE_URL !== undefined ? 'WHSVC_BASE_URL' : undefined,
    json: flags.json === true || flags.jq !== undefined,
    jq: flags.jq,
    color: flags.color,
    input: flags.input && env.CI !== 'true' && env.CI !== '1',
    debug: flags.debug === true || env.WHSVC_DEBUG === '1',
    requestTimeoutMs: flags.requestTimeout,
    maxAnswerBytes: flags.maxAnswerSize,
  };
}
