import { passOverSqliteWarning } from './sqlite-warning.js';
import type { Store } from './store.js';

/**
 * With --data-dir the store writes ahead to a log (SQLite's WAL), which a
 * checkpoint copies into the database file, with an fsync of each. Left to
 * SQLite, that happens in the commit that fills the log to 1,000 pages, on the
 * sandbox's one thread: a few times a second under a steady stream, each a
 * stall of every request and send for about as long as the fsyncs take.
 *
 * So a worker thread, with a connection of its own, checkpoints the log, then
 * waits `everyMs` before the next: passively, never waiting for or holding up
 * the sandbox's writes. SQLite starts the log over only at a write that finds
 * all of it copied, and under a steady stream a passive checkpoint never quite
 * copies all: the writer appends while it copies. So once the log holds
 * `restartAtPages`, the worker copies what was appended since its last turn
 * (little) with the sandbox's writes asked to wait (the store's gate): the
 * sandbox's thread stays free meanwhile, its sends and requests go on, and a
 * write held back only waits (HOLD_AT_MOST_MS at most) and joins the next
 * batch. The store's own checkpoint, on the sandbox's thread, still runs, only
 * at `storeCheckpointAtPages`: should the worker's never find a quiet log.
 * See docs/benchmarks.md, "With `--data-dir`".
 */
export const CHECKPOINT_EVERY_MS = 100;
/** 4,000 pages of 4 KB: where the worker asks the writes to wait so that the log starts over. */
export const RESTART_AT_PAGES = 4_000;
/** How long a write waits for the worker's checkpoint at most. */
const HOLD_AT_MOST_MS = 50;
/** After a hold that did not let the log start over, how long before the worker holds the writes again. */
const HOLD_AT_MOST_EVERY_MS = 500;
/** 8,000 pages of 4 KB: where the store checkpoints by itself, should the worker's not have let the log start over. */
export const STORE_CHECKPOINT_AT_PAGES = 8_000;
/** SQLite's own threshold, which the store goes back to should the worker fail. */
const SQLITE_CHECKPOINT_AT_PAGES = 1_000;
/** How long a stop waits for the worker's last checkpoint before ending it. */
const STOP_WITHIN_MS = 5_000;

export interface Checkpointer {
  /** Ends the worker, its connection closed. */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  everyMs?: number;
  restartAtPages?: number;
  holdEveryMs?: number;
  storeCheckpointAtPages?: number;
  /** Told, once, that the worker could not start or stopped on its own (the store checkpoints by itself again). */
  onFailure?: (why: string) => void;
}

const sayFailure = (why: string) =>
  process.stderr.write(`whsvc sandbox: the store's background checkpoints stopped (${why}); the sandbox makes them itself from now on\n`);

/** Hands a store's checkpoints to a worker thread; a store in memory has no log, and needs none. */
export function checkpointInBackground(
  store: Store,
  {
    everyMs = CHECKPOINT_EVERY_MS,
    restartAtPages = RESTART_AT_PAGES,
    holdEveryMs = HOLD_AT_MOST_EVERY_MS,
    storeCheckpointAtPages = STORE_CHECKPOINT_AT_PAGES,
    onFailure = sayFailure,
  }: CheckpointerOptions = {},
): Checkpointer | undefined {
  if (store.file === undefined) return undefined;
  const source = `(${passOverSqliteWarning.toString()})();\n(${checkpointLoop.toString()})(require('node:worker_threads').workerData);`;
  // Taken from Node when called: the build loads worker_threads at first use, and a class cannot be wrapped so.
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const gate = new Int32Array(new SharedArrayBuffer(4));
  let worker: InstanceType<typeof Worker>;
  try {
    worker = new Worker(source, {
      eval: true,
      workerData: { file: store.file, everyMs, restartAtPages, holdEveryMs, gate },
    });
  } catch (error) {
    onFailure((error as Error).message);
    return undefined;
  }
  // It never keeps the sandbox alive on its own.
  worker.unref();
  let stopping = false;
  let failed = false;
  const fail = (why: string) => {
    if (stopping || failed) return;
    failed = true;
    // A worker ended mid-checkpoint leaves no writes waiting.
    Atomics.store(gate, 0, 0);
    Atomics.notify(gate, 0);
    store.checkpointsOnlyAt(SQLITE_CHECKPOINT_AT_PAGES);
    onFailure(why);
  };
  // The store leaves its checkpoints to the worker only once the worker's connection is open.
  worker.once('message', () => {
    if (stopping || failed) return;
    store.shareCheckpointGate(gate, HOLD_AT_MOST_MS);
    store.checkpointsOnlyAt(storeCheckpointAtPages);
  });
  worker.on('error', (error) => fail(error.message));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      fail(`its thread ended, code ${code}`);
      resolve();
    }),
  );
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        stopping = true;
        // Held while it ends: with nothing else left to do, an unref'd worker's exit would never be waited for.
        worker.ref();
        worker.postMessage('stop');
        const slow = setTimeout(() => void worker.terminate(), STOP_WITHIN_MS);
        await exited;
        clearTimeout(slow);
      })();
      return stopped;
    },
  };
}

/** The worker's code, run from its source text: it may use nothing from this module's scope. */
function checkpointLoop({
  file,
  everyMs,
  restartAtPages,
  holdEveryMs,
  gate,
}: {
  file: string;
  everyMs: number;
  restartAtPages: number;
  holdEveryMs: number;
  gate: Int32Array;
}): void {
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const { parentPort } = process.getBuiltinModule('node:worker_threads');
  const db = new DatabaseSync(file);
  // A lock held elsewhere (the store's own checkpoint) is not waited for: the next turn tries again.
  db.exec('PRAGMA busy_timeout = 0');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  let holdAgainAt = 0;
  /** The log's length at the last hold, until the next turn has seen whether it started over. */
  let heldAtLog = 0;
  // everyMs after each checkpoint ends, not on a fixed beat: however slow the disk, the store's own checkpoint has
  // those gaps to take its turn in (it does not wait for the worker's, it tries again at its next commit).
  let timer = setTimeout(function turn() {
    try {
      const { log } = checkpoint.get() as { log: number };
      // The last hold did not let the log start over (a write that does not wait at the gate came meanwhile: a send
      // marked queued, say): not again at every turn.
      if (heldAtLog > 0 && log >= heldAtLog) holdAgainAt = performance.now() + holdEveryMs;
      heldAtLog = 0;
      if (log >= restartAtPages && performance.now() >= holdAgainAt) {
        Atomics.store(gate, 0, 1);
        try {
          heldAtLog = (checkpoint.get() as { log: number }).log;
        } finally {
          Atomics.store(gate, 0, 0);
          Atomics.notify(gate, 0);
        }
      }
    } catch {
      // busy: the next turn tries again
    }
    timer = setTimeout(turn, everyMs);
  }, everyMs);
  parentPort?.postMessage('ready');
  parentPort?.once('message', () => {
    clearTimeout(timer);
    db.close();
    parentPort.close();
  });
}
