import { execFileSync } from 'node:child_process';

/** The arguments bash reads from `text` (a command as laid out, ` \` and line breaks and all), as a user pastes it. */
export function argsPasted(text: string): string[] {
  return execFileSync('bash', ['-c', `printf '%s\\0' ${text}`], { encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);
}
