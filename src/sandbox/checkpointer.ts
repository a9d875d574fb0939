import { passOverSqliteWarning } from './sqlite-warning.js';
import type { Store } from './store.js';

/**
 * With --data-dir the store writes ahead to a log (SQLite's WAL), which a
 * checkpoint copies into the database file, with an fsync of each. Left to
 * SQLite, that happens in the commit that fills the log to 1,000 pages, on the
 * sandbox's one thread: a few times a second under a steady stream, each a
 * stall of every request and send for about as long as the fsyncs take.
 *
 * So a worker thread, with a connection of its own, checkpoints the log every
 * `everyMs`: passively, never waiting for or holding up the sandbox's writes.
 * Under a steady stream a passive checkpoint never quite catches up with the
 * writer, and SQLite starts the log over only once a checkpoint has copied all
 * of it; so the store's own checkpoint still runs, at `restartLogAtPages`,
 * and finds little left to copy or sync. See docs/benchmarks.md, "With
 * `--data-dir`".
 */
export const CHECKPOINT_EVERY_MS = 100;
/** 8,000 pages of 4 KB: the log, on disk beside the database, stays under about 32 MB. */
export const RESTART_LOG_AT_PAGES = 8_000;

export interface Checkpointer {
  /** Ends the worker, after a last checkpoint, its connection closed. */
  stop(): Promise<void>;
}

/** Hands a store's checkpoints to a worker thread; a store in memory has no log, and needs none. */
export function checkpointInBackground(
  store: Store,
  { everyMs = CHECKPOINT_EVERY_MS, restartLogAtPages = RESTART_LOG_AT_PAGES }: { everyMs?: number; restartLogAtPages?: number } = {},
): Checkpointer | undefined {
  if (store.file === undefined) return undefined;
  store.checkpointsOnlyAt(restartLogAtPages);
  const source = `(${passOverSqliteWarning.toString()})();\n(${checkpointLoop.toString()})(require('node:worker_threads').workerData);`;
  // Taken from Node when called: the build loads worker_threads at first use, and a class cannot be wrapped so.
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const worker = new Worker(source, { eval: true, workerData: { file: store.file, everyMs } });
  // It never keeps the sandbox alive on its own; should it fail, the store's own checkpoints still keep the log bounded.
  worker.unref();
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        // Held while it ends: with nothing else left to do, an unref'd worker's exit would never be waited for.
        worker.ref();
        worker.postMessage('stop');
        await exited;
      })();
      return stopped;
    },
  };
}

/** The worker's code, run from its source text: it may use nothing from this module's scope. */
function checkpointLoop({ file, everyMs }: { file: string; everyMs: number }): void {
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const { parentPort } = process.getBuiltinModule('node:worker_threads');
  const db = new DatabaseSync(file);
  // A lock held elsewhere (the store's own checkpoint) is not waited for: the next turn tries again.
  db.exec('PRAGMA busy_timeout = 0');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const once = () => {
    try {
      checkpoint.get();
    } catch {
      // busy: the next turn tries again
    }
  };
  const timer = setInterval(once, everyMs);
  parentPort?.once('message', () => {
    clearInterval(timer);
    once();
    db.close();
    parentPort.close();
  });
}
