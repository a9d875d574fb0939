import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addVerbs } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { command as clock } from './clock.js';
import { command as start } from './start.js';
import { command as trigger } from './trigger.js';

/** Defines `sandbox start`, `sandbox clock` and `sandbox trigger`. */
export function register(program: CommandUnknownOpts): void {
  const sandbox = program
    .command('sandbox')
    .description('run the service locally, and make events occur in it')
    .addHelpText('after', examples('whsvc sandbox start', 'whsvc sandbox trigger invoice.paid'));
  addVerbs(sandbox, start(), clock(), trigger());
}
