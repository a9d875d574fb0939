import { connect } from 'node:net';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, sandboxEnv, startProgram, trigger } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { sign } from '../../src/protocol/signature.js';

// The receivers of examples/ (issue 43), each run as its reader runs it: a program of its own, given PORT and
// SECRET_FILE, the secret file as `webhooks create --secret-file` wrote it (with a second one, as while the webhook
// moves to a new secret), and PLATFORM_NAME, the sandbox's platform name (not the default: the headers it reads are
// named after it). Each takes a delivery of the sandbox, passes every check of check-receiver (a delivery signed with
// each secret taken), says a missing secret file in one line, and does the work of a repeated delivery once; it does the work of a delivery whose work
// failed when the service sends it again (review-43: it recorded the id before the work), and answers a delivery
// whose work still runs with no 2xx. Express is a devDependency; Flask is Debian's python3-flask, which .ci/run
// installs: elsewhere, without it, its example is skipped.

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
type Receiver = (typeof receivers)[number];
const PLATFORM = 'Acme';

let sandbox: SandboxInProcess;
let workDir: string;
/** whsvc as the user of the sandbox. */
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--platform-name', PLATFORM, '--retry-base-ms', '50', '--max-attempts', '3']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-examples-'));
  // The examples changed by a test are copies here, where Express is found as beside the originals.
  mkdirSync(join(workDir, 'examples'));
  symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), join(workDir, 'node_modules'));
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

/** The sandbox's log line of a delivery's attempt (its first by default), once it is out. */
const attemptLine =
  (id: string, attempt = 1) =>
  () =>
    sandbox
      .stderr()
      .split('\n')
      .find((line) => line.endsWith(`(${id} #${attempt})`));

/** The delivery ids an example says it handled, in order (its `handled <delivery id> <event>` lines). */
const handledIds = (stdout: string) => [...stdout.matchAll(/^handled (\S+) /gm)].map((match) => match[1]!);

/**
 * An example started as its reader runs it, once it listens, with the URL of its /webhooks. With `work`, a copy of it
 * whose handle() begins with that code (in Python, or in JavaScript), as a user's app grows from it.
 */
async function startExample({ file, command }: Receiver, secretFile: string, work?: { python: string; javascript: string }) {
  let path = join(examples, file);
  if (work) {
    const source = readFileSync(path, 'utf8');
    const [opening, code] = file.endsWith('.py')
      ? ['def handle(event, delivery_id):\n', work.python]
      : ['async function handle(event, deliveryId) {\n', work.javascript];
    const changed = source.replace(opening, opening + code);
    expect(changed, `${file}: no ${opening.trim()}`).not.toBe(source);
    path = join(workDir, 'examples', file);
    writeFileSync(path, changed);
  }
  const receiver = startProgram(command, [path], { PORT: '0', SECRET_FILE: secretFile, PLATFORM_NAME: PLATFORM });
  const output = () => receiver.stdout() + receiver.stderr();
  const origin = await receiver.until(() => /(?:listening on|Running on) (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1], 'its listening line');
  return { receiver, url: `${origin}/webhooks` };
}

