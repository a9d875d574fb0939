import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addHiddenVerbs, addVerbs } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { command as list } from './list.js';
import { command as login } from './login.js';
import { command as logout } from './logout.js';
import { command as status } from './status.js';
import { command as token } from './token.js';

/** Defines `login`, `logout`, `auth list`, `auth status` and `auth token`; `auth login` and `auth logout` too, gh's form. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, login(), logout());
  const auth = program
    .command('auth')
    .description('credentials and tokens')
    .addHelpText('after', examples('whsvc auth list', 'whsvc auth status --check', 'whsvc auth login --client-id ID   # the same as whsvc login'));
  addVerbs(auth, list(), status(), token());
  addHiddenVerbs(auth, login(), logout());
}
