#!/usr/bin/env node
// The launcher. `whsvc --version` and `whsvc --help` are answered here, from
// package.json and the help text written at build time, without loading the
// program: they are the commands a CLI is most often judged by. CommonJS, and
// fs.writeSync rather than process.stdout, because both cost a Node process
// more to set up than the answer itself (see docs/benchmarks.md).
// Everything else goes to the bundled program, through Node's compile cache.
'use strict';
const { fstatSync, readFileSync, statSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const [major, minor, patch] = process.versions.node.split('.').map(Number);
if (!((major === 22 && (minor > 22 || (minor === 22 && patch >= 2))) || (major === 24 && minor >= 15) || major >= 26)) {
  writeSync(2, `whsvc: Node ${process.versions.node} is too old; whsvc needs Node ^22.22.2, ^24.15.0 or >= 26\n`);
  writeSync(2, 'hint: install Node 24 (https://nodejs.org, or nvm install 24), then run whsvc again\n');
  process.exit(1);
}

const root = join(__dirname, '..');
const args = process.argv.slice(2);
const only = args.length === 1 ? args[0] : undefined;
let answer;
try {
  if (only === '--version' || only === '-v' || only === '-V' || only === 'version') {
    answer = `${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`;
  } else if ((only === '--help' || only === '-h') && !narrowTerminal()) {
    answer = readFileSync(join(root, 'dist', 'help.txt'), 'utf8');
  }
} catch {
  // no help.txt (a build without it): the program answers
}
/**
 * help.txt is laid out for 80 columns: a narrower terminal gets the program's layout, made for its width.
 * Only a character device can be a terminal, and /dev/null (`whsvc --help > /dev/null`, a benchmark's
 * stdout) is the common one that is not: both told apart with a stat, since loading node:tty costs
 * `--help` about 3.5 ms (measured: 35.7 against 32.1 ms, medians of 41).
 */
function narrowTerminal() {
  const out = fstatSync(1);
  if (!out.isCharacterDevice()) return false;
  try {
    if (out.rdev === statSync('/dev/null').rdev) return false;
  } catch {
    // no /dev/null here: ask node:tty
  }
  return require('node:tty').isatty(1) && process.stdout.columns > 0 && process.stdout.columns < 80;
}

if (answer !== undefined) {
  writeSync(1, answer);
} else {
  require('node:module').enableCompileCache?.();
  import('../dist/main.js').catch((error) => {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/main.js')) throw error;
    writeSync(2, 'whsvc: the program is not built yet (no dist/); run `npm run build` (or `./run npm run build`) first\n');
    process.exitCode = 1;
  });
}
