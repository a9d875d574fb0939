import { Command, Help, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { addVerbs } from './cli/actions.js';
import { usageMessage } from './cli/errors.js';
import { examples } from './cli/examples.js';
import { withGlobalOptions } from './cli/globals.js';
import type { Host } from './cli/host.js';
import { answerUnknownCommands, helpCommand } from './cli/habits.js';
import { register as api } from './commands/api/api.js';
import { register as auth } from './commands/auth/auth.js';
import { register as checkReceiver } from './commands/check-receiver/check-receiver.js';
import { register as completion } from './commands/completion/completion.js';
import { register as deliveries } from './commands/deliveries/deliveries.js';
import { register as events } from './commands/events/events.js';
import { register as listen } from './commands/listen/listen.js';
import { register as mcp } from './commands/mcp/mcp.js';
import { register as replay } from './commands/replay/replay.js';
import { register as sandbox } from './commands/sandbox/sandbox.js';
import { register as send } from './commands/send/send.js';
import { register as sign } from './commands/sign/sign.js';
import { register as verify } from './commands/verify/verify.js';
import { register as webhooks } from './commands/webhooks/webhooks.js';
import type { TopCommand } from './render/commands.js';
import { laidOut } from './render/wrap.js';

/** Which definitions hold each top-level command (every one of TOP_COMMANDS but help, which the program adds itself). */
const REGISTRARS: Record<Exclude<TopCommand, 'help'>, (program: CommandUnknownOpts) => void> = {
  sandbox,
  login: auth,
  logout: auth,
  auth,
  webhooks,
  events,
  test: events,
  deliveries,
  listen,
  replay,
  verify,
  sign,
  send,
  'check-receiver': checkReceiver,
  api,
  mcp,
  completion,
};

/**
 * The program. Given the top-level command about to run, only its definitions
 * are built (a few milliseconds saved on every API command); anything else
 * (help, a typo that wants suggestions, completion) gets them all.
 */
export function buildProgram(commandName?: string, host?: Pick<Host, 'stdout' | 'stderr'>): CommandUnknownOpts {
  const program = new Command('whsvc')
    .description('Manage webhooks on the business-platform API, and run a local sandbox of the service.')
    .version(WHSVC_VERSION, '-v, --version', 'print the version')
    .showSuggestionAfterError()
    .configureOutput({
      outputError: (text, write) => write(host ? laidOut(host.stderr, `whsvc: ${usageMessage(text)}`) : `whsvc: ${usageMessage(text)}`),
      // Help, --version and usage errors go to the host's streams, fitted to their width (a run in-process has no process's).
      ...(host && {
        writeOut: (text) => void host.stdout.write(text),
        writeErr: (text) => void host.stderr.write(text),
        getOutHelpWidth: () => host.stdout.columns || 80,
        getErrHelpWidth: () => host.stderr.columns || 80,
        getOutHasColors: () => false,
        getErrHasColors: () => false,
      }),
    })
    .exitOverride()
    .configureHelp({
      // Every command's help lists the global options too (--json, --profile, …).
      showGlobalOptions: true,
      minWidthToWrap: 20,
      // A group's commands first, then its options and the inherited ones, as gh lists them.
      formatHelp(command, helper) {
        const sections = Help.prototype.formatHelp.call(helper, command, helper).trimEnd().split('\n\n');
        const commands = sections.findIndex((section) => section.startsWith('Commands:'));
        const options = sections.findIndex((section) => /^(Arguments|Options|Global Options):/.test(section));
        if (commands > options && options >= 0) sections.splice(options, 0, ...sections.splice(commands, 1));
        return `${sections.join('\n\n')}\n`;
      },
      formatItem(term, termWidth, description, helper) {
        const width = helper.helpWidth ?? 80;
        if (!description || width - termWidth - 4 >= 40) return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
        // A narrow terminal: each description under its term, wrapped to the width, instead of a column too thin to read.
        return `  ${term}\n${helper.boxWrap(description, width - 6).replace(/^/gm, '      ')}`;
      },
    });
  withGlobalOptions(program)
    .addHelpText(
      'after',
      examples(
        '# the service, locally, and a login to it',
        'whsvc sandbox start',
        'whsvc login --profile sandbox --client-id sbx_demo_readwrite',
        '# a webhook, its signing secret written to a file',
        'whsvc webhooks create --url https://example.com/hooks --events invoice.paid --secret-file whsec.txt',
        '# a local receiver that verifies signatures, and the log',
        'whsvc listen --secret-file whsec.txt',
        'whsvc deliveries list wh_…',
      ),
    )
    .addHelpText(
      'after',
      `
Exit codes:
  0 ok, 1 failure, 2 usage, 3 authentication, 4 permission,
  5 not found, 6 timed out waiting, 130 interrupted`,
    );

  const only = commandName !== undefined && Object.hasOwn(REGISTRARS, commandName) ? REGISTRARS[commandName as keyof typeof REGISTRARS] : undefined;
  if (only) only(program);
  else for (const register of new Set(Object.values(REGISTRARS))) register(program);
  // In place of commander's help command, which takes one word: `whsvc help webhooks create`.
  addVerbs(program, helpCommand(program));
  answerUnknownCommands(program);
  return program;
}
