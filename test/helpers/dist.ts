import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/ as scripts/build.mjs makes it, read as files by the unit tests of what the build makes. A whole run builds it
// first (the end-to-end layer's globalSetup, test/global-setup.ts); a run of the unit layer alone builds it here when
// it is missing or older than what it is built from, so that no test reads a build of code since changed.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');

/** The newest modification time of the files under `path` (or of the file itself), in ms. */
function newest(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** dist/, built again first if it is missing or older than src/, scripts/ or the package's manifest and lock. */
export function builtDist(): string {
  // help.txt is the build's last file: its time is the build's.
  const built = join(DIST, 'help.txt');
  const sources = ['src', 'scripts', 'package.json', 'package-lock.json'].map((name) => newest(join(ROOT, name)));
  if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...sources)) {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  }
  return DIST;
}
