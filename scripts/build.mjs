// Bundles src/ into dist/: the program (every command's code) as one module
// graph, since each ES module on the path of a command costs it time; `sandbox
// start` and the packages (undici, cli-table3, chalk, the prompts, conf) in
// chunks loaded at their first use; the dependencies bundled in (a file per
// chunk starts faster than a walk through node_modules, and the installed
// package needs nothing but Node). Then writes dist/help.txt, the top-level
// help that bin/whsvc prints without loading the program.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinsByRequire } from './builtins-by-require.mjs';
import { inspectorAssets } from './inspector-assets.mjs';
import { writeThirdPartyLicenses } from './third-party-licenses.mjs';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
rmSync(new URL('dist', root), { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: ['src/main.ts'],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // The CommonJS dependencies (commander, cli-table3) call require() for Node's own modules.
  banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
  // esbuildDetection: undici's own switch for bundles, as Node's copy of it is built; it leaves out the
  // experimental Milo parser (two WebAssembly builds, 200 KB) that only UNDICI_USE_MILO would turn on.
  define: { WHSVC_VERSION: JSON.stringify(version), esbuildDetection: 'true' },
  chunkNames: 'chunks/[name]-[hash]',
  // The licences of the bundled packages go in dist/THIRD-PARTY-LICENSES.txt, whole (scripts/third-party-licenses.mjs).
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  // The sandbox inspector's page, bundled for the browser and embedded in a chunk of its own.
  plugins: [builtinsByRequire, inspectorAssets(root)],
});
const help = execFileSync(process.execPath, [new URL('dist/main.js', root).pathname, '--help'], {
  encoding: 'utf8',
  env: { ...process.env, COLUMNS: '80' },
});
writeFileSync(new URL('dist/help.txt', root), help);
writeThirdPartyLicenses(new URL('.', root).pathname, metafile, new URL('dist/THIRD-PARTY-LICENSES.txt', root));
