import type { Host } from './cli/host.js';
import { ExitCode } from './cli/errors.js';
import { unsettledExit } from './cli/unsettled.js';
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

const run = runCli(process.argv.slice(2), host);
// A run whose work was left waiting on nothing (a promise no path settles) would end with an empty event loop and exit 0.
process.on(
  'beforeExit',
  unsettledExit(
    run,
    (message) => {
      process.stderr.write(`whsvc: ${message}\n`);
      return ExitCode.failure;
    },
    process,
  ),
);
process.exitCode = await run;
