import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, sandboxEnv, startProgram, trigger } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// The receivers of examples/ (issue 43), each run as its reader runs it: a program of its own, given PORT and
// SECRET_FILE, the secret file as `webhooks create --secret-file` wrote it. Each takes a delivery of the sandbox, passes
// every check of check-receiver, and does the work of a repeated delivery once. Express is a devDependency; Flask is
// Debian's python3-flask, which .ci/run installs: elsewhere, without it, its example is skipped.

const flask = spawnSync('python3', ['-c', 'import flask']).status === 0;
if (!flask && process.env.CI) throw new Error("python3 has no flask: .ci/run installs Debian's python3-flask");
if (!flask) process.stderr.write('examples: flask_app.py skipped, python3 has no flask (apt-get install python3-flask)\n');

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const receivers = [
  { file: 'node-http.mjs', command: process.execPath, runs: true },
  { file: 'express.mjs', command: process.execPath, runs: true },
  { file: 'python-stdlib.py', command: 'python3', runs: true },
  { file: 'flask_app.py', command: 'python3', runs: flask },
];

let sandbox: SandboxInProcess;
let workDir: string;
/** whsvc as the user of the sandbox. */
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--max-attempts', '1']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-examples-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** check-receiver's --json document, as far as this file reads it. */
interface Report {
  passed: number;
  checks: Array<{ check: string; result: string; summary: string; sent: Array<{ delivery_id: string }> }>;
}

/** The sandbox's log line of a delivery's first attempt, once it is out. */
const attemptLine = (id: string) => () =>
  sandbox
    .stderr()
    .split('\n')
    .find((line) => line.endsWith(`(${id} #1)`));

/** The delivery ids an example says it handled, in order (its `handled <delivery id> <event>` lines). */
const handledIds = (stdout: string) => [...stdout.matchAll(/^handled (\S+) /gm)].map((match) => match[1]!);

describe('the example receivers', () => {
  it.for(receivers)('$file takes a sandbox delivery, passes check-receiver, and handles a repeat once', async ({ file, command, runs }, { skip }) => {
    if (!runs) skip();
    const secretFile = join(workDir, `${file}.secret`);
    // An example reads its secret as it starts, and the secret exists once the webhook does: the webhook is made
    // paused, then pointed at the example once it listens, and resumed.
    const webhook = await createWebhook(cli, 'http://127.0.0.1:9/webhooks', 'invoice.paid', ['--inactive', '--secret-file', secretFile]);
    const receiver = startProgram(command, [join(examples, file)], { PORT: '0', SECRET_FILE: secretFile });
    try {
      const output = () => receiver.stdout() + receiver.stderr();
      const origin = await receiver.until(() => /(?:listening on|Running on) (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1], 'its listening line');
      const url = `${origin}/webhooks`;
      const pointed = await cli(['webhooks', 'update', webhook.id, '--url', url, '--active']);
      expect(pointed.code, pointed.stderr).toBe(0);

      const checked = await runInProcess(['check-receiver', url, '--secret-file', secretFile, '--json']);
      const report = JSON.parse(checked.stdout) as Report;
      expect(report.checks.filter((check) => check.result !== 'pass').map((check) => `${check.check}: ${check.summary}`)).toEqual([]);
      expect([checked.code, report.passed, report.checks.length]).toEqual([0, 9, 9]);

      // The sandbox's delivery, seen in its log once answered; it comes after every delivery of the battery was
      // answered, so once the example's line for it is out, every line it wrote for them is in.
      const [delivered] = await trigger(cli, 'invoice.paid');
      const logged = await sandbox.until(attemptLine(delivered!), `the attempt of ${delivered}`);
      expect(logged).toMatch(/ delivered +invoice\.paid -> .* 200 /);
      await receiver.until(() => handledIds(receiver.stdout()).includes(delivered!), `that it handled ${delivered}`);
      const handled = handledIds(receiver.stdout());
      const repeated = report.checks.find(({ check }) => check === 'repeated_delivery')!.sent[0]!.delivery_id;
      expect(handled).toContain(repeated);
      expect(handled.filter((id, i) => handled.indexOf(id) !== i)).toEqual([]);
    } finally {
      await receiver.stop('SIGTERM');
      // So that the next example's trigger makes one delivery, its own.
      await cli(['webhooks', 'delete', webhook.id, '--yes']);
    }
  });
});
