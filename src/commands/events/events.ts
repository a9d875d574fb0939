import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addHiddenVerbs, addVerbs } from '../../cli/actions.js';
import { command as events } from './list.js';
import { command as test } from './test.js';

/** Defines `events` (also as `events list`) and `test`. */
export function register(program: CommandUnknownOpts): void {
  const catalog = events();
  addVerbs(program, catalog, test());
  // `whsvc events list`, as a group's list is typed: the catalog too.
  addHiddenVerbs(catalog, events('list'));
}
