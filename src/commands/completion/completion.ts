import { Command, type CommandUnknownOpts, type Option } from '@commander-js/extra-typings';
import { buildDeps } from '../../cli/context.js';
import { inquirerPrompter } from '../../cli/prompter.js';
import { action, addVerbs, isHidden } from '../../cli/actions.js';
import { fetchCatalog } from '../../cli/catalog.js';
import { examples } from '../../cli/examples.js';
import type { Io } from '../../cli/deps.js';
import { usageError } from '../../cli/errors.js';
import { notOneOf } from '../../cli/suggest.js';
import { sanitize } from '../../render/text.js';

/** Defines `completion` and the hidden `__complete` its scripts call. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
  const complete = completeCommand(program);
  complete.copyInheritedSettings(program);
  program.addCommand(complete, { hidden: true });
}

export const command = () =>
  new Command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', examples('eval "$(whsvc completion bash)"          # in ~/.bashrc', 'whsvc completion fish > ~/.config/fish/completions/whsvc.fish'))
    .action(
      action(async ({ io }, shell) => {
        io.stdout.write(script(shell));
        return 0;
      }),
    );

/** What the completion scripts call: the candidates for the words typed so far, one a line. */
const completeCommand = (program: CommandUnknownOpts) =>
  new Command('__complete')
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(
      action(async (context) => {
        // The scripts pass the words after `--`, taken raw so that no word is parsed as an option of ours.
        const separator = process.argv.indexOf('--');
        const words = separator < 0 ? [] : process.argv.slice(separator + 1);
        const eventTypes = async () => {
          // A completion that waits is worse than none: the catalog gets 2 s.
          const deps = await buildDeps({ ...context.globals, requestTimeoutMs: 2000 }, context.io, inquirerPrompter);
          const cached = deps.config.readCatalog(deps.api.baseUrl);
          if (cached) return cached.data.map((e) => e.type);
          return (await fetchCatalog(deps).catch(() => [])).map((e) => e.type);
        };
        return printCandidates(program, words.length === 0 ? [''] : words, context.io, eventTypes);
      }),
    );

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/**
 * The scripts only ask `whsvc __complete <words…>` for candidates, so they
 * never go stale: commands and flags come from the program itself, event
 * types from the catalog cached by the last command that fetched it.
 */
const SCRIPTS: Record<(typeof SHELLS)[number], string> = {
  bash: `# whsvc completion for bash: eval "$(whsvc completion bash)" in ~/.bashrc
_whsvc_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\\n'
  COMPREPLY=( $(whsvc __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
  [[ "\${COMPREPLY[0]}" == *, ]] && compopt -o nospace 2>/dev/null
  return 0
}
complete -o default -F _whsvc_complete whsvc
`,
  zsh: `#compdef whsvc
# whsvc completion for zsh: eval "$(whsvc completion zsh)" in ~/.zshrc
_whsvc_complete() {
  local -a candidates
  candidates=("\${(@f)$(whsvc __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -Q -- \${candidates[@]}
}
compdef _whsvc_complete whsvc
`,
  fish: `# whsvc completion for fish: whsvc completion fish > ~/.config/fish/completions/whsvc.fish
complete -c whsvc -f -a '(whsvc __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`,
};

export function script(shell: string): string {
  if (!(SHELLS as readonly string[]).includes(shell)) throw usageError(notOneOf('shell', shell, SHELLS));
  return SCRIPTS[shell as (typeof SHELLS)[number]];
}

const VALUE_CHOICES: Record<string, 'events' | string[]> = {
  '--events': 'events',
  '--add-events': 'events',
  '--remove-events': 'events',
  '--event': 'events',
  '--status': ['delivered', 'failed', 'pending'],
  '--active': ['true', 'false'],
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
  const valueFlag = previous && visibleOptions(command).find((o) => o.long === previous && (o.required || o.optional));
  if (valueFlag) {
    const choices = VALUE_CHOICES[valueFlag.long!];
    if (choices === 'events') {
      // Comma lists: complete the last item, keeping what is already typed.
      const done = current.includes(',') ? current.slice(0, current.lastIndexOf(',') + 1) : '';
      const partial = current.slice(done.length);
      const already = done.split(',').filter(Boolean);
      return (await eventTypes()).filter((t) => t.startsWith(partial) && !already.includes(t)).map((t) => done + t);
    }
    return (choices ?? []).filter((c) => c.startsWith(current));
  }
  if (current.startsWith('-')) {
    return visibleOptions(command)
      .map((o) => o.long)
      .filter((name): name is string => Boolean(name?.startsWith(current)));
  }
  return command.commands
    .filter((c) => !isHidden(c) && c.name() !== 'help')
    .map((c) => c.name())
    .filter((name) => name.startsWith(current));
}

export async function printCandidates(program: CommandUnknownOpts, words: string[], io: Io, eventTypes: () => Promise<string[]>): Promise<number> {
  for (const candidate of await candidates(program, words, eventTypes)) io.stdout.write(`${sanitize(candidate)}\n`);
  return 0;
}
