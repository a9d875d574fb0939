import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';

/** Every command a user can ask help for (not commander's own `help`, nor hidden ones). */
function commandsOf(command: Command, path: string[] = []): Array<{ path: string; command: Command }> {
  return command.commands
    .filter((sub) => sub.name() !== 'help' && !(sub as unknown as { _hidden?: boolean })._hidden)
    .flatMap((sub) => [{ path: [...path, sub.name()].join(' '), command: sub }, ...commandsOf(sub, [...path, sub.name()])]);
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

describe('--help', () => {
  const all = commandsOf(buildProgram());

  it('covers every command', () => {
    expect(all.map((c) => c.path)).toEqual(
      expect.arrayContaining(['sandbox start', 'login', 'logout', 'auth list', 'auth status', 'webhooks list', 'webhooks delete', 'deliveries retry', 'events', 'test', 'listen', 'verify', 'completion']),
    );
  });

  it.each(all.map((c) => [c.path, c.command] as const))('whsvc %s --help shows the global options and an example', (path, command) => {
    const help = helpOf(command);
    expect(help).toMatch(/^Global Options:$/m);
    expect(help).toContain('--json');
    expect(help).toContain('--profile <name>');
    expect(help).toMatch(new RegExp(`^Examples?:\\n {2}(whsvc ${path.split(' ')[0]}|\\S.*whsvc ${path.split(' ')[0]})`, 'm'));
  });
});
