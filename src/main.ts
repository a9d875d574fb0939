import type { Host } from './cli/host.js';
import { runCli } from './run-cli.js';

// The process's side of whsvc: its host, and its exit code. Everything else is runCli's (run-cli.ts).

const host: Host = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signals: process,
  now: Date.now,
  exit: (code) => process.exit(code),
};

let settled = false;
// A run whose work was left waiting on nothing (a promise no path settles) would end with an empty event loop and exit 0.
process.on('beforeExit', () => {
  if (settled) return;
  process.stderr.write('whsvc: stopped with its work unfinished: nothing was left to wait on (a bug in whsvc)\n');
  process.exit(1);
});
process.exitCode = await runCli(process.argv.slice(2), host);
settled = true;
