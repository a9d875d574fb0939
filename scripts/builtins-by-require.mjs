// An esbuild plugin: the bundle requires Node's built-ins instead of importing them.
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { relative } from 'node:path';

/**
 * The exports of a built-in that are plain values, asked of a fresh Node for
 * each module: a lazy getter turns into a value once read, and loading one
 * built-in reads getters of others.
 */
const exportsByName = new Map();

function exportsOf(name) {
  if (!exportsByName.has(name)) exportsByName.set(name, askNodeForExports(name));
  return exportsByName.get(name);
}

/** One fresh Node per built-in, asked once per build: each package's copy of a built-in's module has the same exports. */
function askNodeForExports(name) {
  const script = `const loaded = require(${JSON.stringify(`node:${name}`)});
const out = { plain: [], getters: [], functions: [] };
for (const key of Object.keys(loaded)) {
  if (!/^[A-Za-z_$][\\w$]*$/.test(key) || key === 'default') continue;
  const descriptor = Object.getOwnPropertyDescriptor(loaded, key);
  out['value' in descriptor ? 'plain' : 'getters'].push(key);
  if (typeof descriptor.value === 'function') out.functions.push(key);
}
process.stdout.write(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

/**
 * Node's own modules through require(), not `import`: an ESM import of a
 * built-in makes Node read every export of it, and many are lazy getters that
 * load more of Node (process.report, fs.ReadStream, util.parseArgs, …); in all
 * that cost a command about 8 ms (see docs/benchmarks.md). Each built-in
 * becomes a module whose default export is what require() returns and whose
 * named exports are its plain values; a getter is left out (importing one fails
 * the build, loudly) but for the modules whose API is getters.
 *
 * The built-ins that cost a few milliseconds to load (crypto, http, …) are
 * loaded at their first use instead: their functions are exported as wrappers
 * that load the module when called, and only functions named in lower case
 * (a class cannot be wrapped so: `new` and `instanceof` would break, so
 * importing one fails the build). So a command that never signs or serves
 * pays for neither, though the code that does is in the same bundle.
 *
 * Each package gets its own copy of these small modules (the program's own
 * code and commander share one): a module imported from several lazily loaded
 * packages would otherwise be split by esbuild into a chunk of its own for
 * each set of importers, and every chunk is a module more to load.
 */
const GETTERS_ARE_THE_API = new Set(['async_hooks']);

/** A built-in's functions that a wrapper loading the module at the call can stand for: those named in lower case (not classes). */
const wrappableFunctions = (name) => exportsOf(name).functions.filter((key) => /^[a-z]/.test(key));
const LOADED_AT_FIRST_USE = new Set(['child_process', 'crypto', 'http', 'https', 'net', 'tls', 'zlib', 'readline', 'dns', 'worker_threads', 'v8']);
const SHARES_THE_PROGRAM_S_COPY = new Set(['commander']);

/** Whose copy of the built-in modules an importer gets: a package's name, or 'program'. The path is relative to the project, which may itself sit in a node_modules. */
function ownerOf(importer, root) {
  const match = /^node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(relative(root, importer));
  const name = match?.[1].replace(/\\/g, '/');
  return !name || SHARES_THE_PROGRAM_S_COPY.has(name) ? 'program' : name;
}

/**
 * undici, CommonJS, requires node:http2, node:crypto and (through them)
 * node:tls as it loads: about 9 ms of an API command, for a plain http://
 * request that uses none of them. Its require() of these gets a stand-in that
 * loads the module at the first use of any of its properties; a function read
 * without being called (formdata's `require('node:crypto').randomInt`) is a
 * wrapper that loads it when called; and http2's `constants`, which undici
 * destructures as it loads, are the protocol's fixed names and numbers,
 * written in at build time. So HTTP/2 and TLS load for an https:// or h2
 * origin, where they are needed, and not for the sandbox's http://.
 */
const PACKAGES_REQUIRE_AT_FIRST_USE = new Set(['http2', 'crypto', 'tls']);

function requiredAtFirstUse(name) {
  const specifier = JSON.stringify(`node:${name}`);
  const functions = wrappableFunctions(name);
  const constants =
    name === 'http2' ? execFileSync(process.execPath, ['-p', 'JSON.stringify(require("node:http2").constants)'], { encoding: 'utf8' }).trim() : undefined;
  return `const load = () => process.getBuiltinModule(${specifier});
const functions = new Set(${JSON.stringify(functions)});
const wrappers = new Map();
${constants ? `const constants = ${constants};` : ''}
module.exports = new Proxy({}, {
  get(_, key) {
    ${constants ? "if (key === 'constants') return constants;" : ''}
    if (!functions.has(key)) return load()[key];
    if (!wrappers.has(key)) wrappers.set(key, (...args) => load()[key](...args));
    return wrappers.get(key);
  },
  has: (_, key) => key in load(),
});`;
}

export const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    const root = build.initialOptions.absWorkingDir ?? process.cwd();
    const owner = (importer) => ownerOf(importer, root);
    const names = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    build.onResolve({ filter: /^[a-z0-9_:/]+$/ }, (args) =>
      args.kind === 'import-statement' && names.has(args.path)
        ? { path: args.path.replace(/^node:/, ''), namespace: 'builtin', suffix: `?${owner(args.importer)}` }
        : undefined,
    );
    build.onResolve({ filter: /^(node:)?(http2|crypto|tls)$/ }, (args) =>
      args.kind === 'require-call' && owner(args.importer) !== 'program' && PACKAGES_REQUIRE_AT_FIRST_USE.has(args.path.replace(/^node:/, ''))
        ? { path: args.path.replace(/^node:/, ''), namespace: 'builtin-at-first-use' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin-at-first-use' }, ({ path }) => ({ contents: requiredAtFirstUse(path), loader: 'js' }));
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => {
      const specifier = JSON.stringify(`node:${path}`);
      const { plain, getters } = exportsOf(path);
      const lines = LOADED_AT_FIRST_USE.has(path)
        ? [
            `const m = new Proxy({}, { get: (_, key) => process.getBuiltinModule(${specifier})[key] });`,
            ...wrappableFunctions(path).map((key) => `export const ${key} = (...args) => m.${key}(...args);`),
          ]
        : [
            path === 'process' ? 'const m = process;' : `const m = process.getBuiltinModule(${specifier});`,
            ...[...plain, ...(GETTERS_ARE_THE_API.has(path) ? getters : [])].map((key) => `export const ${key} = m.${key};`),
          ];
      return { contents: [...lines, 'export default m;'].join('\n'), loader: 'js' };
    });
  },
};
