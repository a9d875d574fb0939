import { describe, it } from 'vitest';
import { command } from '../../../../src/commands/auth/logout.js';
import { expectNothingTaken, verb } from '../../../helpers/verb.js';

describe('logout: flags', () => {
  it('takes no flag of its own, nor any argument', async () => {
    await expectNothingTaken(verb(['logout'], command), 'logout');
  });
});
