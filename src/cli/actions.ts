import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { AuthError } from '../api/errors.js';
import { SecretMask } from '../api/redact.js';
import { buildDeps, type CommandDeps } from './context.js';
import { readGlobals, type GlobalOptions } from './globals.js';
import { maxAnswerBytes } from './parse.js';
import type { Io } from './deps.js';
import type { Host } from './host.js';
import type { Interrupts } from './interrupt.js';
import { JqJson, loadJqFilter } from './jq.js';
import { PrintedJson } from './json-output.js';
import { inquirerPrompter, type Prompter } from './prompter.js';

/** What runCli gives the program it runs: the host, this run's interrupts and argv, and where the exit code goes. */
export interface RunScope {
  host: Host;
  interrupts: Interrupts;
  /** The words the run was given (after `whsvc`). */
  argv: readonly string[];
  /** The exit code the command's action returned. */
  code?: number;
}

const scopes = new WeakMap<CommandUnknownOpts, RunScope>();

/** Binds a program to the run that parses it (runCli). */
export function bindRun(program: CommandUnknownOpts, scope: RunScope): void {
  scopes.set(program, scope);
}

export function runScopeOf(command: CommandUnknownOpts): RunScope {
  let program = command;
  while (program.parent) program = program.parent;
  const scope = scopes.get(program);
  if (!scope) throw new Error('a command ran outside runCli');
  return scope;
}

/** What every command's action starts from: the host's streams and the global options, read once. */
export interface ActionContext {
  io: Io;
  globals: GlobalOptions;
  /** The command being run (its parent chain holds the program). */
  command: CommandUnknownOpts;
  /** How this run is stopped: Ctrl-C, SIGTERM, a reader that went away. */
  interrupts: Interrupts;
  /** The words the run was given. */
  argv: readonly string[];
  prompter: Prompter;
  /** This machine's clock, from the host. */
  now: () => number;
  /**
   * Ends the run now with `code` (the process exits; a run in-process returns it), for a command whose work may still
   * wait on something it no longer needs (tail's poll held by a Retry-After); with --jq, a failed filter still makes it 1.
   */
  exit(code: number): never;
  /** The dependencies of a command that talks to the service (client, config, prompter), built at the first call. */
  deps(): Promise<CommandDeps>;
}

/** The --platform-name of a command that takes one (its delivery headers' name), else undefined. */
function platformNameGiven(command: CommandUnknownOpts): string | undefined {
  const { platformName } = command.opts() as { platformName?: unknown };
  return typeof platformName === 'string' ? platformName : undefined;
}

/**
 * The one action wrapper. commander calls it with the command's arguments,
 * its options (typed from their declaration) and the command last; it reads
 * the global options once, installs the Ctrl-C handling (exit 130; a command
 * that stops cleanly replaces it, see interrupt.ts), hands `run` its context,
 * and gives the exit code it returns to runCli. Errors go up to runCli,
 * which turns each into one line and an exit code; an authentication failure
 * is retold first with what was used (explained).
 */
export function action<A extends unknown[]>(run: (context: ActionContext, ...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const command = args[args.length - 1] as CommandUnknownOpts;
    const scope = runScopeOf(command);
    const { host, interrupts } = scope;
    interrupts.install();
    const globals = readGlobals(command, host.env);
    const secrets = new SecretMask();
    // --jq: loaded, and its expression compiled, before the command runs (a bad one is a usage error before any request).
    const jq =
      globals.jq === undefined
        ? undefined
        : new JqJson(
            await loadJqFilter(globals.jq, { unguarded: (work) => interrupts.withSystemSignals(work), env: host.env, secrets }),
            host.stdout,
            host.stderr,
            maxAnswerBytes(globals, host.env),
            secrets,
          );
    const io: Io = {
      stdin: host.stdin,
      stdout: jq ? jq.plainOutput : host.stdout,
      stderr: host.stderr,
      env: host.env,
      jsonOut: jq ?? new PrintedJson(host.stdout),
      secrets,
    };
    const prompter = inquirerPrompter(host, interrupts);
    let built: CommandDeps | undefined;
    const context: ActionContext = {
      io,
      globals,
      command,
      interrupts,
      argv: scope.argv,
      prompter,
      now: host.now,
      exit: (code) => interrupts.exit(jq ? jq.finish(code) : code),
      deps: async () => (built ??= await buildDeps(globals, io, { prompter, interrupts, now: host.now, platformName: platformNameGiven(command) })),
    };
    try {
      const code = await run(context, ...args);
      scope.code = jq ? jq.finish(code) : code;
    } catch (error) {
      throw built ? explained(error, built) : error;
    }
  };
}

/** The action of a command that talks to the service: `run` gets the dependencies built from the global options. */
export function apiAction<A extends unknown[]>(run: (deps: CommandDeps, ...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return action(async (context, ...args: A) => run(await context.deps(), ...args));
}

/** An authentication failure retold with what was used and how to fix it (CommandDeps.explainAuthFailure); any other error as it is. */
export function explained(error: unknown, deps: Pick<CommandDeps, 'explainAuthFailure'>): unknown {
  return error instanceof AuthError && deps.explainAuthFailure ? deps.explainAuthFailure(error) : error;
}

/**
 * A verb defined in its own file joins its group: the group's settings (help
 * layout, error output, suggestions) are copied to it and to its own
 * subcommands, as `.command()` does for a command made in place.
 */
export function addVerbs(group: CommandUnknownOpts, ...verbs: CommandUnknownOpts[]): void {
  for (const verb of verbs) {
    adopt(group, verb);
    group.addCommand(verb);
  }
}

/**
 * Verbs that also answer where users of other tools type them (`whsvc auth login`, gh's form of
 * `whsvc login`), left out of the group's list so that each is read about in one place.
 */
export function addHiddenVerbs(group: CommandUnknownOpts, ...verbs: CommandUnknownOpts[]): void {
  for (const verb of verbs) {
    adopt(group, verb);
    group.addCommand(verb, { hidden: true });
  }
}

/** Whether a command is left out of its group's list (commander keeps it unexported). */
export const isHidden = (command: CommandUnknownOpts): boolean => (command as CommandUnknownOpts & { _hidden?: boolean })._hidden === true;

function adopt(parent: CommandUnknownOpts, child: CommandUnknownOpts): void {
  child.copyInheritedSettings(parent);
  for (const grandchild of child.commands) adopt(child, grandchild);
}
