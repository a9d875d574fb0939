import type { Database } from './database.js';

/**
 * Writes batched per turn of the event loop: those asked for in the same turn
 * are written in one transaction (one commit, one write to the log with
 * --data-dir), which is most of what a busy sandbox spends on its store.
 */
export class BatchedWrites {
  private pending: Array<() => void> = [];
  private written: Promise<void> | null = null;

  constructor(
    private readonly database: Pick<Database, 'transaction'>,
    /** Runs at the end of each batch, inside its transaction. */
    private readonly afterEach: () => void,
  ) {}

  /** Resolves once `work` is committed with the rest of its batch; rejects, with the whole batch, if any of it failed. */
  write(work: () => void): Promise<void> {
    this.pending.push(work);
    this.written ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        const batch = this.pending;
        this.pending = [];
        this.written = null;
        try {
          this.database.transaction(() => {
            for (const each of batch) each();
            this.afterEach();
          });
          resolve();
        } catch (error) {
          reject(error);
        }
      });
    });
    return this.written;
  }
}
