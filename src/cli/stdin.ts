import type { InputStream } from './deps.js';

/** What a file flag that reads takes to read stdin instead (`--payload-file -`, `--secret-file -`), as clig.dev and gh do. */
export const STDIN = '-';

/** Everything that comes on stdin, to its end. */
export async function readStdin(stdin: InputStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
