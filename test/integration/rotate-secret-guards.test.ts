import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command, type Point, run } from '../../src/commands/webhooks/rotate-secret.js';
import { type CliResult, sandboxEnv } from '../helpers/cli.js';
import { canMakeDeviceNodes } from '../helpers/bad-files.js';
import { runInProcess, type SandboxInProcess, startSandboxInProcess } from '../helpers/in-process.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { runVerbInProcess } from '../helpers/verb.js';

// rotate-secret against what is not its own: a --secret-file that is not a regular file, a journal it did not write
// (edited, planted, another user's), two runs at once on one file, and services unlike the sandbox (a create answered
// with another URL; a log without next_attempt_at or delivery_id, as the interface describes it). The sandbox runs
// in-process, each attempt tried once (no automatic retry); a service unlike it is a front of the test's own.

let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([startSandboxInProcess(['--quiet', '--max-attempts', '1']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-rotate-guards-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), receiver?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

const cli = (args: string[], more: Record<string, string> = {}): Promise<CliResult> => runInProcess(args, { env: { ...env, ...more } });

/** A webhook at `path` on the receiver (its secret in a file of its own); its id. */
async function created(path: string, events = 'invoice.paid', more: string[] = []): Promise<string> {
  const file = join(workDir, `${path.slice(1)}-${Math.random().toString(36).slice(2, 8)}.secret`);
  const result = await cli(['webhooks', 'create', '--url', `${receiver.url}${path}`, '--events', events, '--secret-file', file, '--json', ...more]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).id as string;
}

/** The requests a --debug run sent, as `METHOD path` (the token's left out). */
const requests = (stderr: string) =>
  [...stderr.matchAll(/^> (\w+) (\S+)$/gm)].map((m) => `${m[1]} ${new URL(m[2]!).pathname}`).filter((line) => !line.endsWith('/oauth/token'));

describe('--secret-file that is not a regular file', () => {
  const kinds: Array<[string, (path: string) => void, string]> = [
    ['a FIFO', (path) => execFileSync('mkfifo', [path]), 'a FIFO'],
    ['a directory', (path) => mkdirSync(path), 'a directory'],
  ];
  if (canMakeDeviceNodes()) kinds.push(['a device', (path) => execFileSync('mknod', [path, 'c', '1', '3']), 'a device']);

  it.each(kinds)('(%s) is refused before any request, as the files rule says (exit 2)', async (_kind, make, what) => {
    const oldId = await created('/not-regular');
    const file = join(workDir, `not-regular-${what.replace(' ', '-')}`);
    make(file);
    for (const more of [[], ['--dry-run'], ['--cancel']]) {
      const result = await cli(['webhooks', 'rotate-secret', oldId, '--secret-file', file, '--yes', '--debug', ...more]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`whsvc: --secret-file ${file} is ${what}, not a regular file\n`);
      expect(requests(result.stderr)).toEqual([]);
    }
  });

  it('a regular file there, and no rotation under way: "already exists", before any request (exit 2)', async () => {
    const oldId = await created('/taken');
    const file = join(workDir, 'taken.secret');
    writeFileSync(file, 'mine\n');
    const result = await cli(['webhooks', 'rotate-secret', oldId, '--secret-file', file, '--yes', '--debug']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`whsvc: --secret-file ${file} already exists\n`);
    expect(requests(result.stderr)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });
});

/** `whsvc webhooks rotate-secret ARGS` in-process, `at` called at each point where the run could stop. */
async function rotate(args: string[], at?: (point: Point) => Promise<void>, more: Record<string, string> = {}): Promise<CliResult> {
  const made = () => command((given, deps) => run({ ...given, at }, deps));
  return runVerbInProcess(['webhooks', 'rotate-secret'], made, args, { env: { ...env, ...more } });
}

/** The ids of the account's webhooks at `path` on the receiver. */
async function webhooksAt(path: string): Promise<string[]> {
  const listed = await cli(['webhooks', 'list', '--all', '--json', '--jq', `.data[] | select(.url == "${receiver.url}${path}") | .id`]);
  return listed.stdout.split('\n').filter(Boolean);
}

describe('two rotate-secret runs at once on one --secret-file', () => {
  it('the second is refused at once (exit 2), whatever account lock it took (another config dir); the first finishes, its journal whole', async () => {
    const oldId = await created('/two-runs');
    const file = join(workDir, 'two-runs.secret');
    let second: CliResult | undefined;
    const first = await rotate([oldId, '--secret-file', file, '--yes'], async (point) => {
      if (point === 'create-noted')
        second = await rotate([oldId, '--secret-file', file, '--yes'], undefined, { WHSVC_CONFIG_DIR: join(workDir, 'other-config') });
    });
    expect(second).toMatchObject({
      code: 2,
      stderr:
        `whsvc: another whsvc (process ${process.pid}) is rotating with --secret-file ${file}: its journal is in use\n` +
        `hint: one rotation per --secret-file at a time: let that one end; if no whsvc is running, delete ${join(workDir, '.two-runs.secret.whsvc-rotate.lock')}\n`,
    });
    expect(first.code, first.stderr).toBe(0);
    const [twin] = await webhooksAt('/two-runs');
    expect(await webhooksAt('/two-runs')).toEqual([twin]);
    const again = await rotate([oldId, '--secret-file', file, '--yes']);
    expect(again.stdout).toBe(`${oldId} was rotated already: it is now ${twin}, whose secret is in ${file}. Nothing to do.\n`);
    expect(existsSync(join(workDir, '.two-runs.secret.whsvc-rotate.lock'))).toBe(false);
  });
});
