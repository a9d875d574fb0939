// The licences of the packages bundled into dist/: each one's name, version, licence and its licence file's text,
// in dist/THIRD-PARTY-LICENSES.txt. Bundling drops their comments (legalComments: 'none'), and the MIT and Apache-2.0
// licences of what whsvc bundles ask that their notices go with every copy: the packed tarball is one.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The directory of the package an input file of the bundle belongs to, or undefined for whsvc's own sources. */
function packageDirOf(root, input) {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  const rest = input.slice(at + 'node_modules/'.length).split('/');
  const name = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  return join(root, input.slice(0, at), 'node_modules', name);
}

/** The text of a package's licence file (LICENSE, LICENCE, COPYING, in any case and with any extension), if it has one. */
function licenceText(dir) {
  const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
  return file === undefined ? undefined : readFileSync(join(dir, file), 'utf8').trim();
}

/** Writes `outFile` from esbuild's metafile: every package with a file in the bundle, once, by name. */
export function writeThirdPartyLicenses(root, metafile, outFile) {
  const dirs = new Set(Object.keys(metafile.inputs).flatMap((input) => packageDirOf(root, input) ?? []));
  const packages = [...dirs]
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, ...JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    // A package installed twice at one version (nested copies) is said once.
    .filter((p, i, all) => all.findIndex((q) => q.name === p.name && q.version === p.version) === i)
    .sort((a, b) => a.name.localeCompare(b.name));
  const sections = packages.map(({ dir, name, version, license }) => {
    const text = licenceText(dir) ?? `(no licence file in the package; its package.json says ${license ?? 'nothing'})`;
    return `${name} ${version}: ${license ?? 'unknown'}\n\n${text}\n`;
  });
  const head = `whsvc bundles the following packages in dist/. Their licences follow, each as the package gives it.\n`;
  writeFileSync(outFile, [head, ...sections].join(`\n${'-'.repeat(78)}\n\n`));
  return packages.map((p) => p.name);
}
