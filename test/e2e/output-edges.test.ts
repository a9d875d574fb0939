import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, runCli, startSandboxProcess, type SandboxProcess } from '../helpers/cli.js';
import { getToken, http } from '../helpers/http.js';

let sandbox: SandboxProcess;
let configDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-edges-'));
  env = {
    WHSVC_CONFIG_DIR: configDir,
    WHSVC_BASE_URL: sandbox.info.base_url,
    WHSVC_CLIENT_ID: sandbox.info.client_id,
    WHSVC_CLIENT_SECRET: sandbox.info.client_secret,
    CI: 'true',
  };
  const token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
  for (let i = 0; i < 30; i++) {
    const created = await http(sandbox.info.base_url, 'POST', '/v1/webhooks', {
      token,
      body: { url: `http://127.0.0.1:9/h${i}`, events: ['invoice.paid'], active: false },
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

/** Runs whsvc with its stdout read until the first line, then closed, as `| head -1` does. */
function firstLineThenClose(args: string[]): Promise<{ code: number | null; line: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WHSVC_BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      if (out.includes('\n')) child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`whsvc ${args.join(' ')} went on after its reader left: ${stderr}`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, line: out.split('\n')[0]!, stderr });
    });
  });
}

describe('a reader that goes away (| head -1)', () => {
  it.each([
    ['webhooks list --all --limit 5', ['webhooks', 'list', '--all', '--limit', '5'], /^wh_\w+\thttp/],
    ['webhooks list --all --limit 5 --json', ['webhooks', 'list', '--all', '--limit', '5', '--json'], /^\{$/],
  ])('%s ends quietly with exit 0, fetching no more pages', async (_name, args, first) => {
    const result = await firstLineThenClose(args);
    expect(result.line).toMatch(first);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });
});

describe('a full disk', () => {
  it('is one line and exit 1, never a stack trace', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(`${process.execPath} ${WHSVC_BIN} webhooks list --limit 50 > /dev/full`, { shell: true, env: { ...process.env, ...env } });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('whsvc: cannot write the output: no space left on the device (ENOSPC)\n');
  });
});

describe('ids that cannot be ids', () => {
  it.each([
    [['webhooks', 'get', 'webhook-events'], /"webhook-events" is not a webhook id: it is the path of the event catalog/],
    [['webhooks', 'delete', 'webhook-deliveries', '--yes'], /"webhook-deliveries" is not a webhook id/],
    [['deliveries', 'list', '..'], /"\.\." is not a webhook id/],
    [['deliveries', 'show', '.'], /"\." is not a delivery id/],
    [['test', ''], /a webhook id cannot be empty/],
  ])('whsvc %j is a usage error before any request', async (args, message) => {
    const result = await runCli(args, { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
  });
});
