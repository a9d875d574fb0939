import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, sandboxEnv, trigger } from '../helpers/cli.js';
import {
  inProcessCliWith,
  runInProcess,
  startListenInProcess,
  startSandboxInProcess,
  type RunningInProcess,
  type SandboxInProcess,
} from '../helpers/in-process.js';
import { signatureOf } from '../helpers/delivery.js';
import { startReceiver } from '../helpers/receiver.js';

let sandbox: SandboxInProcess;
let workDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet', '--retry-base-ms', '50', '--max-attempts', '3']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-listen-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const apiEnv = () => sandboxEnv(sandbox.info, join(workDir, 'config'));
/** whsvc as the user of the sandbox. */
const cli = inProcessCliWith(apiEnv);

const listen = startListenInProcess;
/** Whether the run is still going: its exit, when it has one already, comes before the value raced against it. */
const stillRunning = async (run: RunningInProcess) => (await Promise.race([run.exit, 'running'])) === 'running';

describe('whsvc listen', () => {
  it("a secret file not there yet: the create command it suggests, at the README's path, pasted with its events makes a webhook it receives and verifies", async () => {
    const secretFile = join(workDir, 'pasted-secret.txt');
    const listener = await listen(['--secret-file', secretFile, '--count', '1', '--timeout', '60', '--json']);
    const suggested = /^ {4}whsvc (webhooks create .*)$/m.exec(listener.stderr())?.[1];
    expect(suggested, listener.stderr()).toBe(`webhooks create --url ${listener.url}/hooks --events … --secret-file ${secretFile}`);
    const created = await cli([...suggested!.split(' ').map((word) => (word === '…' ? 'invoice.paid' : word)), '--json']);
    expect(created.code, created.stderr).toBe(0);
    await trigger(cli, 'invoice.paid');
    expect(await listener.exit).toBe(0);
    expect(listener.deliveries()[0]).toMatchObject({ event: 'invoice.paid', signature_check: 'verified' });
    await cli(['webhooks', 'delete', JSON.parse(created.stdout).id, '--yes']);
  });

  it('as a CI check: starts before the secret exists, counts verified deliveries, exits 0', async () => {
    const secretFile = join(workDir, 'ci-secret.txt');
    const listener = await listen(['--secret-file', secretFile, '--count', '2', '--timeout', '60', '--json']);
    const created = await createWebhook(cli, `${listener.url}/hook`, 'invoice.paid', ['--secret-file', secretFile]);
    await trigger(cli, 'invoice.paid', { times: 2 });
    expect(await listener.exit).toBe(0);
    // Its address first, for a script that gave --port 0.
    expect(JSON.parse(listener.stdout().split('\n')[0]!)).toEqual({ url: listener.url });
    const lines = listener.deliveries();
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).toMatchObject({ event: 'invoice.paid', signature_check: 'verified', status: 200, attempt: 1 });
      expect(line).not.toHaveProperty('verified');
      expect(line.delivery_id).toMatch(/^dlv_/);
      expect(JSON.parse(line.body)).toMatchObject({ event: 'invoice.paid' });
      expect(line.headers['x-service-signature']).toMatch(/^sha256=/);
    }
    await cli(['webhooks', 'delete', created.id, '--yes']);
  });

  it('--fail-first 2: a delivery fails twice, then recovers; each line says which rule answered', async () => {
    const secretFile = join(workDir, 'fail-first-secret.txt');
    const listener = await listen(['--secret-file', secretFile, '--fail-first', '2', '--count', '1', '--timeout', '60', '--json']);
    await listener.until(() => listener.stderr().includes('answering 500 to the first 2 attempts of each delivery'), 'the line naming the failure rule');
    expect(listener.stderr(), 'the default answer is not announced').not.toContain('(--respond-status)');
    const created = await createWebhook(cli, `${listener.url}/ff`, 'invoice.paid', ['--secret-file', secretFile]);
    const webhookId = created.id;
    await trigger(cli);
    // --count counts the delivery once it is taken, on its third attempt.
    expect(await listener.exit).toBe(0);
    const lines = listener.deliveries();
    expect(lines.map((l) => [l.attempt, l.status, l.rule])).toEqual([
      [1, 500, 'fail_first'],
      [2, 500, 'fail_first'],
      [3, 200, 'respond_status'],
    ]);
    expect(new Set(lines.map((l) => l.delivery_id)).size).toBe(1);
    const log = JSON.parse((await cli(['deliveries', 'list', webhookId, '--json'])).stdout);
    expect(log.data.map((d: { attempts: number; status: string; response_code: number }) => [d.attempts, d.status, d.response_code])).toEqual([
      [3, 'delivered', 200],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    await cli(['webhooks', 'delete', webhookId, '--yes']);
  });

  it('--fail-rate with --seed fails the same attempts every run; --delay answers late; the human line names the rule', async () => {
    const secret = 'whsec_rate';
    const sendAll = async (url: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const body = JSON.stringify({ id: `inv_${i}`, event: 'invoice.paid' });
        const signature = signatureOf(secret, body);
        const answer = await fetch(url, {
          method: 'POST',
          body,
          headers: { 'x-service-signature': signature, 'x-service-delivery-id': `dlv_rate_${i}`, 'x-service-attempt': '1' },
        });
        statuses.push(answer.status);
      }
      return statuses;
    };
    const runs: number[][] = [];
    for (const seed of ['s1', 's1', 's2']) {
      const listener = await listen(['--secret', secret, '--fail-rate', '0.5', '--seed', seed]);
      runs.push(await sendAll(listener.url));
      await listener.stop('SIGINT');
      expect(listener.stdout()).toMatch(new RegExp(`-> 500 \\(--fail-rate 0\\.5, seed ${seed}\\)`));
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).not.toEqual(runs[0]);
    for (const run of runs) {
      expect(run.filter((status) => status === 500).length).toBeGreaterThan(0);
      expect(run.filter((status) => status === 200).length).toBeGreaterThan(0);
    }

    const slow = await listen(['--secret', secret, '--delay', '400ms']);
    await slow.until(() => slow.stderr().includes('answering after 400 ms'), 'the line naming the delay');
    const started = Date.now();
    const body = '{"event":"invoice.paid"}';
    const answer = await fetch(slow.url, {
      method: 'POST',
      body,
      headers: { 'x-service-signature': signatureOf(secret, body) },
    });
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    await slow.until(() => slow.stdout().includes('->'), 'the line of the late answer');
    expect(slow.stdout()).toMatch(/verified +-> 200 \(default, after 400 ms\)/);
    expect(slow.stdout()).not.toContain('too late');

    await slow.stop('SIGINT');
  });

  it('a sender that hung up before its answer (its limit ran out) is told on the line: too late, not only -> 200', async () => {
    // The app holds the forward: once it has the request, listen has it too, and the sender then hangs up.
    const app = await startReceiver(() => 'hold');
    const listener = await listen(['--secret', 'whsec_late', '--forward-to', `${app.url}/app`]);
    try {
      const body = '{"event":"invoice.paid","id":"inv_late"}';
      const { port } = new URL(listener.url);
      const sender = connect(Number(port), '127.0.0.1');
      let answered = '';
      sender.on('data', (chunk: Buffer) => (answered += chunk));
      sender.write(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Service-Signature: ${signatureOf('whsec_late', body)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      await app.waitFor(1);
      // The sender's side closed, as one whose limit ran out closes it. Listen closes its own once it has seen that (the
      // sender's 'end'): the app's answer, in this same process, must not reach listen before the hang-up does.
      sender.end();
      await once(sender, 'end');
      sender.destroy();
      expect(answered).toBe('');
      app.release(200);
      await listener.until(() => listener.stdout().includes('->'), 'the line of the answer');
      expect(listener.stdout()).toMatch(/-> 200 \(forwarded\) +app 200 +via \* +too late: the sender left after (\d+(\.\d)? s|\d+ ms)\n$/);
    } finally {
      await listener.stop('SIGINT');
      await app.close();
    }
  });

  it('checks --events against the catalog an earlier command cached', async () => {
    expect((await cli(['events'])).code).toBe(0);
    const result = await cli(['listen', '--port', '0', '--secret', 'x', '--events', 'invoice.payed']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean invoice.paid?');
  });

  it('exits 6 when the deliveries do not come in time', async () => {
    const listener = await listen(['--secret', 'whsec_x', '--count', '1', '--timeout', '1']);
    expect(await listener.exit).toBe(6);
    expect(listener.stderr()).toContain('0 of 1 verified deliveries within 1 s');
  });

  it('answers a bad signature 400, flags it, and ends non-zero', async () => {
    const listener = await listen(['--secret', 'whsec_right', '--count', '1', '--timeout', '30'], {});
    const body = '{"id":"inv_1","event":"invoice.paid","amount":{"amount":1,"currency":"EUR"}}';
    const wrong = signatureOf('whsec_wrong', body);
    const bad = await fetch(listener.url, { method: 'POST', body, headers: { 'x-service-signature': wrong, 'x-acme-event': 'invoice.paid' } });
    expect(bad.status).toBe(400);
    const right = signatureOf('whsec_right', body);
    // Any platform name: X-Acme-Signature verifies too.
    const good = await fetch(listener.url, { method: 'POST', body, headers: { 'x-acme-signature': right } });
    expect(good.status).toBe(200);
    expect(await listener.exit).toBe(1);
    expect(listener.stdout()).toMatch(/invoice\.paid .* mismatch\s+-> 400/);
    expect(listener.stdout()).toMatch(/ verified\s+-> 200/);
    expect(listener.stderr()).toContain('1 delivery with a bad or missing signature');
  });

  it('rehearses failures with --respond-status: the sandbox retries with backoff', async () => {
    const secretFile = join(workDir, 'fail-secret.txt');
    const listener = await listen(['--secret-file', secretFile, '--respond-status', '503', '--json']);
    try {
      await listener.until(() => listener.stderr().includes('answering 503 to verified deliveries (--respond-status)'), 'the line naming the answer');
      const created = await createWebhook(cli, listener.url, 'sales_order.created', ['--secret-file', secretFile]);
      await trigger(cli, 'sales_order.created');
      await listener.until(() => listener.deliveries().length >= 3, 'three attempts');
      const attempts = listener.deliveries();
      expect(attempts.map((a) => [a.attempt, a.status, a.signature_check])).toEqual([
        [1, 503, 'verified'],
        [2, 503, 'verified'],
        [3, 503, 'verified'],
      ]);
      expect(new Set(attempts.map((a) => a.delivery_id)).size).toBe(1);
      await cli(['webhooks', 'delete', created.id, '--yes']);
    } finally {
      expect(await listener.stop('SIGINT')).toBe(130);
    }
  });

  it('forwards verified deliveries byte for byte to the app, and keeps going when the app is down', async () => {
    const app = await startReceiver(() => 202);
    const listener = await listen(['--secret', 'whsec_fwd', '--forward-to', `${app.url}/app`]);
    try {
      const body = '{ "id": "inv_2",  "event": "invoice.paid" }';
      const signature = signatureOf('whsec_fwd', body);
      const headers = { 'x-service-signature': signature, 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_fwd' };
      const answer = await fetch(listener.url, { method: 'POST', body, headers: { ...headers, 'x-service-attempt': '1' } });
      expect(answer.status).toBe(202);
      const [relayed] = await app.waitFor(1);
      expect(relayed!.body).toBe(body);
      expect(relayed!.path).toBe('/app');
      expect(relayed!.headers['x-service-signature']).toBe(signature);
      expect(relayed!.headers['x-service-delivery-id']).toBe('dlv_fwd');
      await app.close();
      // The sender's retry of the same delivery is relayed again (the app decides what a duplicate means).
      const down = await fetch(listener.url, { method: 'POST', body, headers: { ...headers, 'x-service-attempt': '2' } });
      expect(down.status).toBe(502);
      await listener.until(() => /-> 502 .*app down .*app: no answer: connection refused$/m.test(listener.stdout()), 'the app-down line');
      expect(listener.stdout()).toMatch(/ verified\s+-> 202 \(forwarded\)\s+app 202/);
      expect(await stillRunning(listener)).toBe(true);
    } finally {
      await listener.stop('SIGINT');
    }
  });
});

describe('whsvc listen trusts only what is signed', () => {
  const secret = 'whsec_replay';
  const sign = (body: string) => signatureOf(secret, body);
  const post = (url: string, body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers: { 'x-service-signature': sign(body), ...headers } });

  it('an unsigned request cannot poison a delivery id: the real delivery with that id is still taken', async () => {
    const listener = await listen(['--secret', secret, '--count', '1', '--timeout', '60', '--json']);
    const body = '{"id":"inv_p","event":"invoice.paid"}';
    const forged = await fetch(listener.url, {
      method: 'POST',
      body,
      headers: { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_next', 'x-service-attempt': '1' },
    });
    expect(forged.status).toBe(400);
    expect((await post(listener.url, body, { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_next', 'x-service-attempt': '1' })).status).toBe(
      200,
    );
    expect(await listener.exit).toBe(1);
    const lines = listener.deliveries();
    expect(lines.map((line) => [line.signature_check, line.repeat, line.status])).toEqual([
      ['missing', null, 400],
      ['verified', null, 200],
    ]);
  });

  it('shows the event of the signed body, flags forged headers and replays, and counts distinct deliveries', async () => {
    const listener = await listen(['--secret', secret, '--count', '3', '--timeout', '60', '--json']);
    const paid = '{"id":"inv_1","event":"invoice.paid"}';
    const first = await post(listener.url, paid, { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_real_1', 'x-service-attempt': '1' });
    expect(first.status).toBe(200);
    // The captured delivery again, its headers forged: another event, another id, another attempt.
    const forged = await post(listener.url, paid, {
      'x-service-event': 'production_order.completed',
      'x-service-delivery-id': 'dlv_forged_1',
      'x-service-attempt': '99',
    });
    expect(forged.status).toBe(400);
    // Sent again as it was: a replay of the same attempt.
    const again = await post(listener.url, paid, { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_real_1', 'x-service-attempt': '1' });
    expect(again.status).toBe(400);
    // The sender's own retry of it: shown, answered, not counted a second time.
    const retry = await post(listener.url, paid, { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_real_1', 'x-service-attempt': '2' });
    expect(retry.status).toBe(200);
    // Another event whose payload happens to be the same bytes, under its own delivery id: a delivery like any other.
    expect(
      (await post(listener.url, paid, { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_real_3', 'x-service-attempt': '1' })).status,
    ).toBe(200);
    expect(await stillRunning(listener)).toBe(true);
    const other = '{"id":"inv_2","event":"invoice.paid"}';
    expect(
      (await post(listener.url, other, { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_real_2', 'x-service-attempt': '1' })).status,
    ).toBe(200);
    // Three distinct deliveries reached --count 3; the refused ones make the exit 1.
    expect(await listener.exit).toBe(1);
    const lines = listener.deliveries();
    expect(lines.map((line) => [line.event, line.header_event, line.event_mismatch, line.delivery_id, line.repeat, line.repeat_of, line.status])).toEqual([
      ['invoice.paid', 'invoice.paid', false, 'dlv_real_1', null, null, 200],
      ['invoice.paid', 'production_order.completed', true, 'dlv_forged_1', 'same_body', 'dlv_real_1', 400],
      ['invoice.paid', 'invoice.paid', false, 'dlv_real_1', 'replay', 'dlv_real_1', 400],
      ['invoice.paid', 'invoice.paid', false, 'dlv_real_1', 'retry', 'dlv_real_1', 200],
      ['invoice.paid', 'invoice.paid', false, 'dlv_real_3', 'same_body', 'dlv_real_1', 200],
      ['invoice.paid', 'invoice.paid', false, 'dlv_real_2', null, null, 200],
    ]);
    expect(listener.stderr()).toContain('2 replayed deliveries or event headers contradicting the signed body, refused');
  });

  it('in a terminal line: the signed event, and what is wrong with the headers', async () => {
    const listener = await listen(['--secret', secret]);
    try {
      const body = '{"id":"inv_3","event":"invoice.paid"}';
      await post(listener.url, body, { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_a', 'x-service-attempt': '1' });
      await post(listener.url, body, { 'x-service-event': 'production_order.completed', 'x-service-delivery-id': 'dlv_forged_1', 'x-service-attempt': '99' });
      await listener.until(() => listener.stdout().trim().split('\n').length >= 2, 'two lines');
      const [, forgedLine] = listener.stdout().trim().split('\n');
      expect(forgedLine).toMatch(
        /invoice\.paid\s+dlv_forged_1 #99\s+verified\s+-> 400 \(event header\)\s+header says production_order\.completed {2}same body as dlv_a$/,
      );
      expect(forgedLine).not.toMatch(/^\S+\s+production_order/);
    } finally {
      await listener.stop('SIGINT');
    }
  });

  it.each(['javascript:alert(1)', 'file:///etc/passwd', 'ftp://example.com/x', 'not a url'])('refuses --forward-to %s at start (exit 2)', async (target) => {
    const result = await runInProcess(['listen', '--port', '0', '--secret', secret, '--forward-to', target, '--timeout', '5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--forward-to/);
    expect(result.stderr).not.toContain('ready at');
  });
});

describe('whsvc verify', () => {
  const secret = 'whsec_verify_me';
  const body = '{"id":"inv_9","event":"invoice.paid","amount":{"amount":100,"currency":"EUR"}}';
  const signature = signatureOf(secret, body);

  it('accepts the raw body from stdin or a file', async () => {
    const secretFile = join(workDir, 'verify-secret.txt');
    writeFileSync(secretFile, `${secret}\n`);
    const payloadFile = join(workDir, 'payload.json');
    writeFileSync(payloadFile, body);
    const fromStdin = await runInProcess(['verify', '--signature', signature, '--secret-file', secretFile], { input: body });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout).toContain(`verified: the signature matches the ${body.length}-byte body`);
    const fromFile = await runInProcess(['verify', '--signature', signature, '--secret-file', secretFile, '--payload-file', payloadFile]);
    expect(fromFile.code).toBe(0);
  });

  it('says what was checked when it fails, and spots a re-serialised body, without printing the secret', async () => {
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const result = await runInProcess(['verify', '--signature', signature, '--secret', secret], { input: pretty });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${pretty.length}-byte body`);
    expect(result.stderr).toMatch(/expected sha256=[0-9a-f]{8}…, got sha256=[0-9a-f]{8}…/);
    expect(result.stderr).toContain('re-serialised');
    expect(result.stderr + result.stdout).not.toContain(secret);
    const newline = await runInProcess(['verify', '--signature', signature, '--secret', secret], { input: `${body}\n` });
    expect(newline.code).toBe(1);
    expect(newline.stderr).toContain('a trailing newline was added to the body');
    // And the other way: signed with a newline at its end, checked without it (issue 44).
    const lost = await runInProcess(['verify', '--signature', signatureOf(secret, `${body}\n`), '--secret', secret], { input: body });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain('the trailing newline the body was sent with was removed');
    const wrongSecret = await runInProcess(['verify', '--signature', signature, '--secret', 'whsec_other'], { input: body });
    expect(wrongSecret.code).toBe(1);
  });

  it('is a usage error without a secret or a signature', async () => {
    expect((await runInProcess(['verify', '--signature', signature], { input: body })).code).toBe(2);
    expect((await runInProcess(['verify', '--secret', secret], { input: body })).code).toBe(2);
    expect((await runInProcess(['verify', '--signature', signature, '--secret', secret, '--payload-file', join(workDir, 'missing')])).code).toBe(2);
  });
});

describe('whsvc completion', () => {
  it('prints zsh and fish scripts and refuses other shells', async () => {
    expect((await runInProcess(['completion', 'zsh'])).stdout).toContain('compdef _whsvc_complete whsvc');
    expect((await runInProcess(['completion', 'fish'])).stdout).toContain('complete -c whsvc');
    const other = await runInProcess(['completion', 'tcsh']);
    expect(other.code).toBe(2);
  });
});
