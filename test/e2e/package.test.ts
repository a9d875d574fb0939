import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess } from '../helpers/cli.js';
import { startTlsFront } from '../helpers/proxy.js';
import { GATHERED_TIMEOUT, step } from '../helpers/steps.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let workDir: string;
let installedLauncher: string;
let tarball: string;

/**
 * The Node versions the installed package is run on: the oldest and newest
 * lines `engines` accepts, which .ci/run installs and names in
 * WHSVC_TEST_NODES (colon-separated); on a developer's machine without them,
 * the Node running the tests.
 */
const NODES = process.env.WHSVC_TEST_NODES ? process.env.WHSVC_TEST_NODES.split(':').filter(Boolean) : [process.execPath];
if (process.env.CI && !process.env.WHSVC_TEST_NODES)
  throw new Error('CI runs the packed package on Node 22 and 26: set WHSVC_TEST_NODES to their node binaries, as .ci/run does');
const versionOf = (node: string) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

function npm(args: string[], cwd = root): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' } });
}

/** The installed `whsvc`, run by the given Node. */
function installedOn(node: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(node, [installedLauncher, ...args], { env: { ...process.env, NO_COLOR: '1', ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

// --ignore-scripts: prepack would rebuild dist/ under the other test files' feet; globalSetup built it.
beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-pack-'));
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', workDir])) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarball = join(workDir, packed[0]!.filename);
  (globalThis as { packedFiles?: string[] }).packedFiles = packed[0]!.files.map((f) => f.path);
  const prefix = join(workDir, 'prefix');
  npm(['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball], workDir);
  installedLauncher = join(prefix, 'lib', 'node_modules', 'whsvc', 'bin', 'whsvc.cjs');
}, 180_000);

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('the published package', { timeout: GATHERED_TIMEOUT }, () => {
  it('holds only what runs (the launcher, the bundle, the README and package.json), and runs on each Node line engines accepts: --version and --help, the sandbox flow, an https service', async () => {
    await step('holds only what runs: the launcher, the bundle, the README and package.json', () => {
      const files = (globalThis as { packedFiles?: string[] }).packedFiles!;
      expect(files).toContain('bin/whsvc.cjs');
      expect(files).toContain('dist/main.js');
      expect(files).toContain('package.json');
      expect(files).toContain('README.md');
      // The bundled packages' licences go with it: their notices, dropped from the bundle, in one file.
      expect(files).toContain('dist/THIRD-PARTY-LICENSES.txt');
      const licences = readFileSync(new URL('../../dist/THIRD-PARTY-LICENSES.txt', import.meta.url), 'utf8');
      for (const name of ['commander', 'undici', 'chalk', '@modelcontextprotocol/server', 'jq-wasm'])
        expect(licences).toMatch(new RegExp(`^${name} \\S+: `, 'm'));
      expect(licences).toContain('Apache License');
      expect(files.filter((f) => !/^(bin\/|dist\/|package\.json$|README\.md$|LICENSE$)/.test(f))).toEqual([]);
      expect(files.some((f) => f.endsWith('.map') || f.startsWith('src/') || f.startsWith('test/'))).toBe(false);
    });
    // Each Node line at once: its own sandboxes, config dirs and files.
    await Promise.all(
      NODES.map(async (node) => {
        const version = versionOf(node);
        const installed = (args: string[], options?: { input?: string; env?: Record<string, string> }) => installedOn(node, args, options);
        const spawnInstalled = (args: string[]) => spawn(node, [installedLauncher, ...args]);

        await step(`on Node ${version}: runs --version and --help`, async () => {
          const printed = await installed(['--version']);
          expect(printed.code).toBe(0);
          expect(printed.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
          const help = await installed(['--help']);
          expect(help.code).toBe(0);
          expect(help.stdout).toContain('webhooks');
          expect(help.stdout).toContain('Examples:');
          expect(readdirSync(workDir).some((f) => f.endsWith('.tgz'))).toBe(true);
        });

        await step(
          `on Node ${version}: runs the sandbox flow from the installed package: listen, create with the secret captured, trigger, verified`,
          async () => {
            // With --data-dir: node:sqlite must work (and keep quiet) on each Node line too.
            const dataDir = join(workDir, `sandbox-${version}`);
            const sandbox = spawnInstalled(['sandbox', 'start', '--port', '0', '--json', '--quiet', '--data-dir', dataDir]);
            let sandboxStderr = '';
            sandbox.stderr.on('data', (c: Buffer) => (sandboxStderr += c));
            const sandboxClosed = new Promise((resolve) => sandbox.on('close', resolve));
            try {
              const info = await new Promise<{ base_url: string; client_id: string; client_secret: string }>((resolve, reject) => {
                let out = '';
                sandbox.stdout.on('data', (c: Buffer) => {
                  out += c;
                  if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
                });
                sandbox.on('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
              });
              const env = {
                WHSVC_CONFIG_DIR: join(workDir, `config-${version}`),
                WHSVC_BASE_URL: info.base_url,
                WHSVC_CLIENT_ID: info.client_id,
                WHSVC_CLIENT_SECRET: info.client_secret,
              };
              const secretFile = join(workDir, `whsec-${version}.txt`);
              const listener = spawnInstalled(['listen', '--port', '0', '--secret-file', secretFile, '--count', '1', '--timeout', '60']);
              let listenOut = '';
              listener.stdout.on('data', (c: Buffer) => (listenOut += c));
              const url = await new Promise<string>((resolve) => {
                let err = '';
                listener.stderr.on('data', (c: Buffer) => {
                  err += c;
                  const match = /ready at (\S+)/.exec(err);
                  if (match) resolve(match[1]!);
                });
              });
              const listened = new Promise<number | null>((resolve) => listener.on('exit', resolve));
              const created = await installed(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--secret-file', secretFile], { env });
              expect(created.code, created.stderr).toBe(0);
              // jq (WebAssembly, in a chunk of its own) and js-yaml ship in the bundle and run on this Node line too.
              const counted = await installed(['webhooks', 'list', '--jq', '.data | length'], { env });
              expect(counted.stdout, counted.stderr).toBe('1\n');
              const declared = join(workDir, `webhooks-${version}.yaml`);
              writeFileSync(declared, `# as created above\nwebhooks:\n  - url: ${url}\n    events: [invoice.paid]\n`);
              const applied = await installed(['webhooks', 'apply', '-f', declared, '--dry-run'], { env });
              expect(applied.stdout, applied.stderr).toContain("No changes: the account's webhooks are as");
              expect((await installed(['sandbox', 'trigger', 'invoice.paid'], { env })).code).toBe(0);
              expect(await listened).toBe(0);
              expect(listenOut).toMatch(/invoice\.paid\s+dlv_\w+ #1\s+verified\s+-> 200/);
            } finally {
              sandbox.kill('SIGTERM');
            }
            await sandboxClosed;
            // Node 22 calls node:sqlite experimental: the sandbox does not pass that on to its user.
            expect(sandboxStderr).toContain('whsvc sandbox ready at');
            expect(sandboxStderr).not.toMatch(/Warning/);
            // Closed cleanly: the store's connection, the last, took the log away.
            expect(existsSync(join(dataDir, 'sandbox.db'))).toBe(true);
            expect(existsSync(join(dataDir, 'sandbox.db-wal'))).toBe(false);
          },
        );

        await step(`on Node ${version}: talks to an https service (a private CA through NODE_EXTRA_CA_CERTS): token, list, create`, async () => {
          const sandbox = await startSandboxProcess(['--quiet']);
          const front = await startTlsFront(sandbox.info.base_url);
          try {
            const env = {
              WHSVC_CONFIG_DIR: join(workDir, `config-https-${version}`),
              WHSVC_BASE_URL: front.url,
              WHSVC_CLIENT_ID: sandbox.info.client_id,
              WHSVC_CLIENT_SECRET: sandbox.info.client_secret,
              NODE_EXTRA_CA_CERTS: front.caFile,
            };
            const created = await installed(['webhooks', 'create', '--url', 'https://example.com/hooks', '--events', 'invoice.paid', '--json'], { env });
            expect(created.code, created.stderr).toBe(0);
            const listed = await installed(['webhooks', 'list', '--json'], { env });
            expect(listed.code, listed.stderr).toBe(0);
            expect(JSON.parse(listed.stdout).data.map((w: { id: string }) => w.id)).toEqual([JSON.parse(created.stdout).id]);
          } finally {
            await front.close();
            await sandbox.stop();
          }
        });
      }),
    );
  });
});
