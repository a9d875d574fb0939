import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver } from '../helpers/receiver.js';

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

describe('an id in the short form a table shows at narrow widths (issue 44)', () => {
  it.each([
    [['deliveries', 'show', 'dlv_99…eb89']],
    [['deliveries', 'diagnose', 'dlv_99...eb89']],
    [['deliveries', 'retry', 'dlv_3962aaf25bac93fd303864f2', 'dlv_99…eb89']],
    [['deliveries', 'list', 'wh_a05…69e3']],
    [['deliveries', 'tail', '--webhook', 'wh_a05…69e3']],
    [['webhooks', 'get', 'wh_a05…69e3']],
    [['webhooks', 'delete', 'wh_a05...69e3', '--yes']],
    [['webhooks', 'health', 'wh_a05…69e3']],
    [['test', 'wh_a05…69e3']],
    // A control character (an id from a hostile listing, through xargs) is escaped, never written to the terminal.
    [['deliveries', 'show', 'dlv_\u001b[31mRED…x']],
  ])('whsvc %j is a usage error before any request, saying how to see ids whole', async (args) => {
    // The service is a server that answers anything: no request may reach it.
    const service = await startReceiver(() => 500);
    try {
      const result = await inProcessCliWith(() => ({ ...sandboxEnv(sandbox.info, configDir), WHSVC_BASE_URL: service.url }))(args);
      expect(result.code, result.stderr).toBe(2);
      const shortened = args.find((arg) => arg.includes('…') || arg.includes('...'))!;
      expect(result.stderr).toContain(`whsvc: ${JSON.stringify(shortened)} is an id in the short form tables show at narrow widths, not a whole id`);
      expect(result.stderr).toMatch(/\nhint: a wider terminal, a pipe \(`\| cat`\) or --json shows ids whole/);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(2);
      expect(result.stderr).not.toContain('\u001b');
      expect(service.received).toEqual([]);
    } finally {
      await service.close();
    }
  });
});
