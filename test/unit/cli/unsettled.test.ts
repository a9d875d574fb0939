import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { UNSETTLED, unsettledExit } from '../../../src/cli/unsettled.js';

const never = () => new Promise<never>(() => {});

/** A report that keeps what it was told, and fails as the default one does (exit 1). */
function kept(said: string[]) {
  return (message: string) => {
    said.push(message);
    return 1;
  };
}

describe('unsettledExit: the guard for beforeExit', () => {
  it('a command still pending when the loop empties fails: one line, its code the exit code', () => {
    const said: string[] = [];
    const target: { exitCode?: number | string | null | undefined } = {};
    const onBeforeExit = unsettledExit(never(), kept(said), target);
    onBeforeExit();
    expect([said, target.exitCode]).toEqual([[UNSETTLED], 1]);
    // beforeExit again (what the line scheduled has run): said once.
    onBeforeExit();
    expect(said).toHaveLength(1);
  });

  it('a command that settled, either way, is left alone', async () => {
    for (const command of [Promise.resolve(0), Promise.reject(new Error('reported elsewhere'))]) {
      const said: string[] = [];
      const target = { exitCode: 0 };
      const onBeforeExit = unsettledExit(command, kept(said), target);
      await command.catch(() => {});
      onBeforeExit();
      expect([said, target.exitCode]).toEqual([[], 0]);
    }
  });

  it('in a real process: a promise left pending with an empty event loop is exit 1 and one line, not exit 0 and nothing', async () => {
    // A program as main.ts would wire it, built from the source as the bundle is, and loaded as bin/whsvc.cjs loads
    // dist/main.js: by import() from CommonJS, where Node says nothing of a top-level await left pending, and exits 0.
    const entry = `
      import { unsettledExit } from ${JSON.stringify(fileURLToPath(new URL('../../../src/cli/unsettled.ts', import.meta.url)))};
      const run = new Promise(() => {});
      process.on('beforeExit', unsettledExit(run, (message) => { process.stderr.write('whsvc: ' + message + '\\n'); return 1; }, process));
      await run;`;
    const bundled = await build({
      stdin: { contents: entry, loader: 'ts', resolveDir: process.cwd() },
      bundle: true,
      format: 'esm',
      platform: 'node',
      write: false,
    });
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-unsettled-'));
    const main = join(dir, 'main.mjs');
    writeFileSync(main, bundled.outputFiles[0]!.text);
    const child = spawn(process.execPath, ['-e', `import(${JSON.stringify(pathToFileURL(main).href)})`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    rmSync(dir, { recursive: true, force: true });
    expect({ code, stdout, stderr }).toEqual({ code: 1, stdout: '', stderr: `whsvc: ${UNSETTLED}\n` });
  });
});
