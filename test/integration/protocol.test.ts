import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, jsonLines, listenedDeliveries, sandboxEnv } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { signatureOf } from '../helpers/delivery.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// The delivery protocol end to end: a sandbox started with --platform-name Acme, its deliveries shown, recorded and
// forwarded under X-Acme-*; one signature check, `signature_check`, in every command's --json; verify's usage errors;
// `-` for stdin wherever a file flag reads.

let sandbox: SandboxInProcess;
let app: Receiver;
let workDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  [sandbox, app] = await Promise.all([startSandboxInProcess(['--quiet', '--platform-name', 'Acme']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-protocol-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), app?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

/** whsvc as the user of the sandbox. */
const cli = inProcessCliWith(() => env);

/** The delivery's own headers of a request (X-…-*), lower case, as a receiver reads them. */
const deliveryHeadersOf = (headers: IncomingHttpHeaders | Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => name.toLowerCase().startsWith('x-'))
      .map(([name, value]) => [name.toLowerCase(), value]),
  );

/** A webhook to the app at `path`, its secret in a file; one test delivery to it, as the sandbox sent it. */
async function deliveredTo(path: string): Promise<{ webhookId: string; attemptId: string; secretFile: string; sent: Record<string, unknown> }> {
  const secretFile = join(workDir, `${path.slice(1)}.txt`);
  const webhookId = (await createWebhook(cli, `${app.url}${path}`, 'invoice.paid', ['--secret-file', secretFile])).id;
  const tested = await cli(['test', webhookId, '--json']);
  expect(tested.code, tested.stderr).toBe(0);
  const [request] = await app.waitFor(1, 10_000, path);
  return { webhookId, attemptId: JSON.parse(tested.stdout).id as string, secretFile, sent: deliveryHeadersOf(request!.headers) };
}

/** Starts whsvc with `input` on its stdin, in the sandbox's environment, once its stderr matches `ready`. */
async function startWithStdin(args: string[], input: string, ready: RegExp) {
  const run = startInProcess(args, { env, input });
  return { ...run, ready: await run.until(() => ready.exec(run.stderr()), `its ready line (${ready})`) };
}

describe('a sandbox started with --platform-name Acme', () => {
  it('deliveries diagnose --platform-name Acme shows and records the X-Acme-* headers the sandbox sent; replay sends them on', async () => {
    const { attemptId, secretFile, sent } = await deliveredTo('/acme');
    expect(Object.keys(sent).sort()).toEqual(['x-acme-attempt', 'x-acme-attempt-id', 'x-acme-delivery-id', 'x-acme-event', 'x-acme-signature']);

    const shown = await cli(['deliveries', 'diagnose', attemptId, '--platform-name', 'Acme']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`  X-Acme-Signature: ${sent['x-acme-signature']}\n`);
    expect(shown.stdout).toContain(`  X-Acme-Delivery-Id: ${sent['x-acme-delivery-id']}\n`);
    expect(shown.stdout).not.toMatch(/X-Service-/);

    const file = join(workDir, 'acme.ndjson');
    const recorded = await cli(['deliveries', 'diagnose', attemptId, '--platform-name', 'Acme', '--secret-file', secretFile, '--record', file]);
    expect(recorded.code, recorded.stderr).toBe(0);
    const [record] = jsonLines(readFileSync(file, 'utf8'));
    expect(deliveryHeadersOf(record!.headers as Record<string, string>)).toEqual(sent);
    expect(record).toMatchObject({ signature_check: 'verified' });

    const replayed = await cli(['replay', file, '--to', `${app.url}/acme-replayed`]);
    expect(replayed.code, replayed.stderr).toBe(0);
    const [request] = await app.waitFor(1, 10_000, '/acme-replayed');
    expect(deliveryHeadersOf(request!.headers)).toEqual(sent);
  });

  it('deliveries tail --platform-name Acme --forward-to sends the X-Acme-* headers the sandbox sent', async () => {
    const webhook = await createWebhook(cli, `${app.url}/acme-tail`);
    // The secret from stdin (--secret-file -): it checks the rebuilt body.
    const tail = await startWithStdin(
      [
        'deliveries',
        'tail',
        '--webhook',
        webhook.id,
        '--forward-to',
        `${app.url}/tailed`,
        '--platform-name',
        'Acme',
        '--secret-file',
        '-',
        '--interval',
        '200ms',
        '--json',
      ],
      webhook.signing_secret,
      /^whsvc: following /m,
    );
    try {
      expect((await cli(['test', webhook.id])).code).toBe(0);
      const [sentBySandbox] = await app.waitFor(1, 10_000, '/acme-tail');
      const [forwarded] = await app.waitFor(1, 20_000, '/tailed');
      expect(deliveryHeadersOf(forwarded!.headers)).toEqual(deliveryHeadersOf(sentBySandbox!.headers));
      expect(forwarded!.body).toBe(sentBySandbox!.body);
    } finally {
      await tail.stop('SIGINT');
    }
    expect(await tail.exit).toBe(0);
    const forwardLine = tail.lines().find((line) => line.change === 'forwarded');
    expect(forwardLine).toMatchObject({ app_status: 200, signature_check: 'verified' });
    expect(forwardLine).not.toHaveProperty('signature');
  });

  it('a --platform-name that cannot name a header is a usage error', async () => {
    for (const args of [
      ['deliveries', 'diagnose', 'dlv_1', '--platform-name', 'X Y'],
      ['deliveries', 'tail', '--platform-name', '-Acme'],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('must be letters, digits and dashes');
    }
  });
});

describe('one signature check, signature_check, in every --json', () => {
  it('deliveries diagnose: verified with the right secret (from stdin too), mismatch with another, not_checked without; signature is the value', async () => {
    const { attemptId, secretFile, sent } = await deliveredTo('/checked');
    const diagnosed = async (args: string[], input?: string) => {
      const result = await cli(['deliveries', 'diagnose', attemptId, '--platform-name', 'Acme', '--json', ...args], { input });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    expect(await diagnosed(['--secret-file', secretFile])).toMatchObject({ signature_check: 'verified', signature: sent['x-acme-signature'] });
    expect(await diagnosed(['--secret-file', '-'], readFileSync(secretFile, 'utf8'))).toMatchObject({ signature_check: 'verified' });
    writeFileSync(join(workDir, 'other.txt'), 'whsec_another_one\n');
    expect(await diagnosed(['--secret-file', join(workDir, 'other.txt')])).toMatchObject({ signature_check: 'mismatch' });
    expect(await diagnosed([])).toMatchObject({ signature_check: 'not_checked', signature: sent['x-acme-signature'] });
  });

  it('listen: a malformed signature is malformed, in its line and in its record; the secret from stdin (--secret-file -)', async () => {
    const file = join(workDir, 'listen.ndjson');
    const listener = await startWithStdin(
      ['listen', '--port', '0', '--secret-file', '-', '--record', file, '--count', '1', '--timeout', '30', '--json'],
      'whsec_from_stdin\n',
      /ready at (http:\/\/\S+)\n {2}verifying with the secret from stdin\n/,
    );
    const url = listener.ready[1]!;
    const body = '{"id":"inv_1","event":"invoice.paid"}';
    const malformed = await fetch(url, { method: 'POST', body, headers: { 'x-acme-signature': signatureOf('whsec_from_stdin', body).slice(0, -1) } });
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toBe('signature malformed\n');
    const good = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'x-acme-signature': signatureOf('whsec_from_stdin', body), 'x-acme-delivery-id': 'dlv_2' },
    });
    expect(good.status).toBe(200);
    expect(await listener.exit).toBe(1);
    expect(listenedDeliveries(listener.stdout()).map((line) => line.signature_check)).toEqual(['malformed', 'verified']);
    expect(jsonLines(readFileSync(file, 'utf8')).map((record) => record.signature_check)).toEqual(['malformed', 'verified']);
  });

  it('replay: the check each record holds, read from record files written before signature_check too', async () => {
    const record = (fields: object) =>
      JSON.stringify({ whsvc_record: 1, received_at: '2026-11-25T09:00:00Z', method: 'POST', path: '/old', headers: {}, body: '{}', ...fields });
    const file = join(workDir, 'older.ndjson');
    writeFileSync(
      file,
      `${[record({ signature: 'ok' }), record({ signature: 'bad' }), record({ signature: 'unsigned' }), record({ signature_check: 'malformed' })].join('\n')}\n`,
    );
    const dryRun = await runInProcess(['replay', file, '--to', app.url, '--dry-run', '--json']);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const planned = jsonLines(dryRun.stdout).filter((line) => line.would_send);
    expect(planned.map((line) => (line.would_send as Record<string, unknown>).signature_check)).toEqual(['verified', 'mismatch', 'missing', 'malformed']);
    const replayed = await runInProcess(['replay', file, '--to', app.url, '--json']);
    expect(replayed.code, replayed.stderr).toBe(0);
    const sent = jsonLines(replayed.stdout).filter((line) => line.replayed);
    expect(sent.map((line) => (line.replayed as Record<string, unknown>).signature_check)).toEqual(['verified', 'mismatch', 'missing', 'malformed']);
  });

  it('replay --secret-file - signs each body again with the secret from stdin', async () => {
    const file = join(workDir, 'resign.ndjson');
    const body = '{"id":"inv_r","event":"invoice.paid"}';
    writeFileSync(
      file,
      `${JSON.stringify({ whsvc_record: 1, received_at: '2026-11-25T09:00:00Z', method: 'POST', path: '/resigned', headers: { 'x-acme-signature': 'sha256=old' }, body, signature_check: 'verified' })}\n`,
    );
    const result = await runInProcess(['replay', file, '--to', app.url, '--secret-file', '-'], { input: 'whsec_apps_own\n' });
    expect(result.code, result.stderr).toBe(0);
    const [request] = await app.waitFor(1, 10_000, '/resigned');
    expect(request!.headers['x-acme-signature']).toBe(signatureOf('whsec_apps_own', body));
  });
});

