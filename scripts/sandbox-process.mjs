// The sandbox as the benchmarks and the demo scripts run it: another process,
// `whsvc sandbox start --port 0 --json`, ready once it printed its JSON line.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WHSVC = join(ROOT, 'bin', 'whsvc');

/** The extra node flags a bench gives its sandbox (BENCH_SANDBOX_NODE_ARGS, space-separated). */
export const benchNodeArgs = () => (process.env.BENCH_SANDBOX_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

/** Where a bench keeps its sandbox's stdout (BENCH_SANDBOX_STDOUT, a file appended to): an `onStdout` for startSandbox, or undefined. */
export function benchStdout() {
  const file = process.env.BENCH_SANDBOX_STDOUT;
  return file ? (chunk) => appendFileSync(file, chunk) : undefined;
}

/**
 * Starts `whsvc sandbox start --port 0 --json` with `args` after it, and
 * resolves with { child, info, stderr() } once it printed its JSON line (`info`).
 * Lines before that one (what a node flag such as --trace-gc prints) are
 * skipped. Its stderr is kept (the last 200,000 characters, for an error
 * message) and also given to `onStderr`; `onStdout` gets all of its stdout.
 * Rejects, with what it said on stderr, if it exits or stays silent for
 * `readyWithinMs` first.
 */
export function startSandbox(args = [], { nodeArgs = [], env = process.env, onStdout, onStderr, readyWithinMs = 20_000 } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, WHSVC, 'sandbox', 'start', '--port', '0', '--json', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-200_000);
    onStderr?.(chunk);
  });
  child.stdout.setEncoding('utf8');
  if (onStdout) child.stdout.on('data', onStdout);
  return new Promise((resolve, reject) => {
    const failed = (why) => {
      clearTimeout(timer);
      child.stdout.off('data', readLines);
      reject(new Error(`${why}${stderr ? `; it said:\n${stderr.slice(-4000)}` : ''}`));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      failed(`the sandbox did not print its JSON line within ${readyWithinMs / 1000} s`);
    }, readyWithinMs);
    let pending = '';
    const readLines = (chunk) => {
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        clearTimeout(timer);
        child.stdout.off('data', readLines);
        child.off('exit', exitedEarly);
        try {
          resolve({ child, info: JSON.parse(line), stderr: () => stderr });
        } catch {
          reject(new Error(`the sandbox printed something other than JSON: ${line}`));
        }
        return;
      }
    };
    const exitedEarly = (code, signal) => failed(`the sandbox exited (${signal ?? code}) before it was ready; is dist/ built? (./run npm run build)`);
    child.stdout.on('data', readLines);
    child.once('exit', exitedEarly);
  });
}
