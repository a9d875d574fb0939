import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, sandboxEnv, startTail, trigger } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver } from '../helpers/receiver.js';

// What only a process shows of deliveries tail: a real Ctrl-C and a real SIGTERM end the process, exit 0, with the
// checkpoint saved. What it prints, forwards and keeps is in test/integration/tail.test.ts (the service in this test's
// process too: only the tail is a process of its own).

let sandbox: SandboxInProcess;
let workDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const apiEnv = () => sandboxEnv(sandbox.info, join(workDir, 'config'));
const cli = inProcessCliWith(apiEnv);

describe('whsvc deliveries tail, a process of its own', () => {
  it('Ctrl-C, then SIGTERM of the run started again: each ends the process, exit 0, the checkpoint holding what it forwarded', async () => {
    const endpoint = await startReceiver();
    const app = await startReceiver();
    const webhook = await createWebhook(cli, `${endpoint.url}/public`);
    const secretFile = join(workDir, 'whsec.txt');
    writeFileSync(secretFile, webhook.signing_secret);
    const checkpoint = join(workDir, 'tail-checkpoint.json');
    const args = ['--webhook', webhook.id, '--forward-to', `${app.url}/local`, '--secret-file', secretFile, '--checkpoint', checkpoint, '--interval', '200ms'];
    const forwarded = () => app.received.map((request) => String(request.headers['x-service-delivery-id']));
    try {
      const first = await startTail(args, apiEnv());
      await trigger(cli);
      await app.waitFor(1);
      expect(await first.stop('SIGINT')).toBe(0);
      expect(JSON.parse(readFileSync(checkpoint, 'utf8')).forwarded).toEqual(forwarded());

      const second = await startTail(args, apiEnv());
      expect(second.stderr()).toContain(`catching up from the checkpoint ${checkpoint}`);
      await trigger(cli);
      await app.waitFor(2);
      expect(await second.stop('SIGTERM')).toBe(0);
      expect(new Set(forwarded()).size).toBe(2);
      expect(JSON.parse(readFileSync(checkpoint, 'utf8')).forwarded).toEqual(forwarded());
      expect(first.stderr() + second.stderr()).not.toMatch(/unexpected|Error:/);
    } finally {
      await Promise.all([endpoint.close(), app.close()]);
    }
  });
});
