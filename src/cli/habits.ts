import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { cutWords, shellWord } from '../render/text.js';
import { isHidden } from './actions.js';
import { usageError } from './errors.js';
import { examples } from './examples.js';
import { closest } from './suggest.js';
import { withCredentialsMasked } from './credentials.js';

// The habits users bring from gh, stripe and svix, answered by the command tree itself: `whsvc help
// webhooks create` is the help of `create`; a verb typed without its group (`whsvc trigger`, stripe's
// form) gets the one line that says what to type. Nothing here names a command group: the tree does.

/** Every command under `command` (help and hidden ones left out), with the words that name it from the top. */
export function commandPaths(command: CommandUnknownOpts, path: string[] = []): string[][] {
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
  const groups = found.map((path) => path.slice(0, -1).join(' '));
  const commands = found.map((path) => typed([...args.slice(0, at), ...path, ...args.slice(at + 1)]));
  return `${shellWord(word)} is a command of ${listed(groups, 'and')}: ${listed(commands, 'or')}`;
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

/**
 * The words of a command line as a user types them, for a hint to show: `whsvc webhooks list --json`. Each word as a
 * shell takes it (shellWord: control characters escaped, never sent to the terminal), a credential typed in them
 * masked (withCredentialsMasked: a hint is read over shoulders and kept in CI logs), placeholders (`<webhook-id>`) as
 * they are; a line too long to read (30,000 words, 169 KB) cut in its middle, saying how many words it leaves out.
 */
function typed(words: readonly string[]): string {
  return cutWords(['whsvc', ...withCredentialsMasked(words).map((word) => (/^<[a-z-]+>$/.test(word) ? word : shellWord(word)))]);
}

/** What commander refused: an option, a command, or words too many; and the word it named. */
export interface Refusal {
  kind: 'option' | 'command' | 'arguments';
  /** The option or command it named (`--format`, `rm`); for arguments, nothing. */
  word?: string | undefined;
}

/** The refusal in commander's own message (`error: unknown option '--format'`), when it is one a habit can answer. */
export function refusalOf(commanderCode: string, message: string): Refusal | undefined {
  const named = /'([^']+)'/.exec(message)?.[1];
  if (commanderCode === 'commander.unknownOption') return { kind: 'option', word: named };
  if (commanderCode === 'commander.unknownCommand') return { kind: 'command', word: named };
  if (commanderCode === 'commander.excessArguments') return { kind: 'arguments' };
  return undefined;
}

/** The flags other tools print JSON with (`gh … --format json`, kubectl's `-o json`, `--output json`). */
const OUTPUT_FLAGS = new Set(['--format', '--output', '-o']);

/** argv with the flag at `at` (and its value, when it was a word of its own) taken out. */
function without(argv: readonly string[], at: number, withValue: boolean): string[] {
  return [...argv.slice(0, at), ...argv.slice(at + (withValue ? 2 : 1))];
}

/** An output flag of another tool, with its value: `--format json`, `--output=json`, `-ojson`. */
function outputFlagHint(argv: readonly string[], word: string): string | undefined {
  const at = argv.findIndex((arg) => arg === word || arg.startsWith(`${word}=`) || (word === '-o' && arg.startsWith('-o') && !arg.startsWith('--')));
  if (at < 0) return undefined;
  const arg = argv[at]!;
  const inline = arg.startsWith(`${word}=`) ? arg.slice(word.length + 1) : arg !== word ? arg.slice(2) : undefined;
  const value = inline ?? argv[at + 1];
  const rest = without(argv, at, inline === undefined && value !== undefined && !value.startsWith('-'));
  const json = typed([...rest.filter((a) => a !== '--json'), '--json']);
  return /^json$/i.test(value ?? '')
    ? `JSON is --json here (and --jq filters it): ${json}`
    : `a terminal gets a table, and --json gives JSON (--jq filters it): ${json}`;
}

/** Options other tools have, and what whsvc has for them. */
function optionHint(argv: readonly string[], typedWord: string): string | undefined {
  // commander names `--output=json` whole, and `-ojson` as `-o`.
  const word = typedWord.startsWith('--') ? typedWord.split('=')[0]! : typedWord.slice(0, 2);
  if (OUTPUT_FLAGS.has(word)) return outputFlagHint(argv, word);
  if (word === '-q') {
    const at = argv.indexOf('-q');
    return `gh's -q is --jq here: ${typed([...argv.slice(0, at), '--jq', ...argv.slice(at + 1)])}`;
  }
  const paused = pauseHint(argv, typedWord);
  if (paused) return paused;
  const backwards = clockBackHint(argv, typedWord);
  if (backwards) return backwards;
  if (word === '--print-secret') {
    return "the signing secret is the webhook's, shown once when it is created (`whsvc webhooks create … --secret-file whsec.txt` keeps it in a file); then: whsvc listen --secret-file whsec.txt";
  }
  return undefined;
}

