// An esbuild plugin: the bundle requires Node's built-ins instead of importing them.
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';

/**
 * The exports of a built-in that are plain values, asked of a fresh Node for
 * each module: a lazy getter turns into a value once read, and loading one
 * built-in reads getters of others.
 */
function exportsOf(name) {
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
 * that cost a command about 8 ms (see the README's benchmarks). Each built-in
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
const LOADED_AT_FIRST_USE = new Set(['child_process', 'crypto', 'http', 'https', 'net', 'tls', 'zlib', 'readline', 'dns', 'worker_threads']);
const SHARES_THE_PROGRAM_S_COPY = new Set(['commander']);

/** Whose copy of the built-in modules an importer gets: a package's name, or 'program'. */
function ownerOf(importer) {
  const match = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(importer);
  const name = match?.[1].replace(/\\/g, '/');
  return !name || SHARES_THE_PROGRAM_S_COPY.has(name) ? 'program' : name;
}

export const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    const names = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
      args.kind === 'import-statement' && names.has(args.path)
        ? { path: args.path.replace(/^node:/, ''), namespace: 'builtin', suffix: `?${ownerOf(args.importer)}` }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => {
      const specifier = JSON.stringify(`node:${path}`);
      const { plain, getters, functions } = exportsOf(path);
      const lines = LOADED_AT_FIRST_USE.has(path)
        ? [
            `const m = new Proxy({}, { get: (_, key) => process.getBuiltinModule(${specifier})[key] });`,
            ...functions.filter((key) => /^[a-z]/.test(key)).map((key) => `export const ${key} = (...args) => m.${key}(...args);`),
          ]
        : [
            path === 'process' ? 'const m = process;' : `const m = process.getBuiltinModule(${specifier});`,
            ...[...plain, ...(GETTERS_ARE_THE_API.has(path) ? getters : [])].map((key) => `export const ${key} = m.${key};`),
          ];
      return { contents: [...lines, 'export default m;'].join('\n'), loader: 'js' };
    });
  },
};
