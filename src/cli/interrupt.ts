const cleanups = new Set<() => void>();

/** Work to undo if the user presses Ctrl-C now (a half-written file, say); returns the unregister function. */
export function onInterrupt(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Ctrl-C: undo what was registered, then exit 130. */
export function installInterruptHandler(): void {
  process.once('SIGINT', () => {
    for (const cleanup of cleanups) {
      try {
        cleanup();
      } catch {
        // exiting anyway
      }
    }
    process.stderr.write('\ninterrupted\n');
    process.exit(130);
  });
}