/** The words other tools pause and resume a webhook with (`--paused`, `--disable`, `webhooks pause`), and whether each means active. */
const PAUSE_WORDS: Record<string, boolean> = {
  pause: false,
  paused: false,
  disable: false,
  disabled: false,
  resume: true,
  unpause: true,
  enable: true,
  enabled: true,
};

/** A value other tools take for on or off (`--active false`), read as whsvc's flags say it; undefined when it is none. */
function onOff(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (/^(true|yes|on|1)$/i.test(value)) return true;
  if (/^(false|no|off|0)$/i.test(value)) return false;
  return undefined;
}

/** How whsvc pauses and resumes a webhook, and the command that does what was meant (`active`), the rest of the line kept. */
function pauseLine(command: readonly string[], active: boolean): string {
  const creating = command.includes('create');
  if (creating && active) return `a webhook is created active, and --inactive creates it paused: ${typed(command)}`;
  const how = creating ? 'a webhook is created paused with --inactive' : 'a webhook is paused with --inactive and resumed with --active (no value)';
  return `${how}: ${typed([...command, active ? '--active' : '--inactive'])}`;
}

/**
 * `--active false`, `--active=false`, `--paused`, `--disable` on `webhooks update` or `create`, where --active and
 * --inactive take no value: the line that says so, with the command that does what was meant.
 */
function pauseHint(argv: readonly string[], typedWord?: string): string | undefined {
  const group = argv.indexOf('webhooks');
  if (group < 0 || !['update', 'create'].includes(argv[group + 1] ?? '')) return undefined;
  const at = argv.findIndex((arg) => (typedWord === undefined ? arg === '--active' || arg === '--inactive' : arg === typedWord));
  if (at < 0) return undefined;
  const [flag, inline] = argv[at]!.replace(/^--/, '').split('=', 2) as [string, string | undefined];
  const value = onOff(inline ?? argv[at + 1]);
  const named = flag === 'active' || flag === 'inactive' ? flag === 'active' : PAUSE_WORDS[flag];
  if (named === undefined || (inline !== undefined && value === undefined)) return undefined;
  const rest = without(argv, at, inline === undefined && value !== undefined);
  // `--paused true` pauses, `--active false` and `--paused false` do not.
  return pauseLine(rest, value === false ? !named : named);
}

/** Commands other tools have under a group, by the group's name and the word typed, and the words whsvc has for them. */
const COMMAND_HABITS: Record<string, Record<string, string>> = {
  webhooks: { rm: 'webhooks delete', remove: 'webhooks delete', view: 'webhooks get', show: 'webhooks get', describe: 'webhooks get', ls: 'webhooks list' },
  deliveries: { resend: 'deliveries retry', redeliver: 'deliveries retry', ls: 'deliveries list', view: 'deliveries show', get: 'deliveries show' },
};

/** Commands other tools have at the top: the hint that answers each. */
const TOP_HABITS: Record<string, (rest: readonly string[]) => string> = {
  whoami: () => `who is logged in, to which service, with which scopes: ${typed(['auth', 'status'])}`,
  logs: () => `those of one webhook are \`${typed(['deliveries', 'list', 'WEBHOOK_ID'])}\`; the deliveries as they happen: ${typed(['deliveries', 'tail'])}`,
  endpoint: (rest) => `svix's endpoints are webhooks here: ${typed(['webhooks', ...rest])}`,
  endpoints: (rest) => `svix's endpoints are webhooks here: ${typed(['webhooks', ...rest])}`,
};

/** An unknown command: a group's verb under another tool's name (`webhooks rm`), or another tool's command at the top (`whoami`). */
function commandHint(argv: readonly string[], word: string): string | undefined {
  const at = argv.indexOf(word);
  if (at < 0) return undefined;
  const rest = argv.slice(at + 1);
  if (at === 0) return TOP_HABITS[word]?.(rest);
  const active = PAUSE_WORDS[word];
  if (argv[at - 1] === 'webhooks' && active !== undefined) return pauseLine([...argv.slice(0, at - 1), 'webhooks', 'update', ...rest], active);
  const meant = COMMAND_HABITS[argv[at - 1] ?? '']?.[word];
  if (meant === undefined) return undefined;
  const many = word === 'resend' || word === 'redeliver' ? `many at once are \`${typed(['deliveries', 'recover', '--dry-run'])}\`; this one: ` : '';
  return `${many}${typed([...argv.slice(0, at - 1), ...meant.split(' '), ...rest])}`;
}

