const cleanups = new Set<() => void>();

/** Work to undo if the user presses Ctrl-C now (a half-written file, say); returns the unregister function. */
export function onInterrupt(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** The user stopped the command (Ctrl-C, at a prompt or not): undo what was registered, say so in one line, exit 130. */
export function interrupt(): never {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // exiting anyway
    }
  }
  process.stderr.write('\nwhsvc: interrupted\n');
  process.exit(130);
}

/** Ctrl-C outside a prompt (a prompt reads it as a key, see prompter.ts). */
export function installInterruptHandler(): void {
  process.once('SIGINT', interrupt);
}

/**
 * For a command that stops cleanly (a bulk re-send): the first Ctrl-C aborts
 * the signal returned, and the command winds down and reports; a second one
 * exits at once.
 */
export function gracefulInterrupt(): AbortSignal {
  process.removeListener('SIGINT', interrupt);
  const controller = new AbortController();
  process.once('SIGINT', () => {
    controller.abort();
    process.once('SIGINT', interrupt);
  });
  // A reader that goes away stops such a command the same way: it must not end with sends half done, nor say it all went well.
  onStdoutClosed = () => controller.abort();
  return controller.signal;
}

/**
 * For a command that runs until it is told to stop (tail, listen, the
 * sandbox): resolves with the exit code once the user asks, Ctrl-C 130 and
 * SIGTERM a clean 0; a second Ctrl-C exits at once.
 */
export function stopRequested(): Promise<number> {
  process.removeListener('SIGINT', interrupt);
  return new Promise((resolve) => {
    process.once('SIGINT', () => {
      resolve(130);
      process.once('SIGINT', () => process.exit(130));
    });
    process.once('SIGTERM', () => resolve(0));
  });
}

let onStdoutClosed: (() => void) | undefined;
let stdoutClosed = false;

/**
 * The reader of stdout went away (EPIPE). Returns whether the command winds
 * down by itself (a bulk re-send); otherwise the caller ends the process.
 */
export function stdoutGone(): boolean {
  if (!stdoutClosed) onStdoutClosed?.();
  stdoutClosed = true;
  return onStdoutClosed !== undefined;
}

export const stdoutWasClosed = (): boolean => stdoutClosed;

/**
 * Runs synchronous work that could run for good (a jq program that never
 * ends) with Ctrl-C and SIGTERM left to the system: no handler of ours can run
 * while it holds the thread, and the system's own ends the process (exit 130
 * for Ctrl-C, as a shell reports it). The handlers are back once it returns.
 */
export function withSystemSignals<T>(work: () => T): T {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  // The raw listeners: a once() listener comes back as the wrapper that removes itself when it fires, not as a
  // listener for good (a second SIGTERM would then be swallowed instead of ending the process).
  const kept = signals.map((signal) => [signal, process.rawListeners(signal) as Array<(...args: unknown[]) => void>] as const);
  for (const signal of signals) process.removeAllListeners(signal);
  try {
    return work();
  } finally {
    for (const [signal, listeners] of kept) for (const listener of listeners) process.on(signal, listener);
  }
}
