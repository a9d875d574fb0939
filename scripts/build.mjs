// Bundles src/ into dist/ with one chunk per lazily imported command, so that
// `whsvc --version` loads only the program definition.
import { build } from 'esbuild';
import { rmSync, readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli/main.ts'],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  define: { WHSVC_VERSION: JSON.stringify(version) },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
