import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login } from '../helpers/cli.js';
import { startSandboxInProcess, usersInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// The CLI's own files under the bad day: what a killed process leaves (a
// temporary file, a lock), files that are not whsvc's, profile names that are
// also JavaScript's, and credentials asked to go elsewhere; whsvc and the
// sandbox in-process. Many whsvc processes writing at once, and processes
// killed mid-write: test/e2e/config-files.test.ts.

let sandbox: SandboxInProcess;
let workDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-config-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const freshConfig = () => mkdtempSync(join(workDir, 'config-'));

/** whsvc as run by a user with the config in the dir given, the service's address from nowhere but a profile or a flag. */
const cli = usersInProcess(() => undefined);

/** Logs in to the sandbox as `profile`, the config in `dir`. */
const loginTo = (dir: string, profile: string) =>
  login(cli.as(dir), sandbox.info.client_id, sandbox.info.client_secret, ['--profile', profile, '--base-url', sandbox.info.base_url]);

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, { client_id?: string; access_token?: string }>>;

describe('a process killed in the middle of a write', () => {
  it('leaves no temporary file with secrets behind once whsvc writes again', async () => {
    const dir = freshConfig();
    expect((await loginTo(dir, 'default')).code).toBe(0);
    // What a kill -9 between atomically's write and its rename leaves.
    writeFileSync(join(dir, 'tokens.json.tmp-1234567890abcdef'), '{"tokens":{"default":{"access_token":"live"}}}', { mode: 0o600 });
    writeFileSync(join(dir, 'config.json.tmp-1234567890fedcba'), '{"profiles":{"x":{"client_secret":"s"}}}', { mode: 0o600 });
    expect((await loginTo(dir, 'second')).code).toBe(0);
    expect(readdirSync(dir).filter((file) => file.includes('.tmp-'))).toEqual([]);
  });

  it('a lock left by a killed process does not block the next write', async () => {
    const dir = freshConfig();
    expect((await loginTo(dir, 'default')).code).toBe(0);
    // A real process that held the lock and is gone: its pid is free.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const lock = join(dir, 'config.json.lock');
    writeFileSync(lock, JSON.stringify({ pid: Number(dead.stdout), host: hostname(), nonce: 'dead' }));
    // Dated an hour ahead, it never grows old enough to be stale by its age: only its process being gone frees it.
    const ahead = new Date(Date.now() + 3600_000);
    utimesSync(lock, ahead, ahead);
    const second = await loginTo(dir, 'second');
    expect(second.code, second.stderr).toBe(0);
    expect(Object.keys(readJson(join(dir, 'config.json')).profiles!).sort()).toEqual(['default', 'second']);
    expect(existsSync(join(dir, 'config.json.lock'))).toBe(false);
  });
});

describe("the config files are whsvc's own regular files", () => {
  it.each(['config.json', 'tokens.json'])('a symlink planted as %s: login is refused in one line, and the file it points to keeps no secret', async (name) => {
    const dir = freshConfig();
    const victim = join(workDir, `victim-${name}`);
    writeFileSync(victim, '{"kept":true}\n', { mode: 0o644 });
    symlinkSync(victim, join(dir, name));
    const result = await loginTo(dir, 'default');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^whsvc: the config file ${join(dir, name)} is a symbolic link, not a regular file\n`));
    expect(result.stderr).not.toMatch(/unexpected error/);
    expect(readFileSync(victim, 'utf8')).toBe('{"kept":true}\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
  });

  it('a config file that is not JSON is one line naming it, never "unexpected error"', async () => {
    const dir = freshConfig();
    writeFileSync(join(dir, 'tokens.json'), 'not json', { mode: 0o600 });
    const result = await loginTo(dir, 'default');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^whsvc: ${join(dir, 'tokens.json')} is not valid JSON\n`));
  });
});

