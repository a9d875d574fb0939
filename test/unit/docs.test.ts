import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOP_COMMANDS } from '../../src/render/commands.js';

// Every link between the README and docs/ goes to a file that exists and, with a #fragment, to a heading it has,
// by the anchors GitHub makes of headings. Links out of the repository (http, mailto) are not followed.
const root = fileURLToPath(new URL('../../', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and code spans, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[^`][\s\S]*?\1/g, '');
}

/** GitHub's anchor of a heading (github-slugger): lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (heading ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

function brokenLinks(page: string): string[] {
  const text = prose(readFileSync(join(root, page), 'utf8'));
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (target === undefined || /^[a-z][a-z+.-]*:/i.test(target)) continue;
    const [path = '', fragment] = target.split('#');
    const file = path === '' ? join(root, page) : join(dirname(join(root, page)), decodeURIComponent(path));
    if (!existsSync(file)) broken.push(`${target}: no file ${relative(root, file)}`);
    else if (fragment !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(fragment))
      broken.push(`${target}: no heading with that anchor in ${relative(root, file)}`);
  }
  return broken;
}

describe('links between the README and docs/', () => {
  it.each(pages)('%s: every link resolves, to a file and a heading', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('makes the anchors GitHub makes', () => {
    const made = anchors('# `whsvc send` and `whsvc check-receiver`\n## `--jq`: a filter over `--json`\n## Words\n## Words\n');
    expect([...made]).toEqual(['whsvc-send-and-whsvc-check-receiver', '--jq-a-filter-over---json', 'words', 'words-1']);
  });
});

describe('README.md', () => {
  it('names in backticks only commands whsvc has: `whsvc trigger` is a habit answered with another command, not one taken', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const named = [...readme.matchAll(/`whsvc ([a-z][\w-]*)[^`]*`/g)].map(([, command]) => command!);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((command) => !(TOP_COMMANDS as readonly string[]).includes(command))).toEqual([]);
  });

  it('is a guide of at most 450 lines: rules and details live in docs/commands.md (issue 41)', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(450);
  });

  it("its CI snippets write no secret file the quickstart's listener reads: followed after it, that listener would answer mismatch -> 400", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = (heading: string) => readme.slice(readme.indexOf(`\n## ${heading}\n`), readme.indexOf('\n## ', readme.indexOf(`\n## ${heading}\n`) + 1));
    const secretFiles = (text: string) => new Set([...text.matchAll(/--secret-file (\S+)/g)].map(([, file]) => file!.replace(/^\.\//, '')));
    const quickstart = secretFiles(section('Quickstart against the sandbox'));
    expect(quickstart.size).toBeGreaterThan(0);
    const ci = secretFiles(section('CI usage'));
    expect(ci.size).toBeGreaterThan(0);
    expect([...ci].filter((file) => quickstart.has(file))).toEqual([]);
  });
});
