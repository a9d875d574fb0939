import { readFileSync, statSync } from 'node:fs';
import { failureReason } from '../files/user-file.js';
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

/** Everything that comes on stdin, to its end. */
export async function readStdin(stdin: InputStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * What a file flag reads (`--input FILE`, `-F key=@FILE`, `webhooks apply -f FILE`): a regular file, or stdin for `-`
 * (never a terminal: nothing would come). A pipe or a device could hold the read for good, so only a regular file is
 * read by name. A file that cannot be read is a usage error naming it, before any request. `terminal` says what to do
 * when stdin is a terminal, where the flag's own `-` is not what the user typed (sign's body, by default from stdin).
 */
export async function readFileFlag(flag: string, path: string, stdin: InputStream, terminal?: string): Promise<Buffer> {
  if (path === STDIN) {
    if (stdin.isTTY) throw usageError(terminal ?? `${flag} - reads stdin, which is a terminal: pipe the content in (${flag} - < FILE)`);
    return readStdin(stdin);
  }
  if (path.trim() === '') throw usageError(`${flag} is empty: give the path of a file, or - for stdin`);
  const found = statSync(path, { throwIfNoEntry: false });
  if (!found) throw usageError(`${flag} ${path}: no such file`);
  if (!found.isFile()) throw usageError(`${flag} ${path} is not a regular file`, 'give the path of a file, or - to read stdin');
  try {
    return readFileSync(path);
  } catch (error) {
    throw usageError(`${flag} ${path} cannot be read: ${failureReason(error)}`);
  }
}
