import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/verify/verify.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const verify = verb(['verify'], command);
const SIGNATURE = `sha256=${'ab'.repeat(32)}`;

describe('verify: flags', () => {
  it('the signature is required; the secrets repeat; the payload from a file, or stdin without one', async () => {
    expect(await verify.options(['--signature', SIGNATURE, '--secret-file', 'old.txt', '--secret-file', 'new.txt'])).toEqual({
      signature: SIGNATURE,
      secret: undefined,
      secretFiles: ['old.txt', 'new.txt'],
      payloadFile: undefined,
      json: false,
    });
    expect(await verify.options(['--signature', SIGNATURE, '--secret', 'whsec_x', '--payload-file', 'body.json', '--json'])).toEqual({
      signature: SIGNATURE,
      secret: 'whsec_x',
      secretFiles: undefined,
      payloadFile: 'body.json',
      json: true,
    });
    expect(await verify.refused(['--secret-file', 'whsec.txt'])).toEqual({
      code: 2,
      stderr: `whsvc: --signature is required\n${SEE_HELP}`,
    });
  });

  const digits = 'ab'.repeat(32);
  it.each([
    ['63 hex digits', `sha256=${digits.slice(1)}`, `whsvc: --signature sha256=${digits.slice(1, 17)}… has 63 hex digits after sha256=, not 64`],
    ['a sha1= prefix', `sha1=${digits.slice(0, 40)}`, `whsvc: --signature sha1=${digits.slice(0, 18)}… starts with sha1=, not sha256=`],
    ['empty', '', 'whsvc: --signature is empty'],
    [
      'a letter that is not hex',
      `sha256=${digits.slice(1)}x`,
      `whsvc: --signature sha256=${digits.slice(1, 17)}… has "x" after sha256=, which is not a hex digit`,
    ],
  ])('a --signature with %s is refused, saying what is wrong with it', async (_label, given, line) => {
    const { code, stderr } = await verify.refused(['--signature', given, '--secret', 'whsec_x']);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(line);
  });

  it('a value that cannot be a signature is refused, shown short and printable', async () => {
    expect(await verify.refused(['--signature', 'a'.repeat(64), '--secret-file', 'whsec.txt'])).toEqual({
      code: 2,
      stderr: `whsvc: --signature aaaaaaaaaaaaaaaaaaaaaaa… has no sha256= before its 64 hex digits\nhint: a signature is the X-…-Signature value as received: sha256= and 64 hex digits\n`,
    });
    expect((await verify.refused(['--signature', ' ', '--secret-file', 'whsec.txt'])).stderr.split('\n')[0]).toMatch(/^whsvc: --signature /);
    expect((await verify.refused(['--signature', 'sha256=\u001b[31m', '--secret-file', 'whsec.txt'])).stderr).not.toContain('\u001b');
  });

  it('an empty secret file is refused; stdin is read once, for a secret or the payload', async () => {
    expect(await verify.refused(['--signature', SIGNATURE, '--secret-file', ''])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-file is empty: give the path of the file that holds the secret\n',
    });
    expect(await verify.refused(['--signature', SIGNATURE, '--secret-file', 'a.txt', '--secret-file', '-'])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-file - and the payload (without --payload-file) both read stdin, which can be read once: give one of them a file\n',
    });
    expect((await verify.refused(['--signature', SIGNATURE, '--secret-file', '-', '--payload-file', '-'])).stderr).toBe(
      'whsvc: --secret-file - and --payload-file - both read stdin, which can be read once: give one of them a file\n',
    );
    expect(await verify.options(['--signature', SIGNATURE, '--secret-file', '-', '--payload-file', 'body.json'])).toMatchObject({ secretFiles: ['-'] });
  });
});