/** Lists that other tools take as words (`--events a b`): whsvc takes them joined by commas. */
const LIST_OPTIONS = ['--events'];

/** The units a duration is written in (`90s`), by the words other tools and people write them with apart (`1 hour`). */
const UNIT_WORDS: Record<string, string> = {
  ms: 'ms',
  s: 's',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  m: 'm',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  h: 'h',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  d: 'd',
  day: 'd',
  days: 'd',
};

/** A duration typed as a number and a unit apart (`advance 1 h`, `--since 2 hours`): the command with it as one word. */
function splitDurationHint(argv: readonly string[]): string | undefined {
  const at = argv.findIndex(
    (arg, i) =>
      i > 0 &&
      /^\d+(\.\d+)?$/.test(arg) &&
      UNIT_WORDS[argv[i + 1]?.toLowerCase() ?? ''] !== undefined &&
      (argv[i - 1] === 'advance' || argv[i - 1]!.startsWith('--')),
  );
  if (at < 0) return undefined;
  const word = `${argv[at]}${UNIT_WORDS[argv[at + 1]!.toLowerCase()]}`;
  return `write it as one word: ${typed([...argv.slice(0, at), word, ...argv.slice(at + 2)])}`;
}

/** `sandbox clock advance -5m`: a manual clock moves forward only; the command that shows where it is. */
function clockBackHint(argv: readonly string[], typedWord: string): string | undefined {
  const at = argv.indexOf('advance');
  if (at < 1 || argv[at - 1] !== 'clock' || !/^-\d/.test(typedWord)) return undefined;
  return `the sandbox's clock only moves forward; its time now: ${typed(argv.slice(0, at))}`;
}

/** Words too many: a list given as words, gh's `--json id,url`, stripe's `listen 3000`, `events trigger`, `advance 1 h`. */
function argumentsHint(argv: readonly string[]): string | undefined {
  const paused = pauseHint(argv);
  if (paused) return paused;
  const split = splitDurationHint(argv);
  if (split) return split;
  const list = argv.findIndex((arg) => LIST_OPTIONS.includes(arg));
  if (list >= 0) {
    const end = argv.findIndex((arg, i) => i > list && arg.startsWith('-'));
    const items = argv.slice(list + 1, end < 0 ? undefined : end);
    if (items.length > 1)
      return `a list is one word, its items joined by commas: ${typed([...argv.slice(0, list + 1), items.join(','), ...(end < 0 ? [] : argv.slice(end))])}`;
  }
  const json = argv.indexOf('--json');
  const fields = json >= 0 ? argv[json + 1] : undefined;
  if (fields !== undefined && /^[a-z_]+(,[a-z_]+)*$/.test(fields)) {
    const picked = `{${fields.split(',').join(', ')}}`;
    return `--json takes no list of fields here; --jq picks them: ${typed([...without(argv, json, true), '--json', '--jq', `.data[] | ${picked}`])}`;
  }
  if (argv[0] === 'listen' && /^\d+$/.test(argv[1] ?? '')) {
    return `to pass deliveries on to your app there is \`${typed(['listen', '--forward-to', `http://localhost:${argv[1]}`])}\`; to receive on port ${argv[1]}: ${typed(['listen', '--port', argv[1]!])}`;
  }
  if (argv[0] === 'events' && argv[1] === 'trigger') {
    const type = argv[2] ?? 'invoice.paid';
    return `a sample to one webhook is \`${typed(['test', 'WEBHOOK_ID', '--event', type])}\`; an event in the sandbox: ${typed(['sandbox', 'trigger', type])}`;
  }
  return undefined;
}

/** The hint that answers a habit of another tool (gh, stripe, svix, kubectl) that commander refused, if there is one. */
export function habitHint(refusal: Refusal, argv: readonly string[]): string | undefined {
  if (refusal.kind === 'option') return refusal.word ? optionHint(argv, refusal.word) : undefined;
  if (refusal.kind === 'command') return refusal.word ? commandHint(argv, refusal.word) : undefined;
  return argumentsHint(argv);
}
