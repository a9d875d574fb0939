// The sandbox inspector's page (src/sandbox/inspector/client/): the HTML, the
// CSS, and app.ts bundled for the browser. scripts/build.mjs embeds them in the
// CLI's bundle through inspectorAssets (a module in place of
// src/sandbox/inspector/assets.ts, loaded only when the page is first asked
// for); run from src/, assets.ts calls bundleInspector itself.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

/** The three files of the page, from the repository at `root` (a file URL ending in /). */
export async function bundleInspector(root) {
  const client = new URL('src/sandbox/inspector/client/', root);
  const result = await build({
    entryPoints: [new URL('app.ts', client).pathname],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    // Current Chromium and Firefox.
    target: ['chrome120', 'firefox121'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return {
    html: readFileSync(new URL('index.html', client), 'utf8'),
    css: readFileSync(new URL('style.css', client), 'utf8'),
    js: result.outputFiles[0].text,
  };
}

/** An esbuild plugin: src/sandbox/inspector/assets.ts becomes a module that returns the page's files as built now. */
export function inspectorAssets(root) {
  return {
    name: 'inspector-assets',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /[\\/]sandbox[\\/]inspector[\\/]assets\.ts$/ }, async () => {
        const assets = await bundleInspector(root);
        return { contents: `export async function loadAssets() { return ${JSON.stringify(assets)}; }\n`, loader: 'js' };
      });
    },
  };
}
