import { Chalk, type ChalkInstance } from 'chalk';
import type { OutputStream } from '../cli/deps.js';

export interface Colors {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

/**
 * Colour only when the stream is a TTY: NO_COLOR or --no-color turn it off,
 * FORCE_COLOR turns it on (FORCE_COLOR=0 off). Decided per injected stream,
 * not by chalk's process-wide detection.
 */
export function colorsFor(stream: OutputStream, env: NodeJS.ProcessEnv, noColorFlag: boolean): Colors {
  let enabled = Boolean(stream.isTTY);
  if (env.FORCE_COLOR !== undefined) enabled = env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if ((env.NO_COLOR !== undefined && env.NO_COLOR !== '') || noColorFlag) enabled = false;
  const chalk: ChalkInstance = new Chalk({ level: enabled ? 1 : 0 });
  return {
    enabled,
    bold: (s) => chalk.bold(s),
    dim: (s) => chalk.dim(s),
    green: (s) => chalk.green(s),
    red: (s) => chalk.red(s),
    yellow: (s) => chalk.yellow(s),
    cyan: (s) => chalk.cyan(s),
  };
}