describe('whsvc verify', () => {
  const secret = 'whsec_verify_me';
  const body = '{"id":"inv_9","event":"invoice.paid"}';
  const signature = signatureOf(secret, body);
  const digits = signature.slice('sha256='.length);

  it('--json: signature_check verified or mismatch, and the signature given', async () => {
    const right = await runInProcess(['verify', '--signature', signature, '--secret', secret, '--json'], { input: body });
    expect(right.code, right.stderr).toBe(0);
    expect(JSON.parse(right.stdout)).toMatchObject({ signature_check: 'verified', signature, body_bytes: body.length });
    expect(JSON.parse(right.stdout)).not.toHaveProperty('valid');
    const wrong = await runInProcess(['verify', '--signature', signature, '--secret', 'whsec_other', '--json'], { input: body });
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ signature_check: 'mismatch', signature });
    const human = await runInProcess(['verify', '--signature', signature, '--secret', 'whsec_other'], { input: body });
    expect(human.stderr).toMatch(/^mismatch: the signature does not match the \d+-byte body \(expected sha256=[0-9a-f]{8}…, got sha256=[0-9a-f]{8}…\)$/m);
  });

  it.each([
    ['63 hex digits', `sha256=${digits.slice(1)}`, 'has 63 hex digits after sha256=, not 64'],
    ['a sha1= prefix', `sha1=${digits.slice(0, 40)}`, 'starts with sha1=, not sha256='],
    ['empty', '', '--signature is empty'],
    ['no prefix', digits, 'has no sha256= before its 64 hex digits'],
    ['a letter that is not hex', `sha256=${digits.slice(1)}x`, 'has "x" after sha256=, which is not a hex digit'],
  ])('a --signature with %s is a usage error (exit 2) that says what is wrong with it', async (_label, given, problem) => {
    const result = await runInProcess(['verify', '--signature', given, '--secret', secret], { input: body });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(problem);
    expect(result.stderr).not.toContain('mismatch');
    expect(result.stdout).toBe('');
  });

  it('- reads stdin: --payload-file -, or --secret-file - with the payload in a file; never both', async () => {
    const payloadFile = join(workDir, 'payload.json');
    writeFileSync(payloadFile, body);
    const secretFile = join(workDir, 'verify-secret.txt');
    writeFileSync(secretFile, `${secret}\n`);
    expect((await runInProcess(['verify', '--signature', signature, '--secret-file', secretFile, '--payload-file', '-'], { input: body })).code).toBe(0);
    expect((await runInProcess(['verify', '--signature', signature, '--secret-file', '-', '--payload-file', payloadFile], { input: secret })).code).toBe(0);
    for (const args of [
      ['--secret-file', '-', '--payload-file', '-'],
      ['--secret-file', '-'],
    ]) {
      const result = await runInProcess(['verify', '--signature', signature, ...args], { input: body });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/both read stdin/);
    }
  });
});
