import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, sandboxEnv, startSandboxProcess, WHSVC_BIN, type SandboxProcess } from '../helpers/cli.js';

// The built binary as an agent starts it: `whsvc mcp` a process of its own, spoken to over its real stdin and stdout
// by two clients: the SDK's own (v2, the one the server is built on) and mcporter, a published MCP client no one here
// wrote (built on the SDK's v1 line, which opens with the 2025 `initialize` handshake).

const execFileAsync = promisify(execFile);

let sandbox: SandboxProcess;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
  dir = mkdtempSync(join(tmpdir(), 'whsvc-mcp-e2e-'));
  env = sandboxEnv(sandbox.info, join(dir, 'config'));
  const created = await runCli(['webhooks', 'create', '--url', 'https://example.com/hook', '--events', 'invoice.paid', '--json'], { env });
  expect(created.code, created.stderr).toBe(0);
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('whsvc mcp over a real stdio', () => {
  it("serves the SDK's client: the tools, a read equal to --json's, its log on stderr", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [WHSVC_BIN, 'mcp', '--read-only'],
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
    const client = new Client({ name: 'whsvc-e2e', version: '1' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('webhooks_list');
    expect(tools.map((tool) => tool.name)).not.toContain('webhooks_delete');
    const listed = await client.callTool({ name: 'webhooks_list', arguments: {} });
    const cli = await runCli(['webhooks', 'list', '--json'], { env });
    expect(listed.structuredContent).toEqual(JSON.parse(cli.stdout));
    await client.close();
    expect(stderr).toMatch(/^whsvc mcp: \d+ tools for http:\/\/127\.0\.0\.1:\d+ on stdio$/m);
    expect(stderr).not.toContain(sandbox.info.client_secret);
  });

  it('serves mcporter, a client of the 2025 handshake: it lists the tools and calls them, an error as an error', async () => {
    const mcporter = fileURLToPath(new URL('../../node_modules/mcporter/dist/cli.js', import.meta.url));
    const server = ['--stdio', process.execPath, '--stdio-arg', WHSVC_BIN, '--stdio-arg', 'mcp', '--stdio-arg', '--read-only'];
    const envFlags = Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
    // mcporter reads its own config from the working directory and home: an empty one of the test's.
    const run = (args: string[]) => execFileAsync(process.execPath, [mcporter, ...args], { cwd: dir, env: { ...process.env, HOME: dir }, timeout: 30_000 });

    const listed = JSON.parse((await run(['list', ...server, ...envFlags, '--json'])).stdout) as { status: string; tools: Array<{ name: string }> };
    expect(listed.status).toBe('ok');
    expect(listed.tools.map((tool) => tool.name)).toContain('webhooks_health');

    const page = JSON.parse((await run(['call', ...server, ...envFlags, 'webhooks_list', 'limit:5', '--output', 'json'])).stdout);
    expect(page).toEqual(JSON.parse((await runCli(['webhooks', 'list', '--limit', '5', '--json'], { env })).stdout));

    const missing = await run(['call', ...server, ...envFlags, 'webhooks_get', 'id=wh_missing', '--output', 'json']).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(missing?.code).toBe(1);
    expect(JSON.parse(missing!.stdout)).toEqual({
      error: {
        status: 404,
        code: 'not_found',
        message: 'no webhook with id wh_missing',
        hint: 'see the webhooks and their ids: whsvc webhooks list',
        exit_code: 5,
      },
    });
  });
});
