import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/completion/completion.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const completion = verb(['completion'], command);

describe('completion: flags', () => {
  it('a shell: bash, zsh, fish or powershell', async () => {
    for (const shell of ['bash', 'zsh', 'fish', 'powershell']) expect(await completion.options([shell])).toEqual({ shell });
  });

  it('another shell, or none, is a usage error', async () => {
    expect(await completion.refused(['tcsh'])).toEqual({ code: 2, stderr: 'whsvc: shell "tcsh" is not one of bash, zsh, fish, powershell\n' });
    expect((await completion.refused(['bsah'])).stderr).toBe('whsvc: shell "bsah" is not one of bash, zsh, fish, powershell; did you mean bash?\n');
    expect(await completion.refused([])).toEqual({ code: 2, stderr: `whsvc: <shell> is required\n${SEE_HELP}` });
  });
});
