import { describe, expect, it } from 'vitest';
import { BatchedWrites } from '../../../../src/sandbox/store/batched-writes.js';
import { Database } from '../../../../src/sandbox/store/database.js';

/** An in-memory database whose transactions are counted, each with what the end-of-batch hook saw when it ran. */
function counted() {
  const database = new Database();
  const transaction = database.transaction.bind(database);
  let transactions = 0;
  const batchEnds: string[][] = [];
  const written = () => ['a', 'b', 'c'].filter((key) => database.getMeta(key) !== undefined);
  const batched = new BatchedWrites(
    {
      transaction: (work) => {
        transactions += 1;
        return transaction(work);
      },
    },
    () => batchEnds.push(written()),
  );
  return { database, batched, written, batchEnds, transactions: () => transactions };
}

describe('BatchedWrites', () => {
  it('writes what is asked for in one turn of the event loop in one transaction, and runs the hook at its end, inside it', async () => {
    const { database, batched, written, batchEnds, transactions } = counted();
    const first = batched.write(() => database.setMeta('a', '1'));
    const second = batched.write(() => database.setMeta('b', '1'));
    expect(written()).toEqual([]);
    await Promise.all([first, second]);
    expect(written()).toEqual(['a', 'b']);
    expect(transactions()).toBe(1);
    expect(batchEnds).toEqual([['a', 'b']]);

    await batched.write(() => database.setMeta('c', '1'));
    expect(transactions()).toBe(2);
    expect(batchEnds).toEqual([
      ['a', 'b'],
      ['a', 'b', 'c'],
    ]);
    database.close();
  });

  it('a write that fails fails its whole batch, none of it written; the next turn is a batch of its own', async () => {
    const { database, batched, written } = counted();
    const fine = batched.write(() => database.setMeta('a', '1'));
    const failing = batched.write(() => {
      throw new Error('no room');
    });
    await expect(fine).rejects.toThrow('no room');
    await expect(failing).rejects.toThrow('no room');
    expect(written()).toEqual([]);
    await batched.write(() => database.setMeta('b', '1'));
    expect(written()).toEqual(['b']);
    database.close();
  });
});
