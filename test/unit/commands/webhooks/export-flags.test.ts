import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/webhooks/export.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const exportFlags = verb(['webhooks', 'export'], command);

describe('webhooks export: flags', () => {
  it('stdout and the whole account by default; each flag to its option; -o - is stdout', async () => {
    expect(await exportFlags.options([])).toEqual({ active: undefined, output: undefined, force: false });
    expect(await exportFlags.options(['--active', 'false', '-o', 'webhooks.yaml', '--force'])).toEqual({ active: false, output: 'webhooks.yaml', force: true });
    expect(await exportFlags.options(['--output', '-'])).toEqual({ active: undefined, output: undefined, force: false });
  });

  it('--active is true or false; -o names a file: empty, or a format word (kubectl -o json), is refused with the way', async () => {
    expect(await exportFlags.refused(['--active', 'ture'])).toEqual({
      code: 2,
      stderr: `whsvc: --active ture: use one of true, false; did you mean true?\n${SEE_HELP}`,
    });
    expect(await exportFlags.refused(['-o', ''])).toEqual({ code: 2, stderr: 'whsvc: --output is empty: give the path of the file to write\n' });
    expect(await exportFlags.refused(['-o', 'YAML'])).toEqual({
      code: 2,
      stderr: 'whsvc: --output YAML names the file to write, not a format\nhint: JSON on stdout is --json, YAML is the default; a file named YAML: -o ./YAML\n',
    });
    expect((await exportFlags.options(['-o', './json'])).output).toBe('./json');
  });
});
