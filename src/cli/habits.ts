import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { shellWord } from '../render/text.js';
import { isHidden } from './actions.js';
import { usageError } from './errors.js';
import { examples } from './examples.js';
import { closest } from './suggest.js';

// The habits users bring from gh, stripe and svix, answered by the command tree itself: `whsvc help
// webhooks create` is the help of `create`; a verb typed without its group (`whsvc trigger`, stripe's
// form) gets the one line that says what to type. Nothing here names a command group: the tree does.

/** Every command under `command` (help and hidden ones left out), with the words that name it from the top. */
function commandPaths(command: CommandUnknownOpts, path: string[] = []): string[][] {
  return command.commands
    .filter((sub) => sub.name() !== 'help' && !isHidden(sub))
    .flatMap((sub) => [[...path, sub.name()], ...commandPaths(sub, [...path, sub.name()])]);
}

/** `a`, `a or b`, `a, b or c` (or with `and`). */
const listed = (items: string[], word: 'or' | 'and') =>
  items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${word} ${items[items.length - 1]}`;

/**
 * A verb typed without its group, as another tool has it at the top (`whsvc trigger invoice.paid` is
 * `whsvc sandbox trigger invoice.paid`): the one line that says what to type, with the rest of what was
 * typed (`args`, the words after `whsvc`) in place; undefined when `word` is no group's verb.
 */
export function misplacedVerb(program: CommandUnknownOpts, word: string, args: readonly string[]): string | undefined {
  const found = commandPaths(program).filter((path) => path.length > 1 && path[path.length - 1] === word);
  if (found.length === 0) return undefined;
  const at = Math.max(0, args.indexOf(word));
  const typed = (path: string[]) => ['whsvc', ...[...args.slice(0, at), ...path, ...args.slice(at + 1)].map(shellWord)].join(' ');
  const groups = found.map((path) => path.slice(0, -1).join(' '));
  return `${shellWord(word)} is a command of ${listed(groups, 'and')}: ${listed(found.map(typed), 'or')}`;
}

/**
 * Answers an unknown command of the program (commander's `command:*`): a verb of a group gets the line
 * that says what to type (misplacedVerb), anything else commander's own words, with a near miss.
 */
export function answerUnknownCommands(program: CommandUnknownOpts): void {
  program.on('command:*', (operands: string[]) => {
    const word = operands[0] ?? '';
    const line = misplacedVerb(program, word, program.args);
    if (line) throw usageError(line);
    const guess = closest(
      word,
      commandPaths(program).flatMap((path) => (path.length === 1 ? path : [])),
    );
    program.error(`error: unknown command '${word}'${guess ? `\n(Did you mean ${guess}?)` : ''}`, { code: 'commander.unknownCommand' });
  });
}

/**
 * `whsvc help [command…]`: the help of the command the words name, however deep (`whsvc help webhooks
 * create` is the help of `create`; commander's own help command takes one word and shows the group's).
 */
export function helpCommand(program: CommandUnknownOpts): CommandUnknownOpts {
  return new Command('help')
    .description('display help for a command')
    .argument('[command...]', 'the command, as typed after whsvc')
    .addHelpText('after', examples('whsvc help webhooks create'))
    .action((words: string[]) => {
      let command = program;
      for (const [i, word] of words.entries()) {
        const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!sub) {
          const guess = closest(
            word,
            command.commands.filter((c) => !isHidden(c)).map((c) => c.name()),
          );
          const typed = ['whsvc', ...words.slice(0, i)].join(' ');
          throw usageError(`unknown command ${shellWord(word)} for ${typed}${guess ? `; did you mean ${guess}?` : ''}`, `see ${typed} --help`);
        }
        command = sub;
      }
      command.help();
    });
}
