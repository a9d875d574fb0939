import { ExitCode } from './errors.js';

/** What is said of a command whose work was left unfinished with nothing left to finish it. */
export const UNSETTLED =
  'the command stopped without finishing or saying why: nothing was left that could finish it (a bug in whsvc: please report it, with the command)';

/** Says `message` in one line on stderr, as every error is said; returns the exit code of a failure. */
function sayOnStderr(message: string): number {
  process.stderr.write(`whsvc: ${message}\n`);
  return ExitCode.failure;
}

/**
 * The last guard of a run, for `process.on('beforeExit', …)`: Node ends a
 * process whose event loop is empty with exit 0, even while the command's
 * promise is still pending (a path that dropped its resolve: nothing can
 * settle it any more). A script would read success, and no output. So when
 * the loop empties before `command` settles, the run fails: `report` says so
 * (one line on stderr unless given) and its code (1) becomes the exit code.
 * A command that settled is left alone, whatever its outcome.
 *
 *   const run = program.parseAsync(process.argv);
 *   process.on('beforeExit', unsettledExit(run));
 */
export function unsettledExit(
  command: Promise<unknown>,
  report: (message: string) => number = sayOnStderr,
  target: { exitCode?: number | string | null | undefined } = process,
): () => void {
  let settled = false;
  const done = () => {
    settled = true;
  };
  command.then(done, done);
  let told = false;
  return () => {
    // beforeExit comes again if saying it scheduled work (an asynchronous stderr): said once.
    if (settled || told) return;
    told = true;
    target.exitCode = report(UNSETTLED);
  };
}
