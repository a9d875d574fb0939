import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadJq } from 'jq-wasm/inline';
import type { Jq } from 'jq-wasm';
import { jqMessage, loadJqFilter } from '../../../src/cli/jq.js';

// jq's own tests (jqlang/jq at jq-1.8.2, tests/*.test: test/fixtures/jq/NOTICE), each run as --jq runs a program:
// compiled and checked by loadJqFilter, then run over the test's input. A program `--json | jq -r` runs, --jq runs.

const FILES = ['jq.test', 'man.test', 'manonig.test', 'onig.test', 'base64.test', 'uri.test', 'optional.test'];

/** One test of jq's: a program and its input and outputs, or one that must not compile (`refused`), with jq's error lines (none to check for `%%FAIL IGNORE MSG`). */
interface JqTest {
  at: string;
  program: string;
  input: string;
  outputs: string[];
  refused?: { message: string[]; ignored: boolean };
}

/** A test file read as jq's `--run-tests` reads it (src/jq_test.c): a blank or `#` line ends a test. */
function jqTests(file: string): JqTest[] {
  const lines = readFileSync(new URL(`../../fixtures/jq/${file}`, import.meta.url), 'utf8').split('\n');
  const ends = (line: string | undefined) => line === undefined || /^[ \t]*(#|$)/.test(line);
  const tests: JqTest[] = [];
  let refused: JqTest['refused'];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (ends(line)) continue;
    if (line === '%%FAIL' || line === '%%FAIL IGNORE MSG') {
      refused = { message: [], ignored: line !== '%%FAIL' };
      continue;
    }
    const test: JqTest = { at: `${file}:${i + 1}`, program: line, input: refused ? '' : lines[++i]!, outputs: [], refused };
    const rest = refused?.message ?? test.outputs;
    while (!ends(lines[i + 1])) rest.push(lines[++i]!);
    tests.push(test);
    refused = undefined;
  }
  return tests;
}

/**
 * The tests --jq fails, each with why and what it shows: none is whsvc's wrapping of jq (its $ENV, its checks, its
 * output); each is what --jq does not give (jq's -L) or what jq-wasm's build does not do as jq's does.
 */
const KNOWN = new Map<string, { why: string; shows: RegExp }>();
const modules = { why: 'a module file, imported or included: --jq takes no -L, and jq-wasm reads no module files', shows: /module not found/ };
for (const line of [1900, 1904, 1908, 1912, 1917, 1921, 1925, 1929, 1969, 1973, 1977, 1993]) KNOWN.set(`jq.test:${line}`, modules);
const deep = {
  why: "a value nested 10,000 deep (jq 1.8.2's CVE tests): jq-wasm's stack overruns before jq's own depth limit answers",
  shows: /jq ran out of memory or stack/,
};
for (const line of [2558, 2563, 2568, 2581, 2602, 2607, 2611, 2616, 2621, 2625, 2629, 2633]) KNOWN.set(`jq.test:${line}`, deep);

/** Not run at all: jq-wasm does not end (setpath 10,000 deep, then flatten; jq 1.8.2 answers [0] at once). */
const NOT_RUN = new Set(['jq.test:2573']);

/** JSON texts equal as jq's test runner compares them: objects whatever their keys' order; numbers by value, every digit where one has more than a double holds. */
function sameJson(actual: string, expected: string): boolean {
  const read = (text: string) => JSON.parse(text, (_key, value, context) => (typeof value === 'number' ? numberValue(context.source ?? String(value)) : value));
  try {
    return canonical(read(actual)) === canonical(read(expected));
  } catch {
    return false;
  }
}

/** A number as a double, or as its text when it has more significant digits than a double holds (jq keeps its literal). */
const numberValue = (source: string) => {
  const digits = source
    .split(/[eE]/)[0]!
    .replace(/[-.]/g, '')
    .replace(/^0+|0+$/g, '');
  return digits.length > 17 ? `#${source}` : Number(source);
};
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
          .join(',')}}`
      : JSON.stringify(value);

/** Why --jq fails the test ('' when it passes), and whether jq itself failed (JqFilter's `stopped`). */
async function failure(test: JqTest, jq: () => Promise<Jq>): Promise<{ why: string; stopped?: boolean }> {
  const why = await wrongness(test, jq);
  return typeof why === 'string' ? { why } : why;
}

async function wrongness(test: JqTest, jq: () => Promise<Jq>): Promise<string | { why: string; stopped?: boolean }> {
  let filter: Awaited<ReturnType<typeof loadJqFilter>>;
  try {
    filter = await loadJqFilter(test.program, { env: { PAGER: 'less' }, load: jq });
  } catch (error) {
    const message = (error as Error).message;
    if (test.refused === undefined) return `refused: ${message}`;
    // jq's runner keeps its last error; jq, as --jq, says each.
    const expected = jqMessage(test.refused.message.join('\n'));
    return test.refused.ignored || (/[:;] $/.test(message.slice(0, -expected.length)) && message.endsWith(expected))
      ? ''
      : `refused with ${message}, where jq says ${expected}`;
  }
  if (test.refused !== undefined) return 'compiled: jq refuses it';
  const { results, error, stopped } = filter.run(test.input);
  const wrong = test.outputs.findIndex((output, i) => results[i] === undefined || !sameJson(results[i], output));
  if (wrong < 0 && results.length <= test.outputs.length) return '';
  return { why: `gave ${JSON.stringify(results)}${error ? `, then ${error}` : ''}; jq gives ${JSON.stringify(test.outputs)}`, stopped };
}

describe("jq's own tests through --jq (jq 1.8.2's tests/*.test)", () => {
  it('every test passes but the known differences, each for its reason', async () => {
    // One jq for every program, as loading it takes 50 ms; a new one after jq itself failed (JqFilter's `stopped`).
    let jq = await loadJq();
    const load = async () => jq;
    const failing: Record<string, string> = {};
    let count = 0;
    for (const file of FILES) {
      for (const test of jqTests(file)) {
        count++;
        if (NOT_RUN.has(test.at)) continue;
        const { why, stopped } = await failure(test, load);
        if (why !== '') failing[test.at] = `${test.program}: ${why}`;
        if (stopped) jq = await loadJq();
      }
    }
    expect(count).toBe(879);
    const unknown = Object.entries(failing).filter(([at, why]) => !KNOWN.get(at)?.shows.test(why));
    const nowPassing = [...KNOWN.keys()].filter((at) => failing[at] === undefined);
    expect(unknown, 'tests --jq fails that jq passes (or fails for another reason than KNOWN says)').toEqual([]);
    expect(nowPassing, 'known differences that now pass: take them out of KNOWN').toEqual([]);
    expect(count - NOT_RUN.size - KNOWN.size).toBe(854);
  });
});
