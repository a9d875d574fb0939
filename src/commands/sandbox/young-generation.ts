/**
 * The sandbox's bound on V8's young generation, in MB a semi-space. Left to
 * itself V8 sizes the young generation from the machine's memory and grows it
 * as a steady stream goes on (64 MB a semi-space on a machine of 24 GB, about
 * half of a busy sandbox's resident set); bounded, the sandbox holds its
 * memory flat from the start at no measured cost in deliveries a second
 * (docs/benchmarks.md, "Sandbox memory").
 */
export const SANDBOX_SEMI_SPACE_MB = 4;

/** A bound given by the user, as a node flag or in NODE_OPTIONS, is theirs to keep. */
const SEMI_SPACE_FLAG = /^--max[-_]semi[-_]space[-_]size(=|$)/;

/**
 * V8 reads the young generation's bound only when the process starts: so
 * `sandbox start` starts Node again in the same process (execve keeps its
 * pid, its open files and its environment), with the bound, unless one is
 * already given. Returns only where it did not (already bounded, a platform
 * without execve, or execve refused), and the sandbox then runs as it is.
 */
export function restartWithYoungGenerationBounded(env: NodeJS.ProcessEnv = process.env): void {
  const given = [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) => SEMI_SPACE_FLAG.test(flag));
  if (given || typeof process.execve !== 'function') return;
  try {
    process.execve(process.execPath, [process.execPath, `--max-semi-space-size=${SANDBOX_SEMI_SPACE_MB}`, ...process.execArgv, ...process.argv.slice(1)], env);
  } catch {
    // the sandbox runs with V8's own sizing
  }
}
