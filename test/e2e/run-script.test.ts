import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// ./run, the script the quickstart's terminals start with: one installs while the others wait on its
// lock, and a terminal that waits says so (issue 35: they printed nothing for seconds). A copy of the
// script in a directory of its own, with nothing to install, so that only the lock is tried.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-run-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(ROOT, 'run'), join(dir, 'run'));
  copyFileSync(join(ROOT, 'scripts', 'ensure-node.sh'), join(dir, 'scripts', 'ensure-node.sh'));
  // Installed and built already: package-lock.json older than node_modules' copy, dist/main.js there.
  writeFileSync(join(dir, 'package-lock.json'), '{}');
  utimesSync(join(dir, 'package-lock.json'), new Date(0), new Date(0));
  mkdirSync(join(dir, 'node_modules'));
  writeFileSync(join(dir, 'node_modules', '.package-lock.json'), '{}');
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'main.js'), '');
  mkdirSync(join(dir, '.cache'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `./run true` in the copy, with this Node first on PATH (so that none is installed); `said` resolves at its first stderr. */
function run(): { done: Promise<{ code: number | null; stderr: string }>; said: Promise<string> } {
  const child = spawn(join(dir, 'run'), ['true'], {
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const said = new Promise<string>((resolve) => child.stderr.once('data', (chunk: Buffer) => resolve(chunk.toString())));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
  return { done, said };
}

describe('./run', () => {
  it('says nothing when nobody else holds the lock; says it waits while another ./run installs, then goes on once that one is done', async () => {
    expect(await run().done).toEqual({ code: 0, stderr: '' });

    // Another ./run, installing: it holds the lock until told to stop.
    const holder = spawn('flock', [join(dir, '.cache', 'run.lock'), 'sh', '-c', 'echo held; read line'], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const waiting = run();
    // Said while the lock is still held: the holder lets go only once the line came.
    expect(await waiting.said).toBe('whsvc: waiting for another ./run to finish installing\n');
    holder.stdin.end('done\n');
    expect(await waiting.done).toEqual({ code: 0, stderr: 'whsvc: waiting for another ./run to finish installing\n' });
  });
});
