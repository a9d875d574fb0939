import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN } from '../helpers/cli.js';

let server: Server;
let baseUrl: string;
let workDir: string;
let createArrived: () => void;
const arrived = new Promise<void>((resolve) => (createArrived = resolve));

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-int-'));
  // A service that hands out tokens and the catalog, then never answers the create.
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/oauth/token') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"t","token_type":"Bearer","expires_in":3600}');
      } else if (req.url === '/v1/webhooks/webhook-events') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"type":"invoice.paid","module":"finance","desc":"x"}]}');
      } else {
        createArrived();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(workDir, { recursive: true, force: true });
});

describe('Ctrl-C', () => {
  it('exits 130 and leaves no secret file behind when the create is interrupted', async () => {
    const secretFile = join(workDir, 'whsec.txt');
    const child = spawn(
      process.execPath,
      [WHSVC_BIN, 'webhooks', 'create', '--url', 'https://example.com/h', '--events', 'invoice.paid', '--secret-file', secretFile],
      {
        env: {
          ...process.env,
          WHSVC_CONFIG_DIR: join(workDir, 'config'),
          WHSVC_BASE_URL: baseUrl,
          WHSVC_CLIENT_ID: 'a',
          WHSVC_CLIENT_SECRET: 'b',
          NO_COLOR: '1',
        },
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await arrived;
    expect(existsSync(secretFile)).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(existsSync(secretFile)).toBe(false);
    expect(stderr).toContain('interrupted');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
