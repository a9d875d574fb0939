import { usageError } from './errors.js';

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

/** An empty --secret-file (an unset variable in CI, say) is a usage error before anything runs: never "no file, print it". */
export function checkSecretFilePath(path: string | undefined, purpose = 'the file that holds the secret'): void {
  if (path !== undefined && path.trim() === '') throw usageError(`--secret-file is empty: give the path of ${purpose}`);
}
