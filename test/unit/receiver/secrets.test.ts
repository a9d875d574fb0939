import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../../src/cli/errors.js';
import { currentSecrets, describeSecrets, requiredSecrets, secretSource, secretSources } from '../../../src/receiver/secrets.js';

// --secret-file as every command reads it: a regular file, read again when it changes (or - for stdin); never a read
// that waits forever on what nobody writes to.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-secret-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// No test here reads stdin: a file is named each time.
const io = { env: {}, stdin: process.stdin };

describe('--secret-file', () => {
  it('a regular file is read, and read again once it changes', async () => {
    const path = join(dir, 'whsec.txt');
    writeFileSync(path, '');
    const source = await secretSource({ secretFile: path }, io);
    expect(source.current()).toBeUndefined();
    writeFileSync(path, 'whsec_now\n');
    expect(source.current()).toBe('whsec_now');
  });

  it('a FIFO (nobody writing to it) or a directory is a usage error at once, not a wait', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(secretSource({ secretFile: fifo }, io)).rejects.toThrow(CliError);
    await expect(secretSource({ secretFile: fifo }, io)).rejects.toThrow(`--secret-file ${fifo} is not a regular file`);
    const directory = join(dir, 'dir');
    mkdirSync(directory);
    await expect(secretSource({ secretFile: directory }, io)).rejects.toThrow(`--secret-file ${directory} is a directory`);
  });
});

describe('a signing secret as pasted', () => {
  it('whitespace at its ends is no part of it, from --secret, a variable or a file alike', async () => {
    expect((await secretSource({ secret: 'whsec_abc \r\n' }, io)).current()).toBe('whsec_abc');
    expect((await secretSource({}, { ...io, env: { WHSVC_LISTEN_SECRET: '\twhsec_abc ' } }, 'WHSVC_LISTEN_SECRET')).current()).toBe('whsec_abc');
    const path = join(dir, 'whsec.txt');
    writeFileSync(path, '  whsec_abc\r\n');
    expect((await secretSource({ secretFile: path }, io)).current()).toBe('whsec_abc');
    await expect(secretSource({ secret: '  ' }, io)).rejects.toThrow('--secret is empty');
  });
});

describe('--secret-file more than once (a receiver moving to a new secret)', () => {
  it('each file is a secret of its own, named by its path; described together; those written so far are current', async () => {
    const old = join(dir, 'old.txt');
    const next = join(dir, 'new.txt');
    writeFileSync(old, 'whsec_old\n');
    const sources = await secretSources({ secretFiles: [old, next] }, io);
    expect(sources.map((source) => source.name)).toEqual([old, next]);
    expect(describeSecrets(sources)).toBe(`the secrets in ${old} and ${next} (any of them verifies)`);
    expect(currentSecrets(sources)).toEqual([{ name: old, secret: 'whsec_old' }]);
    writeFileSync(next, 'whsec_new');
    expect(currentSecrets(sources)).toEqual([
      { name: old, secret: 'whsec_old' },
      { name: next, secret: 'whsec_new' },
    ]);
    // Never the secret in what describes them.
    expect(describeSecrets(sources)).not.toContain('whsec_');
  });

  it('one file twice, - twice, or --secret beside a file is a usage error; none at all is no secret', async () => {
    const path = join(dir, 'a.txt');
    writeFileSync(path, 'whsec_a');
    await expect(secretSources({ secretFiles: [path, path] }, io)).rejects.toMatchObject({ exitCode: 2, message: `--secret-file ${path} is given twice` });
    await expect(secretSources({ secretFiles: ['-', '-'] }, io)).rejects.toMatchObject({
      exitCode: 2,
      message: '--secret-file - is given twice: stdin can be read once',
    });
    await expect(secretSources({ secret: 's', secretFiles: [path] }, io)).rejects.toMatchObject({ exitCode: 2 });
    expect(await secretSources({}, io)).toEqual([]);
    expect(describeSecrets([])).toBe('no secret (signatures are not checked)');
  });

  it('requiredSecrets names the file that cannot be read', async () => {
    const path = join(dir, 'a.txt');
    writeFileSync(path, 'whsec_a');
    await expect(requiredSecrets({ secretFiles: [path, join(dir, 'missing.txt')] }, io)).rejects.toMatchObject({
      exitCode: 2,
      message: `--secret-file ${join(dir, 'missing.txt')} is not there`,
    });
    expect(await requiredSecrets({ secretFiles: [path] }, io)).toEqual([{ name: path, secret: 'whsec_a' }]);
  });
});
