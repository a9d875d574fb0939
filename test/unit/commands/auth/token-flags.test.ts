import { describe, it } from 'vitest';
import { command } from '../../../../src/commands/auth/token.js';
import { expectNothingTaken, verb } from '../../../helpers/verb.js';

describe('auth token: flags', () => {
  it('takes no flag of its own, nor any argument', async () => {
    await expectNothingTaken(verb(['auth', 'token'], command), 'token');
  });
});
