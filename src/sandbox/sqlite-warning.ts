/**
 * Node 22 calls node:sqlite experimental, and says so on stderr when a thread
 * first loads it. The store is the sandbox's own, tested on each Node line
 * `engines` accepts, so that one warning is not passed on; every other warning
 * is.
 */
let passedOver = false;

export function passOverSqliteWarning(): void {
  // Once per process: sandboxes started in one process (tests) would wrap it again each time.
  if (passedOver) return;
  passedOver = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (!text.startsWith('SQLite is an experimental feature')) emitWarning(warning, ...rest);
  }) as typeof process.emitWarning;
}
