// The command reference (docs/reference.md), made from the command tree
// itself: each command's --help as whsvc prints it at 80 columns. A unit test
// (test/unit/reference.test.ts) fails when the file differs from what the tree
// makes now; `npm run reference` writes it anew.
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { buildProgram } from '../src/program.js';

const WIDTH = 80;

/** Every command under `root`, depth first, in the order help lists them; with its full name. */
function walk(command: Command, path: string[] = []): Array<{ command: Command; name: string }> {
  const name = [...path, command.name()];
  const children = command.commands.filter((child) => !(child as Command & { _hidden?: boolean })._hidden);
  return [{ command, name: name.join(' ') }, ...children.flatMap((child) => walk(child, name))];
}

/** What `whsvc … --help` prints, at WIDTH columns, with no colour. */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), getOutHelpWidth: () => WIDTH, getOutHasColors: () => false });
  command.outputHelp();
  return text.trimEnd();
}

const anchor = (name: string) => name.replace(/\s+/g, '-');

export function commandReference(): string {
  const commands = walk(buildProgram());
  const contents = commands
    .slice(1)
    .map(({ command, name }) => `- [\`${name}\`](#${anchor(name)}): ${command.description().split('\n')[0]}`)
    .join('\n');
  const sections = commands.map(({ command, name }) => `<a id="${anchor(name)}"></a>\n## \`${name}\`\n\n\`\`\`\n${helpOf(command)}\n\`\`\`\n`);
  return [
    '# whsvc command reference',
    '',
    "Every command's `--help`, as whsvc prints it at 80 columns. Made from the command tree by `npm run reference`;",
    'a test fails when this file and the tree differ. The README is the guide; this page is the whole surface.',
    '',
    contents,
    '',
    ...sections,
  ].join('\n');
}
