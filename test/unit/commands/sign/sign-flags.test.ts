import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/sign/sign.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const sign = verb(['sign'], command);

describe('sign: flags', () => {
  it('the secret file is required; the payload from a file, or stdin without one', async () => {
    expect(await sign.options(['--secret-file', 'whsec.txt'])).toEqual({
      secretFile: 'whsec.txt',
      payloadFile: undefined,
      platformName: 'Service',
      json: false,
    });
    expect(await sign.options(['--secret-file', 'whsec.txt', '--payload-file', '-', '--platform-name', 'Acme', '--json'])).toEqual({
      secretFile: 'whsec.txt',
      payloadFile: '-',
      platformName: 'Acme',
      json: true,
    });
    expect(await sign.options(['--secret-file', '-', '--payload-file', 'body.json'])).toMatchObject({ secretFile: '-', payloadFile: 'body.json' });
    expect(await sign.refused([])).toEqual({ code: 2, stderr: `whsvc: --secret-file is required\n${SEE_HELP}` });
  });

  it('one secret, never empty; stdin is read once, for the secret or the payload', async () => {
    expect(await sign.refused(['--secret-file', 'a', '--secret-file', 'b'])).toEqual({
      code: 2,
      stderr: `whsvc: --secret-file b: is given twice: sign uses one secret\n${SEE_HELP}`,
    });
    expect(await sign.refused(['--secret-file', ''])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-file is empty: give the path of the file that holds the secret\n',
    });
    expect(await sign.refused(['--secret-file', '-'])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-file - and the payload (without --payload-file) both read stdin, which can be read once: give one of them a file\n',
    });
    expect((await sign.refused(['--secret-file', '-', '--payload-file', '-'])).stderr).toBe(
      'whsvc: --secret-file - and --payload-file - both read stdin, which can be read once: give one of them a file\n',
    );
  });
});
