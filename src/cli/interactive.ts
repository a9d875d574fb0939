import { Option } from '@commander-js/extra-typings';
import type { Io } from './deps.js';
import { usageError } from './errors.js';

/** -i, --interactive: the full-screen view of the commands that run until stopped (listen, deliveries tail). */
export const interactiveOption = (what: string) =>
  new Option('-i, --interactive', `a full-screen view of the deliveries: select one, read it whole, ${what}, filter, pause (? lists the keys)`);

/**
 * The screen is drawn for a person at a terminal, and read from its keys: --json (lines for a program), or a stdout
 * or stdin that is no terminal, is a usage error that says why, before anything is started.
 */
export function checkInteractive(json: boolean, io: Pick<Io, 'stdin' | 'stdout'>): void {
  if (json) throw usageError('--interactive draws a screen for a person and --json writes lines for a program: give one of them');
  if (!io.stdout.isTTY) {
    throw usageError(
      '--interactive draws a full screen, and stdout is not a terminal (a pipe or a file)',
      'leave out --interactive to get one line per delivery',
    );
  }
  if (!io.stdin.isTTY) throw usageError('--interactive reads its keys from stdin, which is not a terminal', 'run it in a terminal, with nothing piped in');
}
