import type { OutputStream } from './deps.js';
import type { SignalSource, StopSignal } from './host.js';

/** Thrown to end a run that has no process to end (a test's host): runCli returns its code. */
export class ExitRequest extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/**
 * How one run of whsvc is stopped: Ctrl-C (SIGINT) and SIGTERM from the
 * host's signals, a reader of stdout that went away, and the work to undo
 * first. One per run, so that runs in one process (tests) never share them.
 */
export class Interrupts {
  private readonly cleanups = new Set<() => void>();
  /** Every listener this run put on the signals, so that a run in-process takes them all off at its end. */
  private readonly added: Array<[StopSignal, (...args: unknown[]) => void]> = [];
  private onStdoutClosed: (() => void) | undefined;
  private stdoutClosed = false;
  /** From a signal's listener, where nothing above is left to unwind. */
  private readonly interruptNow = () => {
    this.cleanUp();
    this.end(130);
  };

  constructor(
    private readonly signals: SignalSource,
    private readonly stderr: OutputStream,
    /** Ends the run at once with the code: the process exits, or runCli returns it. */
    private readonly end: (code: number) => void,
  ) {}

  /** Ends the run with `code`, and stops the work that called it. */
  exit(code: number): never {
    this.end(code);
    throw new ExitRequest(code);
  }

  /** Work to undo if the user presses Ctrl-C now (a half-written file, say); returns the unregister function. */
  onInterrupt(cleanup: () => void): () => void {
    this.cleanups.add(cleanup);
    return () => this.cleanups.delete(cleanup);
  }

  /** The user stopped the command (Ctrl-C, at a prompt or not): undo what was registered, say so in one line, exit 130. */
  interrupt(): never {
    this.cleanUp();
    return this.exit(130);
  }

  private cleanUp(): void {
    for (const cleanup of this.cleanups) {
      try {
        cleanup();
      } catch {
        // exiting anyway
      }
    }
    this.stderr.write('\nwhsvc: interrupted\n');
  }

  /** Ctrl-C outside a prompt (a prompt reads it as a key, see prompter.ts). */
  install(): void {
    this.once('SIGINT', this.interruptNow);
  }

  /** Takes every handler of this run off the signals (a run in-process ends; the process's stay until it exits). */
  uninstall(): void {
    for (const [signal, listener] of this.added.splice(0)) this.signals.removeListener(signal, listener);
  }

  private once(signal: StopSignal, listener: (...args: unknown[]) => void): void {
    this.added.push([signal, listener]);
    this.signals.once(signal, listener);
  }

  /**
   * For a command that stops cleanly (a bulk re-send): the first Ctrl-C aborts
   * the signal returned, and the command winds down and reports; a second one
   * exits at once.
   */
  graceful(): AbortSignal {
    this.signals.removeListener('SIGINT', this.interruptNow);
    const controller = new AbortController();
    this.once('SIGINT', () => {
      controller.abort();
      this.once('SIGINT', this.interruptNow);
    });
    // A reader that goes away stops such a command the same way: it must not end with sends half done, nor say it all went well.
    this.onStdoutClosed = () => controller.abort();
    return controller.signal;
  }

  /**
   * For a command that runs until it is told to stop (tail, listen, the
   * sandbox): resolves with the exit code once the user asks, Ctrl-C 130 and
   * SIGTERM a clean 0; a second Ctrl-C exits at once.
   */
  stopRequested(): Promise<number> {
    this.signals.removeListener('SIGINT', this.interruptNow);
    return new Promise((resolve) => {
      this.once('SIGINT', () => {
        resolve(130);
        this.once('SIGINT', () => this.end(130));
      });
      this.once('SIGTERM', () => resolve(0));
    });
  }

  /**
   * The reader of stdout went away (EPIPE). Returns whether the command winds
   * down by itself (a bulk re-send); otherwise the caller ends the run.
   */
  stdoutGone(): boolean {
    if (!this.stdoutClosed) this.onStdoutClosed?.();
    this.stdoutClosed = true;
    return this.onStdoutClosed !== undefined;
  }

  get stdoutWasClosed(): boolean {
    return this.stdoutClosed;
  }

  /**
   * Runs synchronous work that could run for good (a jq program that never
   * ends) with Ctrl-C and SIGTERM left to the system: no handler of ours can run
   * while it holds the thread, and the system's own ends the process (exit 130
   * for Ctrl-C, as a shell reports it). The handlers are back once it returns.
   */
  withSystemSignals<T>(work: () => T): T {
    const signals: StopSignal[] = ['SIGINT', 'SIGTERM'];
    // The raw listeners: a once() listener comes back as the wrapper that removes itself when it fires, not as a
    // listener for good (a second SIGTERM would then be swallowed instead of ending the process).
    const kept = signals.map((signal) => [signal, this.signals.rawListeners(signal) as Array<(...args: unknown[]) => void>] as const);
    for (const signal of signals) this.signals.removeAllListeners(signal);
    try {
      return work();
    } finally {
      for (const [signal, listeners] of kept) for (const listener of listeners) this.signals.on(signal, listener);
    }
  }
}
