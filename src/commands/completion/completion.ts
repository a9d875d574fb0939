import type { Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { fetchCatalog } from '../../cli/catalog.js';
import { buildDeps, readGlobals } from '../../cli/context.js';
import { processIo } from '../../cli/deps.js';
import { inquirerPrompter } from '../../cli/prompter.js';
import { printCandidates, script } from './run.js';

/** Defines `completion` and the hidden `__complete` its scripts call. */
export function register(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', examples('eval "$(whsvc completion bash)"          # in ~/.bashrc', 'whsvc completion fish > ~/.config/fish/completions/whsvc.fish'))
    .action(async (shell: string) => {
      process.stdout.write(script(shell));
    });

  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async () => {
      // The scripts pass the words after `--`, taken raw so that no word is parsed as an option of ours.
      const separator = process.argv.indexOf('--');
      const words = separator < 0 ? [] : process.argv.slice(separator + 1);
      const eventTypes = async () => {
        const deps = await buildDeps({ ...readGlobals({}, process.env), requestTimeoutMs: 2000 }, processIo(), inquirerPrompter);
        const cached = deps.config.readCatalog(deps.api.baseUrl);
        if (cached) return cached.data.map((e) => e.type);
        return (await fetchCatalog(deps).catch(() => [])).map((e) => e.type);
      };
      process.exitCode = await printCandidates(program, words.length === 0 ? [''] : words, processIo(), eventTypes);
    });
}
