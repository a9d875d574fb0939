import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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

    const checkpointer = checkpointInBackground(store, { everyMs: 10, restartLogAtPages: 100_000 });
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

  it('a store in memory has no log and gets no worker', () => {
    const store = new Store();
    expect(checkpointInBackground(store)).toBeUndefined();
    store.close();
  });
});
