import { describe, it } from 'vitest';
import { command } from '../../../../src/commands/auth/list.js';
import { expectNothingTaken, verb } from '../../../helpers/verb.js';

describe('auth list: flags', () => {
  it('takes no flag of its own, nor any argument', async () => {
    await expectNothingTaken(verb(['auth', 'list'], command), 'list');
  });
});
