import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Io } from '../cli/deps.js';
import { usageError } from '../cli/errors.js';
import { checkSecretFilePath, pastedSecret } from '../cli/secret.js';
import { readStdin, STDIN } from '../cli/stdin.js';

// The signing secrets a delivery is verified against (listen, verify, check-receiver, tail) or signed with (send, sign,
// replay): several files at once while a receiver moves to a new secret, each read again when it changes.

export interface SecretSource {
  /** Where the secret comes from, for messages (never the secret itself). */
  describe: string;
  /** What names it on a line that says which secret verified a delivery: the file as given, `stdin`, `--secret` or the variable. */
  name: string;
  /** The secret now, or undefined when there is none (yet). */
  current(): string | undefined;
}

/** What stands for no secret: signatures are shown, not checked. */
const NO_SECRET = 'no secret (signatures are not checked)';

/**
 * A signing secret from --secret-file, --secret or an environment variable.
 * A file is read again whenever it changes, so that `listen --secret-file F`
 * can start before `webhooks create --secret-file F` writes it;
 * `--secret-file -` reads stdin, once.
 */
export async function secretSource(
  options: { secret?: string | undefined; secretFile?: string | undefined },
  io: Pick<Io, 'env' | 'stdin' | 'secrets'>,
  envName?: string,
): Promise<SecretSource> {
  const [source] = await secretSources(
    { secret: options.secret, secretFiles: options.secretFile === undefined ? undefined : [options.secretFile] },
    io,
    envName,
  );
  return source ?? { describe: NO_SECRET, name: 'none', current: () => undefined };
}

/**
 * The secrets a receiver checks with (`listen`, `verify`, `check-receiver`):
 * each --secret-file given (more than one while a receiver moves to a new
 * secret: either verifies), else --secret, else the environment variable;
 * none at all is an empty list. Each file as secretSource reads it; `-` (stdin)
 * at most once. Each secret read joins the run's secrets (Io.secrets), masked
 * in what the run prints of others' text.
 */
export async function secretSources(
  options: { secret?: string | undefined; secretFiles?: readonly string[] | undefined },
  io: Pick<Io, 'env' | 'stdin' | 'secrets'>,
  envName?: string,
): Promise<SecretSource[]> {
  const sources = await readSecretSources(options, io, envName);
  const held = io.secrets;
  if (!held) return sources;
  return sources.map((source) => {
    let last: string | undefined;
    return {
      ...source,
      current() {
        const secret = source.current();
        if (secret !== last) held.add(secret);
        last = secret;
        return secret;
      },
    };
  });
}

async function readSecretSources(
  options: { secret?: string | undefined; secretFiles?: readonly string[] | undefined },
  io: Pick<Io, 'env' | 'stdin'>,
  envName?: string,
): Promise<SecretSource[]> {
  const files = options.secretFiles ?? [];
  if (options.secret !== undefined && files.length > 0) throw usageError('pass --secret or --secret-file, not both');
  if (files.filter((path) => path === STDIN).length > 1) throw usageError('--secret-file - is given twice: stdin can be read once');
  const twice = files.find((path, i) => path !== STDIN && files.indexOf(path) !== i);
  if (twice !== undefined) throw usageError(`--secret-file ${twice} is given twice`);
  if (files.length > 0) {
    for (const path of files) checkSecretFilePath(path);
    // Every path checked before stdin is read.
    for (const path of files) if (path !== STDIN) checkSecretFile(path);
    const sources: SecretSource[] = [];
    for (const path of files) sources.push(path === STDIN ? await stdinSecret(io.stdin) : fileSecret(path));
    return sources;
  }
  if (options.secret !== undefined) {
    const secret = pastedSecret(options.secret);
    if (secret === '') throw usageError('--secret is empty');
    return [{ describe: 'the --secret given', name: '--secret', current: () => secret }];
  }
  const fromEnv = envName && io.env[envName] ? pastedSecret(io.env[envName]) : undefined;
  if (fromEnv) return [{ describe: envName!, name: envName!, current: () => fromEnv }];
  return [];
}

