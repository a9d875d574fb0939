import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addVerbs } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { command as diagnose } from './diagnose.js';
import { command as list } from './list.js';
import { command as recover } from './recover.js';
import { command as retry } from './retry.js';
import { command as show } from './show.js';
import { command as tail } from './tail.js';

/** Defines `deliveries list|show|diagnose|retry|recover|tail`. */
export function register(program: CommandUnknownOpts): void {
  const deliveries = program
    .command('deliveries')
    .description('the delivery attempt log, and retries')
    .addHelpText('after', examples('whsvc deliveries list wh_… --status failed', 'whsvc deliveries retry dlv_…'));
  addVerbs(deliveries, list(), show(), diagnose(), retry(), recover(), tail());
}
