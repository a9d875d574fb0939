import { readFileSync, statSync } from 'node:fs';
import type { Io } from './deps.js';
import { usageError } from './errors.js';
import { readStdin, STDIN } from './stdin.js';

/**
 * A secret as it was pasted or read: whitespace at its ends (a trailing space, a newline, a Windows
 * CR) is never part of a secret, and is dropped, as gh does with a token it reads. For every secret:
 * the client secret of login (prompt, stdin, WHSVC_CLIENT_SECRET) and the signing secrets of
 * --secret, --secret-file and their variables. Whitespace inside stays (insideWhitespace says so).
 */
export const pastedSecret = (value: string): string => value.trim();

/** Why a refused secret may be wrong: a space or line break inside it, from a paste cut across lines. */
export const insideWhitespace = (secret: string): string | undefined =>
  /\s/.test(secret) ? 'it holds a space or a line break inside: copy it again, whole, on one line' : undefined;

export interface SecretSource {
  /** Where the secret comes from, for messages (never the secret itself). */
  describe: string;
  /** The secret now, or undefined when there is none (yet). */
  current(): string | undefined;
}

/** An empty --secret-file (an unset variable in CI, say) is a usage error before anything runs: never "no file, print it". */
export function checkSecretFilePath(path: string | undefined, purpose = 'the file that holds the secret'): void {
  if (path !== undefined && path.trim() === '') throw usageError(`--secret-file is empty: give the path of ${purpose}`);
}

/**
 * A signing secret from --secret-file, --secret or an environment variable.
 * A file is read again whenever it changes, so that `listen --secret-file F`
 * can start before `webhooks create --secret-file F` writes it;
 * `--secret-file -` reads stdin, once.
 */
export async function secretSource(
  options: { secret?: string | undefined; secretFile?: string | undefined },
  io: Pick<Io, 'env' | 'stdin'>,
  envName?: string,
): Promise<SecretSource> {
  if (options.secret !== undefined && options.secretFile !== undefined) throw usageError('pass --secret or --secret-file, not both');
  if (options.secretFile !== undefined) {
    const path = options.secretFile;
    checkSecretFilePath(path);
    if (path === STDIN) return stdinSecret(io.stdin);
    const found = statSync(path, { throwIfNoEntry: false });
    if (found?.isDirectory()) throw usageError(`--secret-file ${path} is a directory`, 'give the path of the file that holds the secret');
    // A pipe or a device could hold the read for good, past Ctrl-C: a regular file only, or `-` for stdin.
    if (found && !found.isFile()) {
      throw usageError(`--secret-file ${path} is not a regular file`, 'give the path of the file that holds the secret, or - to read it from stdin');
    }
    // Read again when the file changes: its time, size or inode (a time alone can stay the same across a write that
    // lands in the same tick, as `webhooks create` filling the file it reserved empty can).
    let cached: { version: string; secret: string } | undefined;
    return {
      describe: `the secret in ${path}`,
      current() {
        try {
          const stats = statSync(path);
          // Never read from what is not a regular file (a FIFO swapped in would wait forever): no secret, for now.
          if (!stats.isFile()) return undefined;
          const version = `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
          if (cached?.version !== version) cached = { version, secret: pastedSecret(readFileSync(path, 'utf8')) };
          return cached.secret || undefined;
        } catch {
          return undefined;
        }
      },
    };
  }
  if (options.secret !== undefined) {
    const secret = pastedSecret(options.secret);
    if (secret === '') throw usageError('--secret is empty');
    return { describe: 'the --secret given', current: () => secret };
  }
  const fromEnv = envName && io.env[envName] ? pastedSecret(io.env[envName]) : undefined;
  if (fromEnv) return { describe: envName!, current: () => fromEnv };
  return { describe: 'no secret (signatures are not checked)', current: () => undefined };
}

/** `--secret-file -`: the secret piped in on stdin, read once; a terminal, or nothing piped, is a usage error. */
async function stdinSecret(stdin: Io['stdin']): Promise<SecretSource> {
  if (stdin.isTTY) throw usageError('--secret-file - reads the secret from stdin, which is a terminal: pipe it in (--secret-file - < whsec.txt)');
  const secret = pastedSecret((await readStdin(stdin)).toString('utf8'));
  if (secret === '') throw usageError('--secret-file - read nothing from stdin: pipe the secret in (--secret-file - < whsec.txt)');
  return { describe: 'the secret from stdin', current: () => secret };
}

/** The secret a command cannot do without: a usage error when there is none. */
export async function requiredSecret(
  options: { secret?: string | undefined; secretFile?: string | undefined },
  io: Pick<Io, 'env' | 'stdin'>,
  envName?: string,
): Promise<string> {
  const secret = (await secretSource(options, io, envName)).current();
  if (secret !== undefined) return secret;
  if (options.secretFile !== undefined) throw usageError(`--secret-file ${options.secretFile} cannot be read, or is empty`);
  throw usageError(`a signing secret is required: --secret-file FILE${envName ? `, ${envName}` : ''} or --secret S`);
}
