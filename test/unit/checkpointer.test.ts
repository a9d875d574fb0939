import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkpointInBackground } from '../../src/sandbox/checkpointer.js';
import { Store } from '../../src/sandbox/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** About 2 MB written in 500 commits, each to the log. */
function writeMuch(store: Store): void {
  for (let i = 0; i < 500; i++) store.setMeta(`filler_${i}`, 'x'.repeat(4_000));
}

describe('checkpointInBackground: the log copied into the database by a worker thread', () => {
  it('the store alone copies nothing before its own threshold; the worker does, and on stop closes its connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-checkpoint-'));
    dirs.push(dir);
    const store = new Store(dir);
    const file = join(dir, 'sandbox.db');
    store.checkpointsOnlyAt(100_000);
    writeMuch(store);
    const before = statSync(file).size;
    expect(before, 'nothing copied yet: it is all in the log').toBeLessThan(500_000);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(2_000_000);

    const checkpointer = checkpointInBackground(store, { everyMs: 10, storeCheckpointAtPages: 100_000 });
    expect(checkpointer).toBeDefined();
    await expect.poll(() => statSync(file).size, { timeout: 10_000 }).toBeGreaterThan(2_000_000);
    expect(store.getMeta('filler_499')).toHaveLength(4_000);

    await checkpointer!.stop();
    store.close();
    // The store's was the last connection: closing it took the log away.
    expect(existsSync(`${file}-wal`)).toBe(false);
    const again = new Store(dir);
    expect(again.getMeta('filler_0')).toHaveLength(4_000);
    again.close();
  });

  it("under a steady writer the log stays bounded: the store's own checkpoint, at its threshold, lets it start over", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-checkpoint-'));
    dirs.push(dir);
    const store = new Store(dir);
    const log = join(dir, 'sandbox.db-wal');
    // The worker's first turn a minute away: the store's own checkpoint is never turned away by one of the worker's
    // under way (which only delays it to a later commit), so what is measured is the threshold alone.
    const checkpointer = checkpointInBackground(store, { everyMs: 60_000, storeCheckpointAtPages: 200 });
    await expect.poll(() => store.db.prepare('PRAGMA wal_autocheckpoint').get(), { timeout: 10_000 }).toEqual({ wal_autocheckpoint: 200 });
    // 3,000 commits of a page or two each, the event loop turning between them as the sandbox's does.
    let largest = 0;
    for (let i = 0; i < 3_000; i++) {
      store.setMeta(`filler_${i % 50}`, `${i}`.padEnd(3_000, 'x'));
      if (i % 20 === 0) {
        largest = Math.max(largest, statSync(log).size);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    // 200 pages of 4 KB with their frame headers is 0.8 MB, and a commit adds a page or two: never the whole stream's 25 MB.
    expect(largest).toBeLessThan(1_000_000);
    await checkpointer!.stop();
    store.close();
  });

  it('a worker that cannot open the store is said once, and the store goes back to checkpointing by itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-checkpoint-'));
    dirs.push(dir);
    const store = new Store(dir);
    rmSync(dir, { recursive: true, force: true });
    const onFailure = vi.fn();
    const checkpointer = checkpointInBackground(store, { everyMs: 10, storeCheckpointAtPages: 100_000, onFailure });
    await vi.waitFor(() => expect(onFailure).toHaveBeenCalledTimes(1), { timeout: 10_000 });
    expect(onFailure.mock.calls[0]![0]).toMatch(/unable to open|no such file/i);
    expect(store.db.prepare('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 1_000 });
    await checkpointer!.stop();
    expect(onFailure).toHaveBeenCalledTimes(1);
    store.close();
  });

  it('a store in memory has no log and gets no worker', () => {
    const store = new Store();
    expect(checkpointInBackground(store)).toBeUndefined();
    store.close();
  });
});
