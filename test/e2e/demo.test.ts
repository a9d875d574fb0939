import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('the README demo (npm run demo)', () => {
  it('delivers a signed event that whsvc listen verifies, and exits 0', () => {
    const demo = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));
    const result = spawnSync(process.execPath, [demo], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\[listen\] \d\d:\d\d:\d\d {2}invoice\.paid +dlv_\w+ #1 +verified +-> 200/);
    expect(result.stdout).toContain('whsvc listen saw the delivery arrive with a valid signature');
    expect(result.stdout).toMatch(/dlv_\w+\s+invoice\.paid\s+delivered\s+200\s+1/);
    expect(result.stdout).not.toContain('whsec_');
  });
});
