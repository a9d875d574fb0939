/**
 * The sandbox's bound on V8's young generation, in MB a semi-space. Left to
 * itself V8 sizes the young generation from the machine's memory and grows it
 * as a steady stream goes on (64 MB a semi-space on a machine of 24 GB): the
 * sandbox's resident set then rose with the count of events until V8 was done
 * growing it. At 16 MB it is reached early and held, and 100 events in flight
 * cost no more CPU than at 64 (at 4 or 8 MB they did, up to a fifth more:
 * objects that live through a send were promoted). docs/benchmarks.md,
 * "Sandbox memory".
 */
export const SANDBOX_SEMI_SPACE_MB = 16;

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
