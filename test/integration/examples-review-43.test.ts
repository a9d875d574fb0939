import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWebhook, sandboxEnv, startProgram, trigger } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// Review of issue 43 (review-43): an example receiver whose work fails once (a database down for a moment) must do
// that work when the service sends the delivery again. python-stdlib.py marks the delivery id handled before the work
// runs, so the retry is answered "already handled" and the work is never done, while the service's log says delivered.
// (express.mjs and flask_app.py have the same order: add, then handle.) Fails on main.

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));

let sandbox: SandboxInProcess;
let workDir: string;
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--retry-base-ms', '50', '--max-attempts', '3']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-review-examples-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('an example receiver whose work fails once', () => {
  it('python-stdlib.py does the work when the delivery comes again', async () => {
    const marker = join(workDir, 'failed-once');
    // The example as a user's app grows from it: its handle() fails the first time (the database was down).
    const copy = join(workDir, 'receiver.py');
    const failingOnce =
      `    if not os.path.exists(${JSON.stringify(marker)}):\n` +
      `        open(${JSON.stringify(marker)}, "w").close()\n` +
      `        raise RuntimeError("database is down")\n`;
    const source = readFileSync(join(examples, 'python-stdlib.py'), 'utf8').replace(
      '    print(f"handled {delivery_id}',
      `${failingOnce}    print(f"handled {delivery_id}`,
    );
    expect(source).toContain('database is down');
    writeFileSync(copy, source);
    const secretFile = join(workDir, 'whsec.txt');
    const webhook = await createWebhook(cli, 'http://127.0.0.1:9/webhooks', 'invoice.paid', ['--inactive', '--secret-file', secretFile]);
    const receiver = startProgram('python3', [copy], { PORT: '0', SECRET_FILE: secretFile });
    try {
      const origin = await receiver.until(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(receiver.stdout())?.[1], 'its listening line');
      expect((await cli(['webhooks', 'update', webhook.id, '--url', `${origin}/webhooks`, '--active'])).code).toBe(0);
      const [delivery] = await trigger(cli, 'invoice.paid');
      // The service retries the failed attempt, and its log says delivered.
      await vi.waitFor(
        async () => {
          const log = JSON.parse((await cli(['deliveries', 'list', webhook.id, '--json'])).stdout).data as Array<{ status: string }>;
          expect(log.some((attempt) => attempt.status === 'delivered')).toBe(true);
        },
        { timeout: 20_000, interval: 100 },
      );
      // Then the work must have been done once: a "handled" line for the delivery.
      expect(receiver.stdout()).toContain(`handled ${delivery} invoice.paid`);
    } finally {
      await receiver.stop('SIGTERM');
    }
  });
});
