import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkpointInBackground } from '../../src/sandbox/checkpointer.js';
import { Store } from '../../src/sandbox/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store with --data-dir in a temp dir of its own, removed after the test. */
function storeInTempDir(): { dir: string; store: Store } {
  const dir = mkdtempSync(join(tmpdir(), 'whsvc-checkpoint-'));
  dirs.push(dir);
  return { dir, store: new Store(dir) };
}

/** About 2 MB written in 500 commits, each to the log. */
function writeMuch(store: Store): void {
  for (let i = 0; i < 500; i++) store.setMeta(`filler_${i}`, 'x'.repeat(4_000));
}

describe('checkpointInBackground: the log copied into the database by a worker thread', () => {
  it('the store alone copies nothing before its own threshold; the worker does, and on stop closes its connection', async () => {
    const { dir, store } = storeInTempDir();
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
    const { dir, store } = storeInTempDir();
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

  it("under a steady writer that waits at the gate, the worker lets the log start over, the store's own checkpoint out of reach", async () => {
    const { dir, store } = storeInTempDir();
    const log = join(dir, 'sandbox.db-wal');
    // Writes wait at the gate as long as it takes (a minute): the gate must be opened, not merely time out.
    const checkpointer = checkpointInBackground(store, {
      everyMs: 5,
      restartAtPages: 200,
      holdAtMostMs: 60_000,
      holdBackoffMs: 0,
      storeCheckpointAtPages: 1_000_000,
    });
    await expect.poll(() => store.db.prepare('PRAGMA wal_autocheckpoint').get(), { timeout: 10_000 }).toEqual({ wal_autocheckpoint: 1_000_000 });
    // The log's salt (bytes 16 to 23 of its header) is drawn afresh each time it starts over.
    const salt = () => {
      const header = Buffer.alloc(8);
      const fd = openSync(log, 'r');
      readSync(fd, header, 0, 8, 16);
      closeSync(fd);
      return header.toString('hex');
    };
    const salts = new Set<string>();
    // Commits as the sandbox's deliverer makes them, each after the gate lets it, the event loop turning between them,
    // until the log has started over 10 times (for 20 s at most: a slow disk makes fewer turns).
    const until = Date.now() + 20_000;
    for (let i = 0; Date.now() < until && salts.size <= 10; i++) {
      const wait = store.writesMayGo();
      await (wait ?? new Promise((resolve) => setImmediate(resolve)));
      store.setMeta(`filler_${i % 50}`, `${i}`.padEnd(3_000, 'x'));
      if (i % 10 === 0) salts.add(salt());
    }
    await checkpointer!.stop();
    store.close();
    // Without the gate the log seldom starts over (only when a passive checkpoint finds no write under way): not once in
    // 20 s, seen. How large it grows between turns depends on how late the worker's turns come.
    expect(salts.size).toBeGreaterThan(10);
  });

  it('a write waiting at the closed gate keeps the process alive (a wait on shared memory alone would not) and goes on once it opens', async () => {
    const store = new Store();
    const gate = new Int32Array(new SharedArrayBuffer(4));
    store.shareCheckpointGate(gate, 60_000);
    expect(store.writesMayGo()).toBeUndefined();
    Atomics.store(gate, 0, 1);
    const timersBefore = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    let opened = false;
    const waiting = store.writesMayGo()!.then(() => (opened = true));
    expect(process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length).toBe(timersBefore + 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(opened).toBe(false);
    Atomics.store(gate, 0, 0);
    Atomics.notify(gate, 0);
    await waiting;
    expect(process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
    store.close();
  });

  it('a worker that cannot open the store is said once, and the store goes back to checkpointing by itself', async () => {
    const { dir, store } = storeInTempDir();
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
