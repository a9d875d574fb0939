import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addVerbs } from '../../cli/actions.js';
import { command as events } from './list.js';
import { command as test } from './test.js';

/** Defines `events` (also as `events list`) and `test`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, events(), test());
}
