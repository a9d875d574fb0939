import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, sandboxEnv } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// deliveries diagnose against the real sandbox: a refused, a timed-out and a 500 delivery, with the right and a wrong secret.

let sandbox: SandboxInProcess;
let app: Receiver;
let workDir: string;

beforeAll(async () => {
  [sandbox, app] = await Promise.all([startSandboxInProcess(['--quiet', '--retry-base-ms', '600000', '--delivery-timeout-ms', '300']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-diagnose-'));
  app.respondWith = (request) => (request.path === '/fails' ? 500 : 200);
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), app?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

/** whsvc as the user of the sandbox. */
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));

/** A webhook to `url`, one test send to it; the attempt's id once it has its outcome. */
async function sentTo(url: string, secretFile: string): Promise<string> {
  const created = await createWebhook(cli, url, 'invoice.paid', ['--secret-file', secretFile]);
  const sent = await cli(['test', created.id, '--json']);
  return JSON.parse(sent.stdout).id as string;
}

describe('whsvc deliveries diagnose', () => {
  it('a refused connection: said in plain words, with the next commands', async () => {
    const id = await sentTo('http://127.0.0.1:9/down', join(workDir, 'refused.txt'));
    const result = await cli(['deliveries', 'diagnose', id]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^why +no answer: the connection was refused/m);
    expect(result.stdout).toMatch(/^ {2}whsvc deliveries retry dlv_\S+$/m);
    expect(result.stdout).toMatch(/^ {2}whsvc replay \S+\.ndjson --to http:\/\/localhost:3000$/m);
  });

  it('an app that answers too late: timed out', async () => {
    app.answerDelayMs = 1000;
    try {
      const id = await sentTo(`${app.url}/slow`, join(workDir, 'slow.txt'));
      const result = await cli(['deliveries', 'diagnose', id, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).diagnosis).toMatchObject({ kind: 'timed_out' });
    } finally {
      app.answerDelayMs = 0;
    }
  });

  it('a 500, checked with the right secret and with a wrong one; --record then replay sends it to an app as it was sent', async () => {
    const secretFile = join(workDir, 'fails.txt');
    const id = await sentTo(`${app.url}/fails`, secretFile);
    const right = await cli(['deliveries', 'diagnose', id, '--secret-file', secretFile]);
    expect(right.code, right.stderr).toBe(0);
    expect(right.stdout).toMatch(/^why +the endpoint answered 500: your app failed while handling it/m);
    expect(right.stdout).toMatch(/^signature +verified: the signature matches the payload under \S+: it holds this webhook's secret/m);
    // What was sent, and what the endpoint answered.
    expect(right.stdout).toMatch(/^ {2}X-Service-Signature: sha256=[0-9a-f]{64}$/m);
    // Its header names in one case, the canonical names' (Content-Type beside X-Service-Event).
    const names = /^sent\n((?: .*\n)*)/m
      .exec(right.stdout)![1]!
      .match(/^ {2}\S+(?=:)/gm)!
      .map((name) => name.trim());
    expect(names).toEqual(expect.arrayContaining(['Content-Type', 'Date', 'X-Service-Event', 'X-Service-Delivery-Id']));
    for (const name of names) expect(name).toMatch(/^[A-Z][a-z]*(-[A-Z][a-z]*)*$/);
    expect(right.stdout).toMatch(/^payload\n\{\n {2}"id"/m);
    expect(right.stdout).toMatch(/^answer\nanswer from the test receiver$/m);
    writeFileSync(join(workDir, 'wrong.txt'), 'whsec_not_this_one\n');
    const wrong = JSON.parse((await cli(['deliveries', 'diagnose', id, '--secret-file', join(workDir, 'wrong.txt'), '--json'])).stdout);
    expect(wrong).toMatchObject({ signature_check: 'mismatch', status: 'failed', diagnosis: { kind: 'server_error' } });
    expect(JSON.stringify(wrong)).not.toContain(readFileSync(secretFile, 'utf8').trim());
    // The next steps never send the user back to the file just found not to hold the secret.
    expect(wrong.next).toContainEqual(expect.stringMatching(/^whsvc listen --port \d+ --secret-file SECRET_FILE$/));
    expect(JSON.stringify(wrong.next)).not.toContain('wrong.txt');

    const recorded = join(workDir, 'one.ndjson');
    expect((await cli(['deliveries', 'diagnose', id, '--record', recorded])).code).toBe(0);
    app.received.length = 0;
    const replayed = await runInProcess(['replay', recorded, '--to', `${app.url}/replayed`]);
    expect(replayed.code, replayed.stderr).toBe(0);
    const shown = JSON.parse((await cli(['deliveries', 'show', id, '--json'])).stdout);
    expect(app.received).toHaveLength(1);
    expect(app.received[0]!.body).toBe(JSON.stringify(shown.payload));
    expect(app.received[0]!.headers['x-service-signature']).toBe(shown.signature);
  });

  it("the next steps name no secret file whsvc cannot know, and a listener only where the webhook's URL is this machine", async () => {
    const dead = join(workDir, 'whsec-dead.txt');
    const id = await sentTo('http://127.0.0.1:9/down', dead);
    const next = async (...more: string[]) => JSON.parse((await cli(['deliveries', 'diagnose', id, '--json', ...more])).stdout).next as string[];
    // Not told where the secret is: a placeholder, never a file the webhook was not created with.
    const untold = await next();
    expect(untold).toContain('whsvc listen --port 9 --secret-file SECRET_FILE');
    expect(JSON.stringify(untold)).not.toContain('whsec.txt');
    // Told, and it holds the webhook's secret: that file.
    expect(await next('--secret-file', dead)).toContain(`whsvc listen --port 9 --secret-file ${dead}`);
    // A URL elsewhere: no listener here receives its deliveries; the service's test send of this event shows it at work.
    const webhook = JSON.parse((await cli(['deliveries', 'show', id, '--json'])).stdout).webhook_id as string;
    expect((await cli(['webhooks', 'update', webhook, '--url', 'https://billing.example.com/hooks'])).code).toBe(0);
    const away = await next();
    const event = JSON.parse((await cli(['deliveries', 'show', id, '--json'])).stdout).event as string;
    expect(away).toContain(`whsvc test ${webhook} --event ${event}`);
    expect(away.filter((command) => command.startsWith('whsvc send'))).toEqual([]);
    expect(away.filter((command) => command.startsWith('whsvc listen'))).toEqual([]);
  });

  it('the attempts as aligned columns, status and code padded to the widest, at 60 and 80; an id that does not fit goes whole on under its line', async () => {
    app.answerDelayMs = 1000;
    let first: string;
    try {
      first = await sentTo(`${app.url}/flaky`, join(workDir, 'flaky.txt'));
    } finally {
      app.answerDelayMs = 0;
    }
    const retried = await cli(['deliveries', 'retry', first, '--json']);
    expect(retried.code, retried.stderr).toBe(0);
    const at = (columns: number) =>
      inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')), { terminal: { columns } })(['deliveries', 'diagnose', first]);
    const time = String.raw`\d\d:\d\d:\d\d`;
    const at80 = (await at(80)).stdout;
    expect(at80).toMatch(
      new RegExp(`^attempts\n {2}#1 {2}${time} {2}failed {5}no answer {2}dlv_\\S+\n {2}#2 {2}${time} {2}delivered {2}200 {8}dlv_\\S+$`, 'm'),
    );
    const at60 = (await at(60)).stdout;
    expect(at60).toMatch(
      new RegExp(`^attempts\n {2}#1 {2}${time} {2}failed {5}no answer\n {4}dlv_\\S+\n {2}#2 {2}${time} {2}delivered {2}200\n {4}dlv_\\S+$`, 'm'),
    );
  });

  it('an unknown id is exit 5', async () => {
    const result = await cli(['deliveries', 'diagnose', 'dlv_000000000000000000000000']);
    expect(result.code).toBe(5);
  });
});
