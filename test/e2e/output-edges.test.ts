import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, sandboxEnv, startSandboxProcess, startWhsvc, type SandboxProcess } from '../helpers/cli.js';
import { getToken, postWebhook } from '../helpers/http.js';
import { canMakeDeviceNodes, privateFullDevice } from '../helpers/bad-files.js';

// What only a process shows of its output: a reader that closes the pipe, a full device as stdout. Ids that cannot be
// ids are in-process (test/integration/output-edges.test.ts).

let sandbox: SandboxProcess;
let configDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-edges-'));
  env = sandboxEnv(sandbox.info, configDir);
  const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
  for (let i = 0; i < 30; i++) await postWebhook(sandbox.info.base_url, token, `http://127.0.0.1:9/h${i}`, ['invoice.paid'], { active: false });
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

/** Runs whsvc with its stdout read until the first line, then closed, as `| head -1` does. */
async function firstLineThenClose(args: string[]): Promise<{ code: number | null; line: string; stderr: string }> {
  const run = startWhsvc(args, { env });
  const line = await run.until(() => /^.*\n/.exec(run.stdout())?.[0], 'a first line');
  run.child.stdout!.destroy();
  await run.until(() => run.child.exitCode !== null || run.child.signalCode !== null, 'its exit, once its reader left,', 30_000);
  return { code: await run.exit, line: line.trimEnd(), stderr: run.stderr() };
}

describe('a reader that goes away (| head -1)', () => {
  it('webhooks list --all --limit 5, with --json or without, ends quietly with exit 0, fetching no more pages', async () => {
    for (const [args, first] of [
      [['webhooks', 'list', '--all', '--limit', '5'], /^wh_\w+\thttp/],
      [['webhooks', 'list', '--all', '--limit', '5', '--json'], /^\{$/],
    ] as const) {
      const result = await firstLineThenClose([...args]);
      expect(result.line, args.join(' ')).toMatch(first);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stderr, args.join(' ')).toBe('');
    }
  });
});

describe.skipIf(!canMakeDeviceNodes())('a full disk', () => {
  it('is one line and exit 1, never a stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-full-'));
    try {
      // The output on a device of the test's own that is always full, as /dev/full is.
      const full = openSync(privateFullDevice(dir), 'w');
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [WHSVC_BIN, 'webhooks', 'list', '--limit', '50'], {
          env: { ...process.env, ...env },
          stdio: ['ignore', full, 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
        child.on('close', (code) => resolve({ code, stderr }));
      });
      closeSync(full);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('whsvc: cannot write the output: no space left on the device (ENOSPC)\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