/** The secrets in words: `the secret in a.txt`, `the secrets in a.txt and b.txt (either verifies)`, or none. */
export function describeSecrets(sources: readonly SecretSource[]): string {
  if (sources.length === 0) return NO_SECRET;
  if (sources.length === 1) return sources[0]!.describe;
  const names = sources.map((source) => source.name);
  return `the secrets in ${names.slice(0, -1).join(', ')} and ${names.at(-1)} (any of them verifies)`;
}

/** The secrets there are now, each with its name (a file not written yet has none). */
export function currentSecrets(sources: readonly SecretSource[]): Array<{ name: string; secret: string }> {
  return sources.flatMap((source) => {
    const secret = source.current();
    return secret === undefined ? [] : [{ name: source.name, secret }];
  });
}

/** A path that can never hold a secret to read (a directory, a pipe, a device) is a usage error at once. */
function checkSecretFile(path: string): void {
  const found = statSync(path, { throwIfNoEntry: false });
  if (found?.isDirectory()) throw usageError(`--secret-file ${path} is a directory`, 'give the path of the file that holds the secret');
  // A pipe or a device could hold the read for good, past Ctrl-C: a regular file only, or `-` for stdin.
  if (found && !found.isFile()) {
    throw usageError(`--secret-file ${path} is not a regular file`, 'give the path of the file that holds the secret, or - to read it from stdin');
  }
}

/** The secret in a file, read again whenever the file changes; undefined while there is none. */
function fileSecret(path: string): SecretSource {
  // Read again when the file changes: its time, size or inode (a time alone can stay the same across a write that
  // lands in the same tick, as `webhooks create` filling the file it reserved empty can).
  let cached: { version: string; secret: string } | undefined;
  return {
    describe: `the secret in ${path}`,
    name: path,
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

/** `--secret-file -`: the secret piped in on stdin, read once; a terminal, or nothing piped, is a usage error. */
async function stdinSecret(stdin: Io['stdin']): Promise<SecretSource> {
  if (stdin.isTTY) throw usageError('--secret-file - reads the secret from stdin, which is a terminal: pipe it in (--secret-file - < whsec.txt)');
  const secret = pastedSecret((await readStdin(stdin, 64 * 1024, '--secret-file -')).toString('utf8'));
  if (secret === '') throw usageError('--secret-file - read nothing from stdin: pipe the secret in (--secret-file - < whsec.txt)');
  return { describe: 'the secret from stdin', name: 'stdin', current: () => secret };
}

/** The secret a command cannot do without: a usage error when there is none. */
export async function requiredSecret(
  options: { secret?: string | undefined; secretFile?: string | undefined },
  io: Pick<Io, 'env' | 'stdin' | 'secrets'>,
  envName?: string,
): Promise<string> {
  const secretFiles = options.secretFile === undefined ? undefined : [options.secretFile];
  return (await requiredSecrets({ secret: options.secret, secretFiles }, io, envName))[0]!.secret;
}

/**
 * The secrets a command cannot do without (secretSources), each with its name:
 * a usage error when there is none, or when a file given cannot be read or is empty.
 */
export async function requiredSecrets(
  options: { secret?: string | undefined; secretFiles?: readonly string[] | undefined },
  io: Pick<Io, 'env' | 'stdin' | 'secrets'>,
  envName?: string,
): Promise<Array<{ name: string; secret: string }>> {
  const sources = await secretSources(options, io, envName);
  if (sources.length === 0) throw usageError(`a signing secret is required: --secret-file FILE${envName ? `, ${envName}` : ''} or --secret S`);
  // Only a --secret-file can have no secret (--secret and the variable are never empty): the sources are the files, in order.
  return sources.map((source, i) => {
    const secret = source.current();
    if (secret === undefined) {
      const path = options.secretFiles?.[i] ?? source.name;
      const why = path === STDIN ? 'read nothing from stdin' : existsSync(path) ? 'cannot be read, or is empty' : 'is not there';
      throw usageError(`--secret-file ${path} ${why}`, 'it holds the signing secret alone, as your app verifies with it: printf %s "$SECRET" > FILE');
    }
    return { name: source.name, secret };
  });
}