describe('profile names are data', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('--profile %s logs in, works and logs out', async (name) => {
    const dir = freshConfig();
    expect((await loginTo(dir, 'other')).code).toBe(0);
    const status = await cli(['auth', 'status', '--profile', name], dir);
    expect(status.code, status.stderr).toBe(3);
    expect(status.stderr).toContain(`profile ${name} (from --profile) holds no credentials`);
    expect((await loginTo(dir, name)).code).toBe(0);
    const list = await cli(['webhooks', 'list', '--profile', name, '--json'], dir);
    expect(list.code, list.stderr).toBe(0);
    expect(Object.keys(readJson(join(dir, 'config.json')).profiles!).sort()).toEqual([name, 'other'].sort());
    const logout = await cli(['logout', '--profile', name], dir);
    expect(logout.code, logout.stderr).toBe(0);
    expect(Object.keys(readJson(join(dir, 'config.json')).profiles!)).toEqual(['other']);
  });
});

describe('credentials go only where they were proven', () => {
  let elsewhere: Receiver;
  let elsewhereUrl: string;
  /** What reached the other address: method, path and body of each request. */
  const hits = () => elsewhere.received.map((r) => `${r.method} ${r.path} ${r.body}`);
  beforeAll(async () => {
    const refusal = { status: 401, body: '{"error":"invalid_client","error_description":"no"}', headers: { 'content-type': 'application/json' } };
    elsewhere = await startReceiver(() => refusal);
    elsewhereUrl = `http://localhost:${new URL(elsewhere.url).port}`;
  });
  afterAll(() => elsewhere.close());

  it('a profile’s secret is not sent to another address: exit 3 naming both, nothing sent', async () => {
    const dir = freshConfig();
    expect((await loginTo(dir, 'default')).code).toBe(0);
    rmSync(join(dir, 'tokens.json'));
    const result = await cli(['webhooks', 'list'], dir, { env: { WHSVC_BASE_URL: elsewhereUrl } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`profile default logged in to ${sandbox.info.base_url}`);
    expect(result.stderr).toContain(`not sent to ${elsewhereUrl} (from WHSVC_BASE_URL)`);
    expect(result.stderr).toMatch(new RegExp(`^hint: drop WHSVC_BASE_URL, .*: whsvc login --base-url ${elsewhereUrl} --profile NAME$`, 'm'));
    expect(result.stderr).not.toContain(sandbox.info.client_secret);
    const flag = await cli(['webhooks', 'list', '--base-url', elsewhereUrl], dir);
    expect(flag.code).toBe(3);
    expect(flag.stderr).toContain('(from --base-url)');
    expect(hits()).toEqual([]);
    // The same address written another way is the same address.
    const same = await cli(['webhooks', 'list', '--json'], dir, { env: { WHSVC_BASE_URL: `${sandbox.info.base_url}/` } });
    expect(same.code, same.stderr).toBe(0);
  });

  it('credentials from the environment go to the address given', async () => {
    const dir = freshConfig();
    const result = await cli(['webhooks', 'list'], dir, {
      env: { WHSVC_BASE_URL: elsewhereUrl, WHSVC_CLIENT_ID: 'env-client', WHSVC_CLIENT_SECRET: 'env-secret' },
    });
    expect(result.code).toBe(3);
    expect(hits().some((hit) => hit.startsWith('POST /v1/oauth/token') && hit.includes('env-client'))).toBe(true);
  });

  it.each(['http://example.com', 'http://10.0.0.5:4010', 'http://169.254.169.254'])('plain http to %s is refused before any request (exit 2)', async (url) => {
    const dir = freshConfig();
    const result = await cli(['webhooks', 'list'], dir, { env: { WHSVC_BASE_URL: url, WHSVC_CLIENT_ID: 'id', WHSVC_CLIENT_SECRET: 'secret' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('must use https');
    expect(result.stderr.trim().split('\n')).toHaveLength(2);
    const loginResult = await cli(['login', '--base-url', url, '--client-id', 'id', '--client-secret-stdin'], dir, { input: 'secret' });
    expect(loginResult.code).toBe(2);
  });
});
