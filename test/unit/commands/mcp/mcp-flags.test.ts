import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/mcp/mcp.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const mcp = verb(['mcp'], command);
const dir = mkdtempSync(join(tmpdir(), 'whsvc-mcp-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mcp: flags', () => {
  it('each flag to its option; a --secret-dir that is not there yet is made at the first create', async () => {
    expect(await mcp.options([])).toEqual({ readOnly: false, secretDir: undefined });
    expect(await mcp.options(['--read-only', '--secret-dir', join(dir, 'later')])).toEqual({ readOnly: true, secretDir: join(dir, 'later') });
    expect(await mcp.refused(['--readonly'])).toEqual({ code: 2, stderr: `whsvc: unknown option --readonly; did you mean --read-only?\n${SEE_HELP}` });
  });

  it('refuses before serving: --jq (stdout is the protocol), an empty --secret-dir, and one that is a file', async () => {
    const jq = await mcp.refused(['--jq', '.']);
    expect(jq.code).toBe(2);
    expect(jq.stderr).toMatch(/^whsvc: --jq has no place with mcp: its stdout speaks the Model Context Protocol\n/);
    expect(await mcp.refused(['--secret-dir', ''])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-dir is empty: give the directory to write the signing secrets to\n',
    });
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(await mcp.refused(['--secret-dir', file])).toEqual({
      code: 2,
      stderr: `whsvc: --secret-dir ${file} is a regular file, not a directory\nhint: give the path of a directory, or of one to create\n`,
    });
  });
});
