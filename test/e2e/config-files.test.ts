import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { login, ownConfigEnv, startWhsvc, usersOf } from '../helpers/cli.js';
import { startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver } from '../helpers/receiver.js';

// The CLI's own files when several whsvc processes write them at once (CI jobs
// sharing a home directory), and when a process is killed mid-write: what only
// processes show. The rest of the files' bad day (what a killed process leaves,
// files not whsvc's, profile names, credentials asked to go elsewhere):
// test/integration/config-files.test.ts. The sandbox is only the service the
// processes ask: in-process.

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
const cli = usersOf(() => undefined, { timeoutMs: 120_000 });

/** Logs in to the sandbox as `profile`, the config in `dir`. */
const loginTo = (dir: string, profile: string) =>
  login(cli.as(dir), sandbox.info.client_id, sandbox.info.client_secret, ['--profile', profile, '--base-url', sandbox.info.base_url]);

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, { client_id?: string; access_token?: string }>>;

describe('whsvc processes writing at once keep each other’s writes', () => {
  it('50 parallel logins to distinct profiles leave 50 working profiles and 50 cached tokens', async () => {
    const dir = freshConfig();
    const names = Array.from({ length: 50 }, (_, i) => `p${i}`);
    const results = await Promise.all(names.map((name) => loginTo(dir, name)));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    expect(Object.keys(readJson(join(dir, 'config.json')).profiles!).sort()).toEqual([...names].sort());
    expect(Object.keys(readJson(join(dir, 'tokens.json')).tokens!).sort()).toEqual([...names].sort());
    // Working: a few of them, used as a user would.
    for (const name of ['p0', 'p25', 'p49']) {
      const list = await cli(['webhooks', 'list', '--profile', name, '--json'], dir);
      expect(list.code, list.stderr).toBe(0);
    }
    expect(readdirSync(dir).filter((file) => file.includes('.tmp-') || file.endsWith('.lock'))).toEqual([]);
  });

  it('50 parallel token refreshes of one profile, twice over, leave a valid token file, whole and 0600', async () => {
    const dir = freshConfig();
    expect((await loginTo(dir, 'ci')).code).toBe(0);
    const tokensFile = join(dir, 'tokens.json');
    for (let round = 0; round < 2; round++) {
      rmSync(tokensFile);
      const results = await Promise.all(Array.from({ length: 50 }, () => cli(['webhooks', 'list', '--profile', 'ci', '--json'], dir)));
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      const cached = readJson(tokensFile).tokens!.ci!;
      expect(cached.access_token).toMatch(/^sbx_at_/);
      expect(statSync(tokensFile).mode & 0o777).toBe(0o600);
      const response = await fetch(`${sandbox.info.base_url}/v1/webhooks`, { headers: { authorization: `Bearer ${cached.access_token}` } });
      expect(response.status).toBe(200);
    }
    expect(Object.keys(readJson(join(dir, 'config.json')).profiles!)).toEqual(['ci']);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain(sandbox.info.client_id);
  });
});

describe('a process killed in the middle of a write', () => {
  it('parallel logins, some killed (SIGKILL) at each step of a login: every login that said so is kept, and the next write is not blocked', async () => {
    const dir = freshConfig();
    // The service, played by a receiver: every token request held until the test lets them go, then answered with a token.
    const service = await startReceiver(() => 'hold');
    const token = {
      status: 200,
      body: JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 }),
      headers: { 'content-type': 'application/json' },
    };
    const logins = Array.from({ length: 12 }, (_, i) => {
      const name = `k${i}`;
      const args = ['login', '--profile', name, '--base-url', service.url, '--client-id', name, '--client-secret-stdin', '--debug'];
      return { name, run: startWhsvc(args, { env: ownConfigEnv(dir), input: 'secret' }) };
    });
    const [requested, tokenInHand, profileWritten, finished] = [logins.slice(0, 3), logins.slice(3, 6), logins.slice(6, 9), logins.slice(9)];
    const kill = async (killed: typeof logins) => {
      for (const { run } of killed) run.child.kill('SIGKILL');
      expect(await Promise.all(killed.map(({ run }) => run.exit))).toEqual(killed.map(() => null));
    };
    /** Takes a config file's lock for this process (alive): no whsvc writes the file until it is let go. */
    const hold = (file: string) => {
      const lock = join(dir, `${file}.lock`);
      writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'the-test' }), { flag: 'wx', mode: 0o600 });
      return () => rmSync(lock);
    };
    const names = (file: string, key: string) => (existsSync(join(dir, file)) ? Object.keys(readJson(join(dir, file))[key] ?? {}) : []);

    // Killed with its token request sent and not answered: nothing written yet.
    await service.waitFor(logins.length);
    await kill(requested);
    // Killed with its token in hand (its --debug line of the answer), the profile not written: the locks are the test's.
    const letConfigGo = hold('config.json');
    const letTokensGo = hold('tokens.json');
    service.release(token);
    for (const { run } of tokenInHand) await run.until(() => /^< 200 /m.test(run.stderr()), 'the answer to its token request (--debug)');
    await kill(tokenInHand);
    // Killed with its profile written, its token not yet.
    letConfigGo();
    await vi.waitFor(() => expect(names('config.json', 'profiles')).toEqual(expect.arrayContaining(profileWritten.map(({ name }) => name))), {
      timeout: 60_000,
      interval: 20,
    });
    await kill(profileWritten);
    // The rest go to the end.
    letTokensGo();
    expect(await Promise.all(finished.map(({ run }) => run.exit))).toEqual([0, 0, 0]);

    const after = await loginTo(dir, 'after');
    expect(after.code, after.stderr).toBe(0);
    // What each login wrote before it was killed is kept, and what it said it kept; nothing of those killed earlier.
    expect(names('config.json', 'profiles').sort()).toEqual(
      [...profileWritten, ...finished]
        .map(({ name }) => name)
        .concat('after')
        .sort(),
    );
    expect(names('tokens.json', 'tokens').sort()).toEqual(
      finished
        .map(({ name }) => name)
        .concat('after')
        .sort(),
    );
    await service.close();
  });
});
