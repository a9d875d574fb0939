import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { AuthError } from '../api/errors.js';
import { buildDeps, type CommandDeps } from './context.js';
import { readGlobals, type GlobalOptions } from './globals.js';
import { processIo, type Io } from './deps.js';
import { installInterruptHandler } from './interrupt.js';
import { JqOutput, loadJqFilter } from './jq.js';
import { inquirerPrompter } from './prompter.js';

/** What every command's action starts from: the process's streams and the global options, read once. */
export interface ActionContext {
  io: Io;
  globals: GlobalOptions;
  /** The command being run (its parent chain holds the program). */
  command: CommandUnknownOpts;
  /** The dependencies of a command that talks to the service (client, config, prompter), built at the first call. */
  deps(): Promise<CommandDeps>;
}

/**
 * The one action wrapper. commander calls it with the command's arguments,
 * its options (typed from their declaration) and the command last; it reads
 * the global options once, installs the Ctrl-C handling (exit 130; a command
 * that stops cleanly replaces it, see interrupt.ts), hands `run` its context,
 * and makes the exit code it returns the process's. Errors go up to main.ts,
 * which turns each into one line and an exit code; an authentication failure
 * is retold first with what was used (explained).
 */
export function action<A extends unknown[]>(run: (context: ActionContext, ...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const command = args[args.length - 1] as CommandUnknownOpts;
    installInterruptHandler();
    const processStreams = processIo();
    const globals = readGlobals(command, processStreams.env);
    // --jq: loaded, and its expression compiled, before the command runs (a bad one is a usage error before any request).
    const jq = globals.jq === undefined ? undefined : new JqOutput(await loadJqFilter(globals.jq), processStreams.stdout, processStreams.stderr);
    const io = jq ? { ...processStreams, stdout: jq } : processStreams;
    let built: CommandDeps | undefined;
    const context: ActionContext = { io, globals, command, deps: async () => (built ??= await buildDeps(globals, io, inquirerPrompter)) };
    try {
      const code = await run(context, ...args);
      process.exitCode = jq ? jq.finish(code) : code;
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
