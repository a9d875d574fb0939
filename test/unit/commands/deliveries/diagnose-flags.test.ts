import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/deliveries/diagnose.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const diagnose = verb(['deliveries', 'diagnose'], command);

describe('deliveries diagnose: flags', () => {
  it('a delivery id; the secret, the record file and the platform name to its options', async () => {
    expect(await diagnose.options(['dlv_1'])).toEqual({ id: 'dlv_1', secretFile: undefined, record: undefined, platformName: 'Service' });
    expect(await diagnose.options(['dlv_1', '--secret-file', '-', '--record', 'd.ndjson', '--platform-name', 'Acme'])).toEqual({
      id: 'dlv_1',
      secretFile: '-',
      record: 'd.ndjson',
      platformName: 'Acme',
    });
  });

  it('a platform name that cannot name a header is refused', async () => {
    expect(await diagnose.refused(['dlv_1', '--platform-name', 'X Y'])).toEqual({
      code: 2,
      stderr: `whsvc: --platform-name 'X Y': must be letters, digits and dashes, starting with a letter (at most 40)\n${SEE_HELP}`,
    });
  });
});
