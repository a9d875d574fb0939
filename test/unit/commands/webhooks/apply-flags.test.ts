import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/webhooks/apply.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const apply = verb(['webhooks', 'apply'], command);

describe('webhooks apply: flags', () => {
  it('-f is required; each flag to its option', async () => {
    expect(await apply.options(['-f', 'webhooks.yaml'])).toMatchObject({
      file: 'webhooks.yaml',
      dryRun: false,
      prune: false,
      yes: false,
      secretDir: undefined,
    });
    expect(await apply.options(['--file', '-', '--dry-run', '--prune', '-y', '--secret-dir', 'secrets'])).toMatchObject({
      file: '-',
      dryRun: true,
      prune: true,
      yes: true,
      secretDir: 'secrets',
    });
    expect(await apply.refused([])).toEqual({ code: 2, stderr: `whsvc: --file is required\n${SEE_HELP}` });
  });

  it('Ctrl-C is asked for as a stop after the change under way, only once the run starts', async () => {
    const { options } = await apply.ran(['-f', 'webhooks.yaml']);
    expect(options.stop).toBeTypeOf('function');
    expect(options.stop!().aborted).toBe(false);
  });

  it('an empty --secret-dir (an unset variable) is refused before the file is read', async () => {
    expect(await apply.refused(['-f', 'webhooks.yaml', '--secret-dir', ''])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-dir is empty: give the directory to write the signing secrets to\n',
    });
  });
});
