/**
 * The sandbox's bound on V8's young generation, in MB a semi-space. Left to
 * itself V8 sizes the young generation from the machine's memory and grows it
 * as a steady stream goes on (64 MB a semi-space on a machine of 24 GB): the
 * sandbox's resident set then rose with the count of events until V8 was done
 * growing it, past the budget of 256 MB through 1,000,000 events (261 MB in one
 * soak). At 16 MB it is reached early and held (161–175 MB), for about a tenth
 * more CPU per event in memory and none with --data-dir (at 4 or 8 MB it cost
 * up to a fifth more: objects that live through a send were promoted).
 * docs/benchmarks.md, "The budget".
 */
export const SANDBOX_SEMI_SPACE_MB = 16;

/** What decides whether the sandbox can start Node again: this process's. */
export interface NodeProcess {
  platform: NodeJS.Platform;
  execPath: string;
  execArgv: readonly string[];
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** An IPC channel to a parent (fork()): Node takes its variables out of env, so a new start would lose it. */
  hasChannel: boolean;
  /** False under Node's permission model without child processes allowed. */
  mayExec: boolean;
}

/** A bound given by the user (on node's command line or in NODE_OPTIONS) is theirs to keep. */
const SEMI_SPACE_FLAG = /^--max[-_]semi[-_]space[-_]size(=|$)/;
/** A debugger attached (or waiting) to this process would have to attach again to the new one. */
const INSPECT_FLAG = /^--inspect(-brk|-wait)?(=|$)/;

/** NODE_OPTIONS' words, as Node splits them: on spaces, with double quotes keeping a word whole. */
function nodeOptionWords(nodeOptions: string | undefined): string[] {
  return [...(nodeOptions ?? '').matchAll(/"((?:\\.|[^"\\])*)"|(\S+)/g)].map((match) => (match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1'));
}

/**
 * The command line that starts this process again with the bound, or
 * undefined where it should run as it is: a bound already given, Windows
 * (no execve), a debugger, an IPC channel, or no permission to exec.
 */
export function boundedCommandLine(proc: NodeProcess): string[] | undefined {
  const flags = [...proc.execArgv, ...nodeOptionWords(proc.env.NODE_OPTIONS)];
  if (flags.some((flag) => SEMI_SPACE_FLAG.test(flag) || INSPECT_FLAG.test(flag))) return undefined;
  if (proc.platform === 'win32' || proc.hasChannel || !proc.mayExec) return undefined;
  return [proc.execPath, `--max-semi-space-size=${SANDBOX_SEMI_SPACE_MB}`, ...proc.execArgv, ...proc.argv.slice(1)];
}

/**
 * V8 reads the young generation's bound only when the process starts: so
 * `sandbox start` starts Node again in the same process (execve keeps its pid,
 * its stdin, stdout and stderr, and its environment) with the bound. Returns
 * only where it does not (boundedCommandLine), or where execve refused, and
 * the sandbox then runs with V8's own sizing.
 */
export function restartWithYoungGenerationBounded(): void {
  if (typeof process.execve !== 'function') return;
  const commandLine = boundedCommandLine({
    platform: process.platform,
    execPath: process.execPath,
    execArgv: process.execArgv,
    argv: process.argv,
    env: process.env,
    hasChannel: process.channel !== undefined,
    mayExec: process.permission?.has('child') ?? true,
  });
  if (!commandLine) return;
  try {
    process.execve(process.execPath, commandLine, process.env);
  } catch {
    // the sandbox runs with V8's own sizing
  }
}
