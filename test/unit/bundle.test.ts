import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtDist } from '../helpers/dist.js';

// What the build makes (scripts/build.mjs), read as files: which modules start-up loads, which wait for their first
// use. What a command loads when it runs: test/e2e/startup-modules.test.ts.

const dist = builtDist();

/** Every file of the bundle loaded by static imports from `entry`: what a command pays before it runs. */
function staticGraph(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const match of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|^import\s+"(\.[^"]+)"/gms))
      visit(resolve(dirname(file), (match[1] ?? match[2])!));
  };
  visit(entry);
  return seen;
}

const HEAVY: Array<[string, RegExp]> = [
  ['undici', /\/\/ node_modules\/undici\//],
  ['@inquirer/prompts', /\/\/ node_modules\/@inquirer\//],
  // Built-ins are required, not imported (scripts/build.mjs says why).
  ['the sandbox (node:sqlite)', /require\("node:sqlite"\)/],
  ['conf and ajv', /\/\/ node_modules\/(conf|ajv)\//],
  ['cli-table3', /\/\/ node_modules\/cli-table3\//],
  ['chalk (loaded only for a stream that gets colour)', /\/\/ node_modules\/chalk\//],
  ['the sandbox inspector', /inspector_token_required|whsvc sandbox inspector/],
  // jq, compiled to WebAssembly (1.3 MB with its module): loaded only for --jq.
  ['jq-wasm (loaded only for --jq)', /\/\/ node_modules\/jq-wasm\//],
  ['js-yaml (loaded only for a YAML file given to webhooks apply)', /\/\/ node_modules\/js-yaml\//],
];

describe('what start-up loads (the built bundle)', () => {
  it('the program itself (help, parsing) loads none of the heavy modules', () => {
    const graph = staticGraph(join(dist, 'main.js'));
    for (const [name, marker] of HEAVY) {
      const holders = [...graph].filter(([, text]) => marker.test(text)).map(([file]) => file);
      expect(holders, `${name} is loaded at start-up by ${holders.join(', ')}`).toEqual([]);
    }
  });

  it("start-up is a few modules: every command's code is in the program's graph, not a chunk per command", () => {
    // Each ES module costs a command about 0.2 ms to load (docs/benchmarks.md), so the path of an API command is kept
    // short: the program, and the chunks esbuild makes of what it shares with the packages loaded later (the text and
    // network helpers with the sandbox, atomically with conf, string-width with cli-table3).
    const graph = staticGraph(join(dist, 'main.js'));
    expect(graph.size, [...graph.keys()].join(', ')).toBeLessThanOrEqual(5);
    const main = graph.get(join(dist, 'main.js'))!;
    for (const verb of ['webhooks list', 'deliveries recover', 'deliveries tail', 'listen', 'verify']) {
      expect(main, verb).toContain(`// src/commands/${verb.replace(' ', '/').replace(/^(listen|verify)$/, '$1/$1')}.ts`);
    }
  });

  it('the built-ins that take milliseconds to load (crypto, http, …) are loaded at their first use, not at start-up', () => {
    const graph = staticGraph(join(dist, 'main.js'));
    const text = [...graph.values()].join('\n');
    expect(text, 'signing and listen are in the graph, so this checks something real').toMatch(/createHmac|createServer/);
    expect(text).not.toMatch(/= process\.getBuiltinModule\("node:(crypto|http|https|net|tls|zlib|child_process|readline|v8)"\)/);
    expect(text).not.toMatch(/require\("node:(crypto|http|https|net|tls|zlib|child_process|readline|v8)"\)/);
    // An ES import of a built-in reads all of its exports (lazy getters included): the build turns each into a require.
    expect(text).not.toMatch(/^import[^;]*from "node:/m);
  });

  it('the inspector page is bundled in, loaded by `sandbox start` only when the page is first asked for', () => {
    const main = readFileSync(join(dist, 'main.js'), 'utf8');
    const start = staticGraph(join(dist, 'chunks', /import\("\.\/chunks\/(serve-[^"]+)"\)/.exec(main)![1]!));
    const files = [...start.values()];
    expect(
      files.some((text) => text.includes('inspector_token_required')),
      'the routes come with sandbox start',
    ).toBe(true);
    expect(
      files.some((text) => text.includes('trigger-form')),
      'the page files are not loaded with it',
    ).toBe(false);
    const assets = /import\("\.\/(assets-[^"]+)"\)/.exec(files.join('\n'))?.[1];
    expect(assets, 'the page files are a chunk of their own').toBeDefined();
    const page = readFileSync(join(dist, 'chunks', assets!), 'utf8');
    expect(page).toContain('trigger-form');
    // Bundled at build time: the package runs no esbuild.
    expect([...files, page].some((text) => /["']esbuild["']|inspector-assets\.mjs/.test(text))).toBe(false);
  });

  it('the heavy modules are in the bundle, so these checks look for something real', () => {
    const all = staticGraph(join(dist, 'chunks', /import\("\.\/chunks\/(serve-[^"]+)"\)/.exec(readFileSync(join(dist, 'main.js'), 'utf8'))![1]!));
    expect([...all.values()].some((text) => HEAVY[0]![1].test(text))).toBe(true);
    expect([...all.values()].some((text) => HEAVY[2]![1].test(text))).toBe(true);
  });

  it('jq is in a chunk of its own, with its WebAssembly in it: the package reads no file beside the bundle for it', () => {
    const main = readFileSync(join(dist, 'main.js'), 'utf8');
    const chunk = /import\("\.\/chunks\/(inline-[^"]+)"\)/.exec(main)?.[1];
    expect(chunk, 'main.js imports jq-wasm at its first use').toBeDefined();
    const text = readFileSync(join(dist, 'chunks', chunk!), 'utf8');
    expect(text).toMatch(/\/\/ node_modules\/jq-wasm\/dist\/inline\.mjs/);
  });
});
