import { readFileSync, statSync } from 'node:fs';
import type { InputStream } from './deps.js';
import { usageError } from './errors.js';

/** What a file flag that reads takes to read stdin instead (`--payload-file -`, `--secret-file -`), as clig.dev and gh do. */
export const STDIN = '-';

/** Everything that comes on stdin, to its end. */
export async function readStdin(stdin: InputStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * The bytes a file flag reads (`--payload-file F`, `--data @F`), exactly: a
 * regular file's (a pipe or a device could hold the read, or never end it),
 * or with `-` all of stdin, unless stdin is a terminal (nothing is piped in:
 * `terminal` says what to do instead). A path that cannot be read is a usage
 * error naming it as `given` (`--payload-file body.json`, `--data @body.json`).
 */
export async function readInput(path: string, given: string, stdin: InputStream, terminal: string): Promise<Buffer> {
  if (path === STDIN) {
    if (stdin.isTTY) throw usageError(terminal);
    return readStdin(stdin);
  }
  if (statSync(path, { throwIfNoEntry: false })?.isFile() === false) {
    throw usageError(`${given} is not a regular file`, 'give the path of a file, or - to read it from stdin');
  }
  try {
    return readFileSync(path);
  } catch (error) {
    throw usageError(`${given} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
