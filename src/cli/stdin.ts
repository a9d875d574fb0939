import { readFileSync, statSync } from 'node:fs';
import { failureReason } from '../files/user-file.js';
import { bytesText } from '../render/words.js';
import type { InputStream } from './deps.js';
import { usageError } from './errors.js';

/** What a file flag that reads takes to read stdin instead (`--payload-file -`, `--secret-file -`), as clig.dev and gh do. */
export const STDIN = '-';

/** `--secret-file -` beside a payload that also comes from stdin (`--payload-file -`, or none given): stdin is read once. */
export function refuseTwoReadsOfStdin(payloadFile: string | undefined): void {
  if (payloadFile !== undefined && payloadFile !== STDIN) return;
  const payload = payloadFile === STDIN ? '--payload-file -' : 'the payload (without --payload-file)';
  throw usageError(`--secret-file - and ${payload} both read stdin, which can be read once: give one of them a file`);
}

/**
 * The most a file flag reads (a body to send, sign or verify, a declaration, an API request's input): 16 MiB, far
 * past the 64 KiB the service sends at most and any file of webhooks, and a bound on memory when a pipe never ends.
 */
export const MOST_READ_BYTES = 16 * 1024 * 1024;

/** Everything that comes on stdin, to its end, or a usage error once past `limit` (the rest is not read). */
export async function readStdin(stdin: InputStream, limit = MOST_READ_BYTES, what = 'stdin'): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    length += bytes.length;
    if (length > limit) throw tooLong(what, limit);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

const tooLong = (what: string, limit: number) => usageError(`${what} holds more than ${bytesText(limit)}, the most whsvc reads from it: nothing was read on`);

/**
 * What a file flag reads (`--input FILE`, `-F key=@FILE`, `webhooks apply -f FILE`): a regular file, or stdin for `-`
 * (never a terminal: nothing would come). A pipe or a device could hold the read for good, so only a regular file is
 * read by name. A file that cannot be read is a usage error naming it, before any request. `terminal` says what to do
 * when stdin is a terminal, where the flag's own `-` is not what the user typed (sign's body, by default from stdin).
 */
export async function readFileFlag(flag: string, path: string, stdin: InputStream, terminal?: string): Promise<Buffer> {
  if (path === STDIN) {
    if (stdin.isTTY) throw usageError(terminal ?? `${flag} - reads stdin, which is a terminal: pipe the content in (${flag} - < FILE)`);
    return readStdin(stdin, MOST_READ_BYTES, `${flag} -`);
  }
  if (path.trim() === '') throw usageError(`${flag} is empty: give the path of a file, or - for stdin`);
  const found = statSync(path, { throwIfNoEntry: false });
  if (!found) throw usageError(`${flag} ${path}: no such file`);
  if (!found.isFile()) throw usageError(`${flag} ${path} is not a regular file`, 'give the path of a file, or - to read stdin');
  if (found.size > MOST_READ_BYTES) throw tooLong(`${flag} ${path}`, MOST_READ_BYTES);
  try {
    return readFileSync(path);
  } catch (error) {
    throw usageError(`${flag} ${path} cannot be read: ${failureReason(error)}`);
  }
}
