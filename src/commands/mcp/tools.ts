import { InvalidArgumentError } from '@commander-js/extra-typings';
import type * as z from 'zod';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode, usageError } from '../../cli/errors.js';
import type { ToolOutcome } from './call.js';
import type { PlanBook } from './plans.js';

// What a tool of `whsvc mcp` is: its name, its words, its typed input (a zod schema, as the SDK takes it; the tool
// reference in docs/mcp-tools.md is made from the same), whether it reads or writes, and its run. server.ts offers
// the tools that fit the run (--read-only, the token's scope, --secret-dir, a sandbox).
//
// zod, like the SDK, is loaded only for `whsvc mcp` (as every package is loaded at its first use, so that no other
// command pays for it): the tools are made by functions given it (Zod), and only its types are imported here.

/** The zod module, given to the functions that make the tools. */
export type Zod = typeof z;

/** What a tool does to the account: reads it, or writes (a plan first, then the plan carried out). */
export type ToolKind = 'read' | 'write';

/** What the tools of one server share. */
export interface ToolContext {
  plans: PlanBook;
  /** --secret-dir: where a created webhook's signing secret goes. */
  secretDir: string | undefined;
  /** Runs a plan's second call alone: its reads made again and its steps carried out with no other write in between. */
  alone<T>(work: () => Promise<T>): Promise<T>;
}

export interface ToolSpec<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  kind: ToolKind;
  /** Offered only when the profile points at a whsvc sandbox. */
  sandbox?: boolean;
  /** Offered only with --secret-dir (a create, whose secret goes there). */
  needsSecretDir?: boolean;
  /** It may delete or revoke what cannot be had again. */
  destructive?: boolean;
  /** A write that plans first (plan-tool.ts): carried out only by a second call with the plan's id. */
  planned?: boolean;
  run(args: z.output<I>, deps: CommandDeps, context: ToolContext): Promise<ToolOutcome>;
}

/** A tool of any input, as the list holds it. */
export type AnyTool = ToolSpec<z.ZodObject>;

export const defineTool = <I extends z.ZodObject>(spec: ToolSpec<I>): AnyTool => spec as unknown as AnyTool;

/**
 * A string checked by one of the command line's own parsers (cli/parse.ts), so that a tool refuses what the flag
 * refuses, in the same words.
 */
export function parsedBy(zod: Zod, parse: (value: string) => unknown) {
  return zod.string().superRefine((value, context) => {
    try {
      parse(value);
    } catch (error) {
      // A usage error with a hint for a terminal's user (an id in its short form): its message, as the argument's issue.
      const refused = error instanceof InvalidArgumentError || (error instanceof CliError && error.exitCode === ExitCode.usage);
      if (!refused) throw error;
      context.addIssue({ code: 'custom', message: error.message.replace(/\.$/, '') });
    }
  });
}

/**
 * A tool's arguments checked against its input: a usage error naming each argument that is wrong, its value and why,
 * as the command line names a flag (`limit 500: too big: expected number to be <=200`).
 */
export function argumentsOf<I extends z.ZodObject>(tool: ToolSpec<I>, given: unknown): z.output<I> {
  const parsed = tool.input.safeParse(given ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const at = issue.path.join('.');
    const value = issue.path.reduce<unknown>((inner, key) => (inner as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey], given);
    const shown = at === '' ? '' : value === undefined ? `${at}: ` : `${at} ${JSON.stringify(value)}: `;
    return `${shown}${issue.message.replace(/^[A-Z]/, (c) => c.toLowerCase())}`;
  });
  throw usageError(`${tool.name}: ${problems.join('; ')}`, `the tool's input schema (tools/list) says what each argument takes`);
}
