import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// Words that cannot be ids, refused before any request. A reader that goes away and a full disk under stdout are the
// process's own (test/e2e/output-edges.test.ts).

let sandbox: SandboxInProcess;
let configDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-edges-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, configDir));

describe('ids that cannot be ids', () => {
  it.each([
    [['webhooks', 'get', 'webhook-events'], /"webhook-events" is not a webhook id: it is the path of the event catalog/],
    [['webhooks', 'delete', 'webhook-deliveries', '--yes'], /"webhook-deliveries" is not a webhook id/],
    [['deliveries', 'list', '..'], /"\.\." is not a webhook id/],
    [['deliveries', 'show', '.'], /"\." is not a delivery id/],
    [['test', ''], /a webhook id cannot be empty/],
  ])('whsvc %j is a usage error before any request', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
  });
});
