import { Command, type CommandUnknownOpts, type Option } from '@commander-js/extra-typings';
import { buildDeps } from '../../cli/context.js';
import { action, addVerbs, isHidden } from '../../cli/actions.js';
import { fetchCatalog } from '../../cli/catalog.js';
import { examples } from '../../cli/examples.js';
import type { Io } from '../../cli/deps.js';
import { usageError } from '../../cli/errors.js';
import { notOneOf } from '../../cli/suggest.js';
import { EVENT_TYPES } from '../../protocol/catalog.js';
import { DELIVERY_STATUSES } from '../../protocol/status.js';
import { sanitize } from '../../render/text.js';

/** Defines `completion` and the hidden `__complete` its scripts call. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
  const complete = completeCommand(program);
  complete.copyInheritedSettings(program);
  program.addCommand(complete, { hidden: true });
}

export const command = (runF = run) =>
  new Command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash, zsh, fish or powershell')
    .addHelpText(
      'after',
      examples(
        'eval "$(whsvc completion bash)"          # in ~/.bashrc',
        'whsvc completion fish > ~/.config/fish/completions/whsvc.fish',
        'whsvc completion powershell | Out-String | Invoke-Expression   # in $PROFILE',
      ),
    )
    .action(action(async ({ io }, shell) => runF({ shell: shellNamed(shell) }, io)));

/** What the completion scripts call: the candidates for the words typed so far, one a line. */
const completeCommand = (program: CommandUnknownOpts) =>
  new Command('__complete')
    .argument('[words...]')
    // The word being typed, apart (PowerShell's script: Windows PowerShell drops an empty argument, `--current=` it keeps).
    .option('--current <word>')
    .allowUnknownOption()
    .helpOption(false)
    .action(
      action(async (context, _words, o) => {
        // The scripts pass the words after `--`, taken raw so that no word is parsed as an option of ours.
        const separator = context.argv.indexOf('--');
        const words = [...(separator < 0 ? [] : context.argv.slice(separator + 1)), ...(o.current === undefined ? [] : [o.current])];
        const eventTypes = async () => {
          // A completion that waits is worse than none: the catalog gets 2 s.
          const deps = await buildDeps({ ...context.globals, requestTimeoutMs: 2000 }, context.io, context);
          const cached = deps.config.readCatalog(deps.api.baseUrl);
          if (cached) return cached.data.map((e) => e.type);
          // Not logged in, or the service silent: the interface's own catalog, which send, listen and check-receiver take.
          const fetched = (await fetchCatalog(deps).catch(() => [])).map((e) => e.type);
          return fetched.length > 0 ? fetched : [...EVENT_TYPES];
        };
        return printCandidates(program, words.length === 0 ? [''] : words, context.io, eventTypes);
      }),
    );

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;

/**
 * The scripts only ask `whsvc __complete <words…>` for candidates, so they
 * never go stale: commands and flags come from the program itself, event
 * types from the catalog cached by the last command that fetched it.
 */
const SCRIPTS: Record<(typeof SHELLS)[number], string> = {
  bash: `# whsvc completion for bash: eval "$(whsvc completion bash)" in ~/.bashrc
_whsvc_complete() {
  local candidate
  COMPREPLY=()
  # read, not mapfile: macOS's bash 3.2 has no mapfile.
  while IFS= read -r candidate; do
    COMPREPLY+=("$candidate")
  done < <(whsvc __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  [[ "\${COMPREPLY[0]:-}" == *, ]] && compopt -o nospace 2>/dev/null
  return 0
}
complete -o default -F _whsvc_complete whsvc
`,
  zsh: `#compdef whsvc
# whsvc completion for zsh: eval "$(whsvc completion zsh)" in ~/.zshrc
_whsvc_complete() {
  local -a candidates
  candidates=("\${(@f)$(whsvc __complete -- "\${(@)words[2,CURRENT]}" \\
    2>/dev/null)}")
  compadd -Q -- \${candidates[@]}
}
compdef _whsvc_complete whsvc
`,
  fish: `# whsvc completion for fish:
#   whsvc completion fish > ~/.config/fish/completions/whsvc.fish
function __whsvc_complete
    whsvc __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null
end
complete -c whsvc -f -a '(__whsvc_complete)'
`,
  // The words before the cursor's word (those that end before it starts), and that word apart as --current=,
  // which Windows PowerShell 5.1 passes on even when empty (it drops an empty argument). Lines are broken only
  // after a pipe, a comma or an opening brace, where PowerShell reads on.
  powershell: `# whsvc completion for PowerShell, in $PROFILE:
#   whsvc completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName whsvc,
    whsvc.cmd, whsvc.ps1 -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $before = @($commandAst.CommandElements | Select-Object -Skip 1 |
    Where-Object {
      $_.Extent.EndOffset -lt ($cursorPosition - $wordToComplete.Length)
    } |
    ForEach-Object { $_.ToString() })
  whsvc __complete "--current=$wordToComplete" -- @before 2>$null |
    ForEach-Object {
      $kind = if ($_.StartsWith('-')) {
        'ParameterName'
      } else {
        'ParameterValue'
      }
      [System.Management.Automation.CompletionResult]::new($_, $_, $kind, $_)
    }
}
`,
};