describe('the example receivers', () => {
  it.for(receivers)('$file, given two secret files, takes a sandbox delivery, passes check-receiver, and handles a repeat once', async (example, { skip }) => {
    const { file, runs } = example;
    if (!runs) skip();
    const secretFile = join(workDir, `${file}.secret`);
    // The secret a rotation moves to, given first, as in SECRET_FILE=new.secret:whsec.txt: the sandbox's delivery
    // (signed with the webhook's, the second) and check-receiver's (signed with each) show that either verifies.
    const nextSecretFile = join(workDir, `${file}.next.secret`);
    writeFileSync(nextSecretFile, `whsec_examples_next_${file}\n`);
    // An example reads its secrets as it starts, and the secret exists once the webhook does: the webhook is made
    // paused, then pointed at the example once it listens, and resumed.
    const webhook = await createWebhook(cli, 'http://127.0.0.1:9/webhooks', 'invoice.paid', ['--inactive', '--secret-file', secretFile]);
    const { receiver, url } = await startExample(example, [nextSecretFile, secretFile].join(delimiter));
    try {
      const pointed = await cli(['webhooks', 'update', webhook.id, '--url', url, '--active']);
      expect(pointed.code, pointed.stderr).toBe(0);

      const secretFlags = ['--secret-file', secretFile, '--secret-file', nextSecretFile];
      const checked = await runInProcess(['check-receiver', url, ...secretFlags, '--platform-name', PLATFORM, '--json']);
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

  it.for(receivers)('$file says a secret file that is not there in one line, and exits 1', async ({ file, command, runs }, { skip }) => {
    if (!runs) skip();
    const present = join(workDir, `${file}.present.secret`);
    writeFileSync(present, 'whsec_present');
    const missing = join(workDir, 'new.secret');
    const receiver = startProgram(command, [join(examples, file)], { PORT: '0', SECRET_FILE: [present, missing].join(delimiter) });
    const listening = receiver.until(() => /listening on|Running on/.test(receiver.stdout() + receiver.stderr()) && 'listening', 'its listening line');
    const outcome = await Promise.race([receiver.exit.then((code) => `exit ${code}`), listening.catch(() => 'exited')]);
    await receiver.stop('SIGTERM');
    expect([outcome, receiver.stdout(), receiver.stderr()]).toEqual(['exit 1', '', `cannot read the secret file ${missing}: No such file or directory\n`]);
  });

  it('python-stdlib.py answers a Content-Length that is missing, negative or no number 411, without reading on (probe)', async () => {
    const example = receivers.find(({ file }) => file === 'python-stdlib.py')!;
    const secretFile = join(workDir, 'python-bounds.secret');
    writeFileSync(secretFile, 'whsec_bounds');
    const { receiver, url } = await startExample(example, secretFile);
    try {
      const { port } = new URL(url);
      for (const length of ['-1', 'abc']) {
        // A raw request: fetch would not send such a header. The socket stays open: an answer must come without its end.
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1', () => socket.write(`POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n{}`));
          socket.once('data', (chunk) => {
            resolve(chunk.toString('latin1'));
            socket.destroy();
          });
          socket.once('error', reject);
        });
        expect(answer).toMatch(/^HTTP\/1\.[01] 411 /);
      }
    } finally {
      await receiver.stop('SIGTERM');
    }
  });

  it.for(receivers)('$file does the work of a delivery whose work failed once when the service sends it again', async (example, { skip }) => {
    if (!example.runs) skip();
    const secretFile = join(workDir, `${example.file}.failing.secret`);
    const webhook = await createWebhook(cli, 'http://127.0.0.1:9/webhooks', 'invoice.paid', ['--inactive', '--secret-file', secretFile]);
    // Its handle() fails the first time (the database was down for a moment).
    const { receiver, url } = await startExample(example, secretFile, {
      python: '    if not getattr(handle, "failed", False):\n        handle.failed = True\n        raise RuntimeError("database is down")\n',
      javascript: "  if (!globalThis.failed) {\n    globalThis.failed = true;\n    throw new Error('database is down');\n  }\n",
    });
    try {
      expect((await cli(['webhooks', 'update', webhook.id, '--url', url, '--active'])).code).toBe(0);
      const [delivery] = await trigger(cli, 'invoice.paid');
      // The first attempt is answered 500 (not a connection lost with the process), and the service's retry does the
      // work: "ok", not "already handled" (the sandbox's log shows the start of each answer).
      expect(await sandbox.until(attemptLine(delivery!), `the first attempt of ${delivery}`)).toMatch(/ failed .* invoice\.paid -> .* 500 /);
      expect(await sandbox.until(attemptLine(delivery!, 2), `the second attempt of ${delivery}`)).toMatch(/ delivered +invoice\.paid -> .* 200 +"ok" /);
      await receiver.until(() => handledIds(receiver.stdout()).includes(delivery!), `that it handled ${delivery}`);
      expect(handledIds(receiver.stdout())).toEqual([delivery]);
    } finally {
      await receiver.stop('SIGTERM');
      await cli(['webhooks', 'delete', webhook.id, '--yes']);
    }
  });

  it.for(receivers)('$file answers a delivery whose work still runs with a 503, and does the work once', async (example, { skip }) => {
    if (!example.runs) skip();
    const secret = 'whsec_examples_in_flight';
    const secretFile = join(workDir, `${example.file}.in-flight.secret`);
    writeFileSync(secretFile, secret);
    // Its handle() waits until the test lets it go: it reads a FIFO, which the test writes to.
    const fifo = join(workDir, `${example.file}.fifo`);
    execFileSync('mkfifo', [fifo]);
    const { receiver, url } = await startExample(example, secretFile, {
      python: `    print(f"working {delivery_id}", flush=True)\n    open(${JSON.stringify(fifo)}).read()\n`,
      javascript: `  console.log(\`working \${deliveryId}\`);\n  await (await import('node:fs/promises')).readFile(${JSON.stringify(fifo)});\n`,
    });
    try {
      // Each delivery sent as the service sends it again: the same bytes and delivery id.
      const body = JSON.stringify({ event: 'invoice.paid', data: { id: 'in_1' } });
      const send = () =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [`X-${PLATFORM}-Signature`]: sign(secret, body), [`X-${PLATFORM}-Delivery-Id`]: 'dlv_in_flight' },
          body,
        });
      const first = send();
      const answered = first.then((answer) => `answered ${answer.status} before its work began`);
      const began = receiver.until(() => receiver.stdout().includes('working dlv_in_flight') && 'its work began', 'that its work began');
      expect(await Promise.race([began, answered])).toBe('its work began');
      const whileRunning = await send();
      expect(whileRunning.status).toBe(503);
      await writeFile(fifo, 'done');
      expect((await first).status).toBe(200);
      const after = await send();
      expect([after.status, await after.text()]).toEqual([200, 'already handled\n']);
      await receiver.until(() => handledIds(receiver.stdout()).length > 0, 'that it handled dlv_in_flight');
      expect(receiver.stdout().match(/^working /gm)).toHaveLength(1);
      expect(handledIds(receiver.stdout())).toEqual(['dlv_in_flight']);
    } finally {
      await receiver.stop('SIGTERM');
    }
  });
});
