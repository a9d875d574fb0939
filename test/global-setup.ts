import { execFileSync } from 'node:child_process';

/** The end-to-end tests run the built binary: build it once, fresh, before any test. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
