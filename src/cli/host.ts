import type { InputStream, OutputStream } from './deps.js';

/** The signals a run can be told to stop by: the process's own, or a test's emitter. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

type Listener = (...args: unknown[]) => void;

/** What of Node's process (or any EventEmitter) the run uses for its signals. */
export interface SignalSource {
  on(signal: StopSignal, listener: Listener): unknown;
  once(signal: StopSignal, listener: Listener): unknown;
  removeListener(signal: StopSignal, listener: Listener): unknown;
  removeAllListeners(signal: StopSignal): unknown;
  // biome-ignore lint/complexity/noBannedTypes: Node's own type for it (process and EventEmitter both say Function[]).
  rawListeners(signal: StopSignal): Function[];
}

/** A stream whose failures can be heard (the process's stdout, a socket); a test's collector need not be one. */
export interface ErrorEmitter {
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  removeListener?(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/**
 * Everything the process gives a run of whsvc: its streams (with their
 * terminal flags and width), its environment, its signals and its clock. The
 * process makes one in main.ts; a test makes its own and calls runCli in-process.
 */
export interface Host {
  stdin: InputStream;
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
  signals: SignalSource;
  /** This machine's clock. */
  now(): number;
  /**
   * Ends the process at once with `code` (a second Ctrl-C, a reader that went away). Without it, as in a test, the
   * run ends with that code instead, and what it had under way is left to the test to stop.
   */
  exit?(code: number): never;
}

export const canFail = (stream: unknown): stream is ErrorEmitter => typeof (stream as Partial<ErrorEmitter>)?.on === 'function';
