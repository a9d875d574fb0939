import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';

/** Every command a user can ask help for (not commander's own `help`, nor hidden ones). */
function commandsOf(command: Command, path: string[] = []): Array<{ path: string; command: Command }> {
  return command.commands
    .filter((sub) => sub.name() !== 'help' && !(sub as unknown as { _hidden?: boolean })._hidden)
    .flatMap((sub) => [{ path: [...path, sub.name()].join(' '), command: sub }, ...commandsOf(sub, [...path, sub.name()])]);
}

function helpOf(command: Command, width = 80): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), getOutHelpWidth: () => width });
  command.outputHelp();
  return text;
}

describe('--help', () => {
  const all = commandsOf(buildProgram());

  it('covers every command', () => {
    expect(all.map((c) => c.path)).toEqual(
      expect.arrayContaining([
        'sandbox start',
        'login',
        'logout',
        'auth list',
        'auth status',
        'webhooks list',
        'webhooks delete',
        'deliveries retry',
        'events',
        'test',
        'listen',
        'verify',
        'completion',
      ]),
    );
  });

  it.each(all.map((c) => [c.path, c.command] as const))('whsvc %s --help shows the global options and an example', (path, command) => {
    const help = helpOf(command);
    expect(help).toMatch(/^Global Options:$/m);
    expect(help).toContain('--json');
    expect(help).toContain('--profile <name>');
    expect(help).toMatch(new RegExp(`^Examples?:\\n {2}(# .*\\n {2})?(whsvc ${path.split(' ')[0]}|\\S.*whsvc ${path.split(' ')[0]})`, 'm'));
  });

  it('no command has an option of the same name as a global one', () => {
    const program = buildProgram();
    const globals = new Set(program.options.flatMap((option) => [option.long, option.short]).filter(Boolean));
    const shadowing = all.flatMap(({ path, command }) =>
      command.options
        .flatMap((option) => [option.long, option.short])
        .filter((flag) => flag !== '--help' && flag !== '-h' && globals.has(flag))
        .map((flag) => `${path} ${flag}`),
    );
    expect(shadowing).toEqual([]);
  });

  it('a group lists its commands before its options and the inherited ones', () => {
    // A group: a command with subcommands it lists (`events list`, gh's form of `events`, is hidden).
    for (const { path, command } of all.filter((c) => c.command.commands.some((sub) => !(sub as unknown as { _hidden?: boolean })._hidden))) {
      const help = helpOf(command);
      expect(help.indexOf('\nCommands:'), path).toBeGreaterThan(0);
      expect(help.indexOf('\nCommands:'), path).toBeLessThan(help.indexOf('\nOptions:'));
      expect(help.indexOf('\nOptions:'), path).toBeLessThan(help.indexOf('\nGlobal Options:'));
    }
  });

  it.each([60, 80, 120])('at %i columns no example is cut, and each still reads as the whole command', (width) => {
    // Every word of every example, wherever the lines were broken (a comment's `#` and a continuation's `\` aside).
    const words = (lines: string[]) =>
      lines
        .join(' ')
        .split(/\s+/)
        .filter((word) => word !== '' && word !== '#' && word !== '\\')
        .sort();
    for (const { path, command } of [{ path: 'whsvc', command: buildProgram() }, ...all]) {
      const lines = examplesOf(helpOf(command, width));
      for (const line of lines) expect(line.length, `${path}: ${line}`).toBeLessThanOrEqual(width);
      expect(words(lines), path).toEqual(words(examplesOf(helpOf(command, 200))));
    }
  });
});

/** The lines of a help's Examples block. */
function examplesOf(help: string): string[] {
  const start = help.search(/^Examples?:$/m);
  return help
    .slice(start)
    .split('\n')
    .slice(1)
    .filter((_line, i, lines) => lines.slice(0, i + 1).every((l) => l.startsWith('  ')));
}
