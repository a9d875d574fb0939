// The inspector page's files: index.html, style.css and client/app.ts bundled
// for the browser. Run from src/ (the tests), this module bundles them with
// esbuild on first use. The built CLI never runs this code: scripts/build.mjs
// puts in its place a module that holds the three files, bundled at build
// time (scripts/inspector-assets.mjs), so the package needs no esbuild and
// reads no file at run time.

export interface InspectorAssets {
  html: string;
  css: string;
  js: string;
}

export async function loadAssets(): Promise<InspectorAssets> {
  const script = new URL('../../../scripts/inspector-assets.mjs', import.meta.url).href;
  const { bundleInspector } = (await import(script)) as { bundleInspector: (root: URL) => Promise<InspectorAssets> };
  return bundleInspector(new URL('../../../', import.meta.url));
}
