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
 * FORCE_COLOR turns it on (FORCE_COLOR=0 off). Decided per injected stream.
 * Six SGR codes written here rather than chalk: chalk's value is detecting
 * colour support, which is decided above per stream, and loading it cost
 * `webhooks list` about 3 ms of its ~100 ms start (measured A/B, 60 runs).
 */
export function colorsFor(stream: OutputStream, env: NodeJS.ProcessEnv, noColorFlag: boolean): Colors {
  let enabled = Boolean(stream.isTTY);
  if (env.FORCE_COLOR !== undefined) enabled = env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if ((env.NO_COLOR !== undefined && env.NO_COLOR !== '') || noColorFlag) enabled = false;
  const sgr = (open: number, close: number) => (s: string) => (enabled ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    green: sgr(32, 39),
    red: sgr(31, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}
