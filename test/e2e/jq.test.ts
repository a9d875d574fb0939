import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, sandboxEnv } from '../helpers/cli.js';
import { startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// --jq where only a process shows it: Ctrl-C to a process whose thread jq holds. What --jq prints, and its errors:
// test/integration/jq.test.ts. The sandbox is only the service the process asks here: in-process.

let sandbox: SandboxInProcess;
let workDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-jq-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('--jq', () => {
  it('a jq program that never ends still stops at Ctrl-C (jq holds the thread: the system ends the process)', async () => {
    const env = sandboxEnv(sandbox.info, join(workDir, 'config'));
    const child = spawn(process.execPath, [WHSVC_BIN, 'webhooks', 'list', '--jq', 'last(range(1e18))'], { env: { ...process.env, ...env } });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
    // Inside jq for sure once the process has spent a second of CPU: starting and the request take a fraction of that.
    const cpuSeconds = () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    await expect.poll(cpuSeconds, { timeout: 60_000, interval: 50 }).toBeGreaterThan(1);
    child.kill('SIGINT');
    expect(await exited).toEqual({ code: null, signal: 'SIGINT' });
  });
});
