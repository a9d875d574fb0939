import { InvalidArgumentError, type Command } from 'commander';
import { AuthError } from '../api/errors.js';
import { buildDeps, readGlobals, type CommandDeps } from './context.js';
import { processIo } from './deps.js';
import { installInterruptHandler } from './interrupt.js';
import { inquirerPrompter } from './prompter.js';
import { ExitCode } from './errors.js';
import { didYouMean } from './suggest.js';

type RunModule<O> = { run(options: O, deps: CommandDeps): Promise<number> };

/** A value from a fixed set, checked before any request, with a suggestion for near misses. */
export function oneOf(choices: string[]) {
  return (value: string) => {
    // commander's line already names the option and the value.
    if (!choices.includes(value)) throw new InvalidArgumentError(`Use one of ${choices.join(', ')}${didYouMean(value, choices)}`);
    return value;
  };
}

const splitList = (value: string): string[] => value.split(',').map((s) => s.trim()).filter(Boolean);

/** A comma-separated filter (listen --events): a value given twice is the same filter. */
export const distinctList = (value: string): string[] => [...new Set(splitList(value))];

/** A comma-separated list option; a value given twice is a mistake, refused before any request. */
export function list(value: string): string[] {
  const items = splitList(value);
  const twice = items.find((item, i) => items.indexOf(item) !== i);
  if (twice !== undefined) throw new InvalidArgumentError(`${twice} is listed twice.`);
  return items;
}

/** A repeatable option's or a variadic argument's parser: each value checked, all kept. */
export const collect =
  <T>(parse: (value: string) => T) =>
  (value: string, previous: T[] | undefined): T[] => [...(previous ?? []), parse(value)];

/**
 * The action of an API command: the dependencies are built from the global
 * options, the verb's run function gets them, and the exit code it returns
 * becomes the process's.
 */
export function apiAction<O>(verb: RunModule<O>, toOptions: (args: string[], opts: Record<string, any>) => O) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const opts = command.optsWithGlobals();
    const positional = args.slice(0, -2) as string[];
    installInterruptHandler();
    const deps = await buildDeps(readGlobals(opts, process.env), processIo(), inquirerPrompter);
    try {
      process.exitCode = await verb.run(toOptions(positional, opts), deps);
    } catch (error) {
      throw explained(error, deps);
    }
  };
}

/** An authentication failure retold with what was used and how to fix it (CommandDeps.explainAuthFailure); any other error as it is. */
export function explained(error: unknown, deps: Pick<CommandDeps, 'explainAuthFailure'>): unknown {
  return error instanceof AuthError && deps.explainAuthFailure ? deps.explainAuthFailure(error) : error;
}

/** Resolves with the exit code once the user asks to stop: Ctrl-C is 130, SIGTERM a clean 0. */
export function stopRequested(): Promise<number> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => {
      resolve(ExitCode.interrupted);
      process.once('SIGINT', () => process.exit(ExitCode.interrupted));
    });
    process.once('SIGTERM', () => resolve(ExitCode.ok));
  });
}
