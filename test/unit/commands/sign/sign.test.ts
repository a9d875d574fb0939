import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, type SignOptions } from '../../../../src/commands/sign/sign.js';
import { Collector, fakeStdin } from '../../../helpers/fake-deps.js';
import { signatureOf } from '../../../helpers/delivery.js';
import { PrintedJson } from '../../../../src/cli/json-output.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-sign-'));
  writeFileSync(join(dir, 'whsec.txt'), 'whsec_sign_test\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function sign(options: Partial<SignOptions>, stdin = '') {
  const stdout = new Collector();
  const stderr = new Collector();
  const code = await run(
    { secretFile: join(dir, 'whsec.txt'), platformName: 'Service', json: false, ...options },
    { stdin: fakeStdin(stdin), stdout, stderr, env: {}, jsonOut: new PrintedJson(stdout) },
  );
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('whsvc sign', () => {
  // Its bytes as they are: a space, a newline and a BOM are all signed.
  const body = '\uFEFF{ "id": "inv_1" }\n';

  it('prints sha256=<hex HMAC-SHA256 of the exact bytes>, from stdin or a file', async () => {
    expect(await sign({}, body)).toEqual({ code: 0, stdout: `${signatureOf('whsec_sign_test', body)}\n`, stderr: '' });
    writeFileSync(join(dir, 'body.json'), body);
    expect((await sign({ payloadFile: join(dir, 'body.json') })).stdout).toBe(`${signatureOf('whsec_sign_test', body)}\n`);
  });

  it('--json adds the header it goes in, under the platform name', async () => {
    const { stdout } = await sign({ json: true, platformName: 'Acme' }, body);
    const signature = signatureOf('whsec_sign_test', body);
    expect(JSON.parse(stdout)).toEqual({ signature, header: { name: 'X-Acme-Signature', value: signature }, body_bytes: Buffer.byteLength(body) });
  });

  it('a terminal on stdin, or no such file: a usage error (both from stdin: sign-flags)', async () => {
    const stdout = new Collector();
    await expect(
      run(
        { secretFile: join(dir, 'whsec.txt'), platformName: 'Service', json: false },
        { stdin: fakeStdin('', true), stdout, stderr: stdout, env: {}, jsonOut: new PrintedJson(stdout) },
      ),
    ).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^no payload/) });
    await expect(sign({ payloadFile: join(dir, 'none.json') })).rejects.toMatchObject({
      exitCode: 2,
      message: `--payload-file ${join(dir, 'none.json')}: no such file`,
    });
  });
});
