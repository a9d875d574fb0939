import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { expect } from 'vitest';
import { addVerbs } from '../../src/cli/actions.js';
import { buildProgram } from '../../src/program.js';
import { runCli } from '../../src/run-cli.js';
import type { CliResult, Env } from './cli.js';
import { hostFor, type InProcessOptions } from './in-process.js';

// One verb's flag table, tested in-process: `whsvc <path> <args>` parsed as the program parses it (the global options,
// the environment, a terminal or not), with the verb's run function swapped, through its factory (gh's
// `NewCmdX(f, runF)`), for one that keeps what it was given. The service is never called.

/** A verb's factory: its command, running `runF` with the options it made of argv. */
type Factory<O, D> = (runF: (options: O, deps: D) => Promise<number>) => CommandUnknownOpts;

/** What the run function was given, and what the glue wrote on stderr before it (a warning). */
export interface Ran<O, D> {
  options: O;
  deps: D;
  stderr: string;
}

/** A command line refused before the run: its exit code and all it wrote on stderr. */
export interface Refused {
  code: number;
  stderr: string;
}

export interface VerbRun {
  /** Over the test's environment: no WHSVC_ variable, no CI, a config directory with nothing in it. */
  env?: Env;
  /** What stdin gives. */
  input?: string;
  /** stdin, stdout and stderr are a terminal (prompts allowed, unless --no-input or CI=true). */
  terminal?: boolean;
}

/** A config directory that does not exist: no profile, no cached token or catalog (nothing reads it into being). */
const NO_CONFIG = join(tmpdir(), `whsvc-flags-no-config-${process.pid}`);

/** The environment of a run: the machine's own WHSVC_ settings and CI left out, so that only the test's count. */
function environment(env: Env): Env {
  const unset = Object.keys(process.env).filter((name) => name.startsWith('WHSVC_') || name === 'CI');
  return { ...Object.fromEntries(unset.map((name) => [name, undefined])), WHSVC_CONFIG_DIR: NO_CONFIG, ...env };
}

/** Puts `verb` in place of the command at `path` (its group's settings adopted, as the group's own verbs are). */
function swapVerb(program: CommandUnknownOpts, path: readonly string[], verb: CommandUnknownOpts): void {
  const parent = path.slice(0, -1).reduce((command, name) => {
    const child = command.commands.find((sub) => sub.name() === name);
    if (!child) throw new Error(`no command ${name} in ${command.name()}`);
    return child;
  }, program);
  const siblings = parent.commands as CommandUnknownOpts[];
  const index = siblings.findIndex((sub) => sub.name() === verb.name());
  if (index < 0 || verb.name() !== path.at(-1)) throw new Error(`the factory makes ${verb.name()}, not the command at ${path.join(' ')}`);
  siblings.splice(index, 1);
  addVerbs(parent, verb);
}

/**
 * Runs `whsvc <path> <args>` in-process, whole, with the verb at `path` made by `made` (its factory given a run function
 * of the test's: the real one with a hook or a clock injected). With a terminal, stdin is one too (prompts allowed).
 */
export async function runVerbInProcess(
  path: readonly string[],
  made: () => CommandUnknownOpts,
  args: readonly string[],
  options: InProcessOptions = {},
): Promise<CliResult> {
  const build: typeof buildProgram = (name, host) => {
    const program = buildProgram(name, host);
    swapVerb(program, path, made());
    return program;
  };
  const { host, stdout, stderr } = hostFor(options);
  if (options.terminal) host.stdin.isTTY = true;
  const code = await runCli([...path, ...args], host, build);
  return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
}

/** The flag table of the verb at `path` (`['webhooks', 'create']`), made by `factory`. */
export function verb<O, D>(path: readonly string[], factory: Factory<O, D>) {
  /** Runs `whsvc <path> <args>`: what the run function was given, or the usage error instead. */
  const parse = async (args: readonly string[], run: VerbRun = {}): Promise<Ran<O, D> | Refused> => {
    let got: { options: O; deps: D } | undefined;
    const capture = async (options: O, deps: D) => {
      got = { options, deps };
      return 0;
    };
    const build: typeof buildProgram = (name, host) => {
      const program = buildProgram(name, host);
      swapVerb(program, path, factory(capture));
      return program;
    };
    // A terminal wide enough that no line is laid out on two: what these tests read is the words, not their layout.
    const { host, stderr } = hostFor({ env: environment(run.env ?? {}), input: run.input, terminal: run.terminal ? { columns: 200 } : undefined });
    if (run.terminal) host.stdin.isTTY = true;
    const code = await runCli([...path, ...args], host, build);
    return got ? { ...got, stderr: stderr.text } : { code, stderr: stderr.text };
  };
  const line = (args: readonly string[]) => ['whsvc', ...path, ...args].join(' ');
  return {
    parse,
    /** What the run function was given; fails when the command line is refused. */
    ran: async (args: readonly string[], run?: VerbRun): Promise<Ran<O, D>> => {
      const result = await parse(args, run);
      if ('options' in result) return result;
      throw new Error(`${line(args)} was refused (exit ${result.code}):\n${result.stderr}`);
    },
    /** The options the run function was given; fails when the command line is refused. */
    options: async (args: readonly string[], run?: VerbRun): Promise<O> => {
      const result = await parse(args, run);
      if ('options' in result) return result.options;
      throw new Error(`${line(args)} was refused (exit ${result.code}):\n${result.stderr}`);
    },
    /** The exit code and stderr of a command line refused before its run; fails when it runs. */
    refused: async (args: readonly string[], run?: VerbRun): Promise<Refused> => {
      const result = await parse(args, run);
      // The hint names the command's help (`see whsvc webhooks list --help`): SEE_HELP stands for it, so a wrong path still fails.
      if ('code' in result) return { ...result, stderr: result.stderr.replaceAll(`hint: see ${line([])} --help for usage\n`, SEE_HELP) };
      throw new Error(`${line(args)} was not refused: its run was given ${JSON.stringify(result.options)}`);
    },
  };
}

/** The line after commander's own usage errors (an unknown flag, a bad value), naming the verb's help: not after a command's own checks. */
export const SEE_HELP = 'hint: see <the verb> --help for usage\n';

/** A verb with no flag of its own and no argument: its run gets `{}`, the global options pass, a word or a flag more is refused. */
export async function expectNothingTaken(flags: ReturnType<typeof verb<object, unknown>>, name: string): Promise<void> {
  expect(await flags.options([])).toEqual({});
  expect(await flags.options(['--json', '--profile', 'prod'])).toEqual({});
  expect(await flags.refused(['prod'])).toEqual({
    code: 2,
    stderr: `whsvc: too many arguments for ${name}: expected 0 arguments but got 1: prod\n${SEE_HELP}`,
  });
  expect(await flags.refused(['--check'])).toEqual({ code: 2, stderr: `whsvc: unknown option --check\n${SEE_HELP}` });
}
