import { passOverSqliteWarning } from './sqlite-warning.js';
import type { Store } from './store.js';

/**
 * With --data-dir the store writes ahead to a log (SQLite's WAL), which a
 * checkpoint copies into the database file, with an fsync of each. Left to
 * SQLite, that happens in the commit that fills the log to 1,000 pages, on the
 * sandbox's one thread: a few times a second under a steady stream, each a
 * stall of every request and send for about as long as the fsyncs take.
 *
 * So a worker thread, with a connection of its own, checkpoints the log
 * passively, then waits `everyMs` before the next. SQLite starts the log over
 * only at a write that begins with all of it copied and no other connection
 * reading it, and under a steady stream a passive checkpoint never quite
 * copies all: the writer appends while it copies. So once the log holds
 * `restartAtPages`, the worker makes a second checkpoint right after the
 * first, of what was appended while the first ran (little), with the store's
 * gate closed: the deliverer's writes wait (holdAtMostMs at most) and gather
 * into one batch, while the sandbox's thread goes on with its reads and sends.
 * Writes that do not wait at the gate (an attempt marked queued, the API's
 * own) can still keep the log from starting over: the worker sees so at its
 * next turn and does not close the gate again for `holdBackoffMs`. The store's
 * own checkpoint, on the sandbox's thread, still runs, only at
 * `storeCheckpointAtPages`. See docs/benchmarks.md, "With `--data-dir`".
 */
const CHECKPOINT_EVERY_MS = 100;
/** 4,000 pages of 4 KB: where the worker closes the gate so that the log starts over. */
const RESTART_AT_PAGES = 4_000;
/** How long a write waits at the gate at most. */
const HOLD_AT_MOST_MS = 50;
/** After a hold that did not let the log start over, how long the worker leaves the gate open. */
const HOLD_BACKOFF_MS = 500;
/** 8,000 pages of 4 KB: where the store checkpoints by itself, should the worker's not have let the log start over. */
const STORE_CHECKPOINT_AT_PAGES = 8_000;
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
  holdAtMostMs?: number;
  holdBackoffMs?: number;
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
    holdAtMostMs = HOLD_AT_MOST_MS,
    holdBackoffMs = HOLD_BACKOFF_MS,
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
      workerData: { file: store.file, everyMs, restartAtPages, holdBackoffMs, gate },
    });
  } catch (error) {
    onFailure((error as Error).message);
    return undefined;
  }
  // It never keeps the sandbox alive on its own.
  worker.unref();
  let stopping = false;
  let failed = false;
  // A worker that ended with the gate closed (killed mid-checkpoint) leaves no write waiting.
  const openGate = () => {
    Atomics.store(gate, 0, 0);
    Atomics.notify(gate, 0);
  };
  const fail = (why: string) => {
    openGate();
    if (stopping || failed) return;
    failed = true;
    store.checkpointsOnlyAt(SQLITE_CHECKPOINT_AT_PAGES);
    onFailure(why);
  };
  // The store leaves its checkpoints to the worker only once the worker's connection is open.
  worker.once('message', () => {
    if (stopping || failed) return;
    store.shareCheckpointGate(gate, holdAtMostMs);
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
        openGate();
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
  holdBackoffMs,
  gate,
}: {
  file: string;
  everyMs: number;
  restartAtPages: number;
  holdBackoffMs: number;
  gate: Int32Array;
}): void {
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const { parentPort } = process.getBuiltinModule('node:worker_threads');
  const db = new DatabaseSync(file);
  // A lock held elsewhere (the store's own checkpoint) is not waited for: the checkpoint says busy, the next turn tries again.
  db.exec('PRAGMA busy_timeout = 0');
  const statement = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const checkpoint = () => statement.get() as { busy: number; log: number; checkpointed: number };
  let holdAgainAt = 0;
  /** The log's length at the last hold, until the next turn has seen whether it started over. */
  let heldAtLog = 0;
  // everyMs after each checkpoint ends, not on a fixed beat: however slow the disk, the store's own checkpoint has
  // those gaps to take its turn in (it does not wait for the worker's, it tries again at its next commit).
  let timer = setTimeout(function turn() {
    try {
      const first = checkpoint();
      // The last hold did not let the log start over (a write that does not wait at the gate came meanwhile, or a
      // reader held the log): the gate stays open a while.
      if (heldAtLog > 0 && first.log >= heldAtLog) holdAgainAt = performance.now() + holdBackoffMs;
      heldAtLog = 0;
      // A log copied whole already starts over at the next write, gate or not.
      if (!first.busy && first.log >= restartAtPages && first.checkpointed < first.log && performance.now() >= holdAgainAt) {
        Atomics.store(gate, 0, 1);
        try {
          const held = checkpoint();
          if (held.busy || held.checkpointed < held.log) holdAgainAt = performance.now() + holdBackoffMs;
          else heldAtLog = held.log;
        } finally {
          Atomics.store(gate, 0, 0);
          Atomics.notify(gate, 0);
        }
      }
    } catch {
      // the database could not be read (a disk error): the next turn tries again
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
