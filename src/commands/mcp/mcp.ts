import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { type ActionContext, action, addVerbs } from '../../cli/actions.js';
import { usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { checkDirectory } from '../../files/user-file.js';
import { type McpOptions, serve } from './server.js';

export const command = (runF = run) =>
  new Command('mcp')
    .description(
      "a Model Context Protocol server on stdio, for coding agents: reads as tools with --json's shapes; every write returns a plan first and runs only with its id",
    )
    .option('--read-only', 'offer no tool that changes anything')
    .option('--secret-dir <dir>', "where a created webhook's signing secret goes, as <id>.secret (mode 0600); without it no create is offered")
    .addHelpText(
      'after',
      examples(
        'whsvc mcp --read-only',
        'whsvc mcp --profile sandbox --secret-dir ./secrets',
        'claude mcp add whsvc -- whsvc mcp --read-only      # Claude Code; docs/mcp.md for the others',
      ),
    )
    .action(
      action(async (context, o) => {
        // stdout is the protocol's: a filter on it would break every message.
        if (context.globals.jq !== undefined) throw usageError('--jq has no place with mcp: its stdout speaks the Model Context Protocol');
        if (o.secretDir?.trim() === '') throw usageError('--secret-dir is empty: give the directory to write the signing secrets to');
        // A path that cannot be a directory is refused before the server starts, not at the first create.
        if (o.secretDir !== undefined) checkDirectory(o.secretDir, '--secret-dir');
        return runF({ readOnly: Boolean(o.readOnly), secretDir: o.secretDir }, context);
      }),
    );

/** The server (the SDK and zod it loads are loaded for this command only). */
export const run = (options: McpOptions, context: ActionContext): Promise<number> => serve(options, context);

/** Defines `mcp`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}