type Shell = (typeof SHELLS)[number];

/** A shell there is a script for, or a usage error with the nearest. */
function shellNamed(shell: string): Shell {
  if (!(SHELLS as readonly string[]).includes(shell)) throw usageError(notOneOf('shell', shell, SHELLS));
  return shell as Shell;
}

export const script = (shell: Shell): string => SCRIPTS[shell];

/** Prints the completion script of the shell. */
export async function run(options: { shell: Shell }, io: Io): Promise<number> {
  io.stdout.write(script(options.shell));
  return 0;
}

type Choices = 'events' | readonly string[];

/** What a flag's value can be, by the flag's name. */
const VALUE_CHOICES: Record<string, Choices> = {
  '--events': 'events',
  '--add-events': 'events',
  '--remove-events': 'events',
  '--event': 'events',
  '--status': DELIVERY_STATUSES,
  '--active': ['true', 'false'],
};

/** What an argument can be, by the argument's name (`sandbox trigger <event-type>`, `completion <shell>`). */
const ARGUMENT_CHOICES: Record<string, Choices> = {
  'event-type': 'events',
  shell: SHELLS,
};

function visibleOptions(command: CommandUnknownOpts): readonly Option[] {
  const own = command.options.filter((o) => !o.hidden);
  let parent = command.parent;
  const inherited: Option[] = [];
  while (parent) {
    inherited.push(...parent.options.filter((o) => !o.hidden));
    parent = parent.parent;
  }
  return [...own, ...inherited];
}

/**
 * Candidates for the last of `words` (the word being typed, maybe empty),
 * given the words before it. `eventTypes` is asked only when an event type
 * is wanted.
 */
export async function candidates(program: CommandUnknownOpts, words: string[], eventTypes: () => Promise<string[]>): Promise<string[]> {
  const current = words[words.length - 1] ?? '';
  const before = words.slice(0, -1);
  let command = program;
  for (const word of before) {
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) command = sub;
  }
  const previous = before[before.length - 1];
  const options = visibleOptions(command);
  const takesValue = (word: string | undefined) => options.some((o) => o.long === word && (o.required || o.optional));
  if (takesValue(previous)) {
    // A flag's own list of values (commander's .choices(): --clock wall|manual) where the table names none.
    const own = options.find((o) => o.long === previous)?.argChoices;
    return choose(VALUE_CHOICES[previous!] ?? own, current, eventTypes);
  }
  if (current.startsWith('-')) {
    return options.map((o) => o.long).filter((name): name is string => Boolean(name?.startsWith(current)));
  }
  const subcommands = command.commands.filter((c) => !isHidden(c) && c.name() !== 'help').map((c) => c.name());
  if (subcommands.length > 0) return subcommands.filter((name) => name.startsWith(current));
  // An argument: which one is the number of words after the command that are neither flags nor a flag's value.
  const at = before.indexOf(command.name()) + 1;
  const operands = before.slice(at).filter((word, i, words) => !word.startsWith('-') && !takesValue(words[i - 1]));
  const argument = command.registeredArguments[operands.length] ?? command.registeredArguments.find((a) => a.variadic);
  return choose(argument ? ARGUMENT_CHOICES[argument.name()] : undefined, current, eventTypes);
}

/** The candidates among `choices` for the word being typed; event types as a comma list (the last item completed). */
async function choose(choices: Choices | undefined, current: string, eventTypes: () => Promise<string[]>): Promise<string[]> {
  if (choices !== 'events') return (choices ?? []).filter((c) => c.startsWith(current));
  const done = current.includes(',') ? current.slice(0, current.lastIndexOf(',') + 1) : '';
  const partial = current.slice(done.length);
  const already = done.split(',').filter(Boolean);
  return (await eventTypes()).filter((t) => t.startsWith(partial) && !already.includes(t)).map((t) => done + t);
}

export async function printCandidates(program: CommandUnknownOpts, words: string[], io: Io, eventTypes: () => Promise<string[]>): Promise<number> {
  for (const candidate of await candidates(program, words, eventTypes)) io.stdout.write(`${sanitize(candidate)}\n`);
  return 0;
}
