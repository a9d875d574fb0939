/** What is said of a command whose work was left unfinished with nothing left to finish it. */
export const UNSETTLED =
  'the command stopped without finishing or saying why: nothing was left that could finish it (a bug in whsvc: please report it, with the command)';

/**
 * The last guard of a run, for `process.on('beforeExit', …)`: Node ends a
 * process whose event loop is empty with exit 0, even while the command's
 * promise is still pending (a path that dropped its resolve: nothing can
 * settle it any more). A script would read success, and no output. So when
 * the loop empties before `command` settles, the run fails: `report` says so
 * (one line on stderr) and its code (1) becomes the exit code. A command
 * that settled is left alone, whatever its outcome. main.ts sets it.
 */
export function unsettledExit(
  command: Promise<unknown>,
  report: (message: string) => number,
  target: { exitCode?: number | string | null | undefined },
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
