import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WHSVC_BIN, runCli } from '../helpers/cli.js';

// The launcher (bin/whsvc), which answers --version itself from package.json and tells a Node too old for whsvc so:
// only a process shows it. whsvc's commands as a user runs them:
// test/integration/cli.test.ts; whsvc processes refreshing one token at once: test/e2e/config-files.test.ts.

describe('failures a user meets', () => {
  it("the launcher prints package.json's version, and says which Node it needs when started by one too old", async () => {
    // The program's own --version (commander's, with the version of the build) is test/integration/cli.test.ts's.
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    const old = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
    const major = Number(/^v(\d+)/.exec(old.stdout ?? '')?.[1] ?? 0);
    if (old.status !== 0 || major >= 22) return; // no older Node on this machine to try it with
    const result = spawnSync('/usr/bin/node', [WHSVC_BIN, 'events'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('is too old; whsvc needs Node ^22.22.2, ^24.15.0 or >= 26');
    expect(result.stderr).toContain('hint: install Node 24');
  });
});
