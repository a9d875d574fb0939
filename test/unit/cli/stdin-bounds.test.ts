import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MOST_READ_BYTES, readFileFlag, readStdin } from '../../../src/cli/stdin.js';
import type { InputStream } from '../../../src/cli/deps.js';

const dir = mkdtempSync(join(tmpdir(), 'whsvc-stdin-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stdin that gives `chunks` chunks of 1 MiB, counting how many were taken. */
function endless(chunks: number): InputStream & { taken: number } {
  const stream = {
    isTTY: false,
    taken: 0,
    async *[Symbol.asyncIterator]() {
      for (let i = 0; i < chunks; i++) {
        stream.taken += 1;
        yield Buffer.alloc(1024 * 1024, 'x');
      }
    },
  };
  return stream;
}

describe('what a file flag reads is bounded (MOST_READ_BYTES)', () => {
  it('stdin past the bound is a usage error naming the flag, and what comes after is not read', async () => {
    const stdin = endless(1000);
    const error = await readFileFlag('--data', '-', stdin).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, message: '--data - holds more than 16 MiB, the most whsvc reads from it: nothing was read on' });
    expect(stdin.taken).toBe(MOST_READ_BYTES / (1024 * 1024) + 1);
  });

  it('a file past the bound is refused by its size, before it is read', async () => {
    const path = join(dir, 'big.json');
    writeFileSync(path, '');
    truncateSync(path, MOST_READ_BYTES + 1);
    await expect(readFileFlag('-f', path, endless(0))).rejects.toMatchObject({
      exitCode: 2,
      message: `-f ${path} holds more than 16 MiB, the most whsvc reads from it: nothing was read on`,
    });
  });

  it('up to the bound, all of it', async () => {
    expect((await readStdin(endless(3))).length).toBe(3 * 1024 * 1024);
  });
});
