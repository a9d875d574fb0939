import { readFileSync } from 'node:fs';
import { usageError } from './errors.js';

/** A signing secret from --secret-file, --secret or an environment variable; files keep it off argv. */
export function readSecret(
  options: { secret?: string | undefined; secretFile?: string | undefined },
  env: NodeJS.ProcessEnv,
  { envName, required = true }: { envName: string | undefined; required?: boolean },
): string {
  if (options.secret !== undefined && options.secretFile !== undefined) throw usageError('pass --secret or --secret-file, not both');
  if (options.secretFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.secretFile, 'utf8');
    } catch (error) {
      throw usageError(`--secret-file ${options.secretFile} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const secret = text.trim();
    if (!secret) throw usageError(`--secret-file ${options.secretFile} is empty`);
    return secret;
  }
  if (options.secret !== undefined) {
    if (!options.secret) throw usageError('--secret is empty');
    return options.secret;
  }
  const fromEnv = envName ? env[envName] : undefined;
  if (fromEnv) return fromEnv;
  if (!required) return '';
  throw usageError(`a signing secret is required: --secret-file FILE${envName ? `, ${envName}` : ''} or --secret S`);
}
