import type { ChalkInstance } from 'chalk';
import type { OutputStream } from './stream.js';

export interface Colors {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const identity = (s: string) => s;

/** Output with no colour at all: pipes, --json, NO_COLOR. */
export const PLAIN: Colors = { enabled: false, bold: identity, dim: identity, green: identity, red: identity, yellow: identity, cyan: identity };

/**
 * Whether a stream gets colour: only a TTY, unless FORCE_COLOR turns it on
 * (FORCE_COLOR=0 off); NO_COLOR or --no-color turn it off. Decided per
 * injected stream, so stdout and stderr can differ.
 */
export function wantsColor(stream: OutputStream, env: NodeJS.ProcessEnv, noColorFlag: boolean): boolean {
  let enabled = Boolean(stream.isTTY);
  if (env.FORCE_COLOR !== undefined) enabled = env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if ((env.NO_COLOR !== undefined && env.NO_COLOR !== '') || noColorFlag) enabled = false;
  return enabled;
}

/** chalk's styles, as the renderers use them. */
export function colorsFrom(chalk: ChalkInstance): Colors {
  return { enabled: true, bold: chalk.bold, dim: chalk.dim, green: chalk.green, red: chalk.red, yellow: chalk.yellow, cyan: chalk.cyan };
}

/** chalk's basic 16 colours, unless FORCE_COLOR asks for 256 (2) or 16 million (3). */
export const colorLevel = (env: NodeJS.ProcessEnv): 1 | 2 | 3 => (env.FORCE_COLOR === '2' ? 2 : env.FORCE_COLOR === '3' ? 3 : 1);

/**
 * The colours of a stream: chalk where the stream gets colour, and chalk is
 * loaded only then, so a pipe and --json never pay for it.
 */
export async function colorsFor(stream: OutputStream, env: NodeJS.ProcessEnv, noColorFlag: boolean): Promise<Colors> {
  if (!wantsColor(stream, env, noColorFlag)) return PLAIN;
  const { Chalk } = await import('chalk');
  return colorsFrom(new Chalk({ level: colorLevel(env) }));
}
