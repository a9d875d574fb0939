import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, jsonLines, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { postDelivery, signatureOf } from '../helpers/delivery.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// The receiver's loop: deliveries of the real sandbox recorded by listen, then replayed to an app, byte for byte.

let sandbox: SandboxInProcess;
let workDir: string;
let app: Receiver;
const secretFile = () => join(workDir, 'whsec.txt');
const recordFile = () => join(workDir, 'deliveries.ndjson');
/** whsvc as the user of the sandbox. */
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));
beforeAll(async () => {
  [sandbox, app] = await Promise.all([startSandboxInProcess(['--quiet']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-replay-'));
  const listener = await startListenInProcess(['--secret-file', secretFile(), '--record', recordFile(), '--count', '2', '--timeout', '60']);
  await createWebhook(cli, `${listener.url}/hooks`, 'invoice.paid,product.updated', ['--secret-file', secretFile()]);
  for (const event of ['invoice.paid', 'product.updated']) await trigger(cli, event);
  expect(await listener.exit).toBe(0);
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), app?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

describe('listen --record, then replay', () => {
  it('listen records each delivery as one JSON line, mode 0600, with no secret', () => {
    const text = readFileSync(recordFile(), 'utf8');
    const records = jsonLines(text);
    expect(records).toHaveLength(2);
    expect(statSync(recordFile()).mode & 0o777).toBe(0o600);
    expect(text).not.toContain(readFileSync(secretFile(), 'utf8').trim());
    for (const record of records) {
      expect(record).toMatchObject({ whsvc_record: 1, method: 'POST', path: '/hooks', signature_check: 'verified', answered: 200, attempt: 1 });
      expect(record.delivery_id).toMatch(/^dlv_/);
      expect(record.headers['x-service-signature']).toBe(signatureOf(readFileSync(secretFile(), 'utf8').trim(), record.body));
    }
    expect(records.map((record) => record.event).sort()).toEqual(['invoice.paid', 'product.updated']);
  });

  it('a request that is not a delivery (an API command pointed at listen by mistake) is answered but never recorded, nor its credentials', async () => {
    const file = join(workDir, 'mistaken.ndjson');
    const secret = 'whsec_listen_mistake_test';
    writeFileSync(join(workDir, 'mistake-secret.txt'), secret);
    const listener = await startListenInProcess(['--secret-file', join(workDir, 'mistake-secret.txt'), '--record', file, '--count', '1', '--timeout', '30']);
    const token = await fetch(`${listener.url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer tok_should_not_be_kept' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'sbx_demo_readwrite', client_secret: 'sbx_secret_should_not_be_kept' }),
    });
    expect(token.status).toBeGreaterThanOrEqual(400);
    const delivery = await postDelivery(`${listener.url}/hooks`, secret, 'dlv_mistake1', { headers: { cookie: 'session=should_not_be_kept' } });
    expect(delivery.status).toBe(200);
    expect(await listener.exit).toBe(1);
    const text = readFileSync(file, 'utf8');
    expect(jsonLines(text).map((line) => line.path)).toEqual(['/hooks']);
    expect(text).not.toMatch(/should_not_be_kept/);
  });

  it("listen's forward is held to --request-timeout (the service's 10 s otherwise)", async () => {
    const secret = 'whsec_listen_forward_timeout';
    writeFileSync(join(workDir, 'forward-secret.txt'), secret);
    app.respondWith = () => 'hold';
    try {
      const listener = await startListenInProcess([
        '--secret-file',
        join(workDir, 'forward-secret.txt'),
        '--forward-to',
        `${app.url}/app`,
        '--request-timeout',
        '300ms',
        '--count',
        '1',
        '--timeout',
        '30',
      ]);
      const answer = await postDelivery(`${listener.url}/hooks`, secret, 'dlv_forward1');
      expect(answer.status).toBe(502);
      await listener.exit;
      expect(listener.stdout()).toContain('no answer within 300 ms');
    } finally {
      app.respondWith = () => 200;
      app.release();
    }
  });

  it('replay sends the same bytes and signature to the app, in order, and exits 0 when every one got a 2xx', async () => {
    app.received.length = 0;
    const records = jsonLines(readFileSync(recordFile(), 'utf8'));
    const replayed = await runInProcess(['replay', recordFile(), '--to', `${app.url}/webhooks`]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(app.received.map((request) => request.path)).toEqual(['/webhooks', '/webhooks']);
    expect(app.received.map((request) => request.body)).toEqual(records.map((record) => record.body));
    expect(app.received.map((request) => request.headers['x-service-signature'])).toEqual(records.map((record) => record.headers['x-service-signature']));
    expect(app.received.map((request) => request.headers['x-service-delivery-id'])).toEqual(records.map((record) => record.delivery_id));
    expect(replayed.stdout.trim().split('\n')).toHaveLength(2);
    expect(replayed.stdout).toMatch(/ -> 200 {2}\d+ ms/);
    expect(replayed.stderr).toContain('2 deliveries replayed');
  });

  it("--secret-file signs each body again with another secret (the app's own)", async () => {
    app.received.length = 0;
    const testSecret = join(workDir, 'app-secret.txt');
    writeFileSync(testSecret, 'whsec_the_apps_own\n');
    const replayed = await runInProcess(['replay', recordFile(), '--to', app.url, '--secret-file', testSecret, '--event', 'product.updated', '--json']);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(app.received).toHaveLength(1);
    // No path in --to: the path each was received at.
    expect(app.received[0]!.path).toBe('/hooks');
    expect(app.received[0]!.headers['x-service-signature']).toBe(signatureOf('whsec_the_apps_own', app.received[0]!.body));
    const lines = jsonLines(replayed.stdout);
    expect(lines[0].replayed).toMatchObject({ event: 'product.updated', status: 200, url: `${app.url}/hooks` });
    expect(lines[1].summary).toMatchObject({ sent: 1, ok: 1, other_status: 0, no_answer: 0 });
    expect(replayed.stdout).not.toContain('whsec_the_apps_own');
  });

  it("--request-timeout limits each send (the service's 10 s otherwise)", async () => {
    app.respondWith = () => 'hold';
    try {
      const replayed = await runInProcess(['replay', recordFile(), '--to', app.url, '--event', 'invoice.paid', '--request-timeout', '300ms', '--json']);
      expect(replayed.code).toBe(1);
      expect(JSON.parse(replayed.stdout.trim().split('\n')[0]!).replayed).toMatchObject({ status: null, error: 'no answer within 300 ms' });
    } finally {
      app.respondWith = () => 200;
      app.release();
    }
  });

  it('exits 1 when the app refuses one; --dry-run sends nothing', async () => {
    app.received.length = 0;
    app.respondWith = (request) => (request.body.includes('invoice.paid') ? 500 : 200);
    try {
      const refused = await runInProcess(['replay', recordFile(), '--to', app.url]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/invoice\.paid .* -> 500 /);
      expect(refused.stderr).toContain('1 answered 2xx, 1 answered otherwise, 0 got no answer');
    } finally {
      app.respondWith = () => 200;
    }
    app.received.length = 0;
    const dry = await runInProcess(['replay', recordFile(), '--to', app.url, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('(not sent: --dry-run)');
    expect(app.received).toHaveLength(0);
  });

  it('a 401 or 403 from the app gets the hint that it refuses the signature, recorded or made anew (issue 44)', async () => {
    app.respondWith = () => 401;
    try {
      const recorded = await runInProcess(['replay', recordFile(), '--to', app.url]);
      expect(recorded.code).toBe(1);
      expect(recorded.stderr).toContain(
        'hint: 2 deliveries answered 401 or 403: the app refuses the recorded signature, made with the secret of the webhook that sent it; sign them anew with the secret your app holds: --secret-file FILE\n',
      );
      const appSecret = join(workDir, 'app-secret-401.txt');
      writeFileSync(appSecret, 'whsec_not_the_apps');
      const resigned = await runInProcess(['replay', recordFile(), '--to', app.url, '--secret-file', appSecret, '--event', 'invoice.paid']);
      expect(resigned.stderr).toContain(
        `hint: 1 delivery answered 401 or 403: the app refuses the signature made with the secret in ${appSecret}; give replay the secret your app holds\n`,
      );
    } finally {
      app.respondWith = () => 200;
    }
    const fine = await runInProcess(['replay', recordFile(), '--to', app.url]);
    expect(fine.stderr).not.toContain('hint:');
  });

  it("shows each delivery at the service's time (its Date header), as listen did, not the time it was recorded (issue 44)", async () => {
    const record = jsonLines(readFileSync(recordFile(), 'utf8'))[0];
    // Recorded on 1 January 2026 by this machine's clock, sent on 1 January 2027 by a sandbox whose clock was moved.
    const moved = { ...record, received_at: '2026-01-01T12:00:00.000Z', headers: { ...record.headers, date: 'Fri, 01 Jan 2027 12:00:00 GMT' } };
    const file = join(workDir, 'moved-clock.ndjson');
    writeFileSync(file, `${JSON.stringify(moved)}\n`);
    const dry = await runInProcess(['replay', file, '--to', app.url, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^2027-01-01 \d\d:\d\d:\d\d /);
    expect(dry.stdout).not.toContain('2026-01-01');
  });

  it('a line that is not a record is exit 2 naming its line, and nothing is sent', async () => {
    app.received.length = 0;
    const broken = join(workDir, 'broken.ndjson');
    writeFileSync(broken, `${readFileSync(recordFile(), 'utf8')}{"not":"a record"}\n`);
    const result = await runInProcess(['replay', broken, '--to', app.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${broken}:3: not a record`);
    expect(app.received).toHaveLength(0);
    const unreadable = await runInProcess(['replay', join(workDir, 'none.ndjson'), '--to', app.url]);
    expect(unreadable.code).toBe(2);
    // A filter that takes nothing (a typo, say) fails the run: a regression test that sends nothing must not pass.
    const none = await runInProcess(['replay', recordFile(), '--to', app.url, '--event', 'invoice.payed']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('nothing sent');
  });
});

describe('deliveries tail --record: real deliveries of the service recorded from its log', () => {
  it('records each new delivery once, as the service sent it; with --checkpoint a second run records only what is new', async () => {
    const webhookId = (await createWebhook(cli, `${app.url}/live`, 'invoice.paid,product.updated')).id;
    const file = join(workDir, 'from-tail.ndjson');
    const checkpoint = join(workDir, 'tail-checkpoint.json');
    const tail = (count: number) =>
      cli(['deliveries', 'tail', '--webhook', webhookId, '--since', '1h', '--count', String(count), '--record', file, '--checkpoint', checkpoint]);
    for (const event of ['invoice.paid', 'product.updated']) await trigger(cli, event);
    const first = await tail(2);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    await trigger(cli);
    const second = await tail(1);
    expect(second.code, second.stderr).toBe(0);
    const records = jsonLines(readFileSync(file, 'utf8'));
    expect(records).toHaveLength(3);
    expect(new Set(records.map((record) => record.delivery_id)).size).toBe(3);

    // Replayed, each carries the body and signature the service stored for it.
    app.received.length = 0;
    const replayed = await runInProcess(['replay', file, '--to', `${app.url}/replayed`]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(app.received).toHaveLength(3);
    for (const [i, record] of records.entries()) {
      const stored = JSON.parse((await cli(['deliveries', 'show', record.delivery_id, '--json'])).stdout);
      expect(app.received[i]!.body).toBe(JSON.stringify(stored.payload));
      expect(app.received[i]!.headers['x-service-signature']).toBe(stored.signature);
    }
  });
});

describe('bytes that are not UTF-8', () => {
  it('are recorded as body_base64 and replayed exactly', async () => {
    const file = join(workDir, 'binary.ndjson');
    const listener = await startListenInProcess(['--record', file, '--timeout', '30']);
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x80, 0x7d]);
    const answer = await fetch(`${listener.url}/raw`, { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(answer.status).toBe(200);
    // Recorded before it is answered (a receiver acknowledges only what it kept): in the file once the answer is in.
    expect(readFileSync(file, 'utf8')).toContain('body_base64');
    expect(await listener.stop('SIGTERM')).toBe(0);
    const [record] = jsonLines(readFileSync(file, 'utf8'));
    expect(record).toMatchObject({ path: '/raw', signature_check: 'missing', body_base64: bytes.toString('base64') });
    expect(record.body).toBeUndefined();
    app.received.length = 0;
    expect((await runInProcess(['replay', file, '--to', app.url])).code).toBe(0);
    expect(app.received[0]!.bytes.equals(bytes)).toBe(true);
    expect(app.received[0]!.path).toBe('/raw');
  });
});

/** A POST as curl makes one: with `Expect: 100-continue`, the body goes only once the server said 100 Continue. */
function postRaw(url: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    if (headers.expect) req.on('continue', () => req.end(body));
    else req.end(body);
  });
}

describe('replay of what listen itself recorded, from real requests', () => {
  it('Expect: 100-continue with a large body, a header that is not ASCII, a body with a BOM: forwarded and replayed, the same bytes, the signature still good', async () => {
    const secret = 'whsec_listen_as_curl_sends';
    writeFileSync(join(workDir, 'curl-secret.txt'), secret);
    const file = join(workDir, 'as-curl.ndjson');
    app.received.length = 0;
    const listener = await startListenInProcess([
      '--secret-file',
      join(workDir, 'curl-secret.txt'),
      '--record',
      file,
      '--forward-to',
      `${app.url}/forwarded`,
      '--count',
      '3',
      '--timeout',
      '60',
    ]);
    // Large, near the most listen takes (1 MiB), as curl sends Expect with a large body.
    const large = Buffer.from(JSON.stringify({ event: 'invoice.paid', id: 'inv_large', notes: 'x'.repeat(1_000_000) }));
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ event: 'invoice.paid', id: 'inv_bom' }))]);
    const plain = Buffer.from(JSON.stringify({ event: 'invoice.paid', id: 'inv_cafe' }));
    const headers = (body: Buffer, id: string) => ({
      'content-type': 'application/json',
      'x-service-signature': signatureOf(secret, body),
      'x-service-delivery-id': id,
    });
    // Node's client writes a header's characters as bytes (latin1): these are the UTF-8 bytes of café, as curl -H sends them.
    const cafe = Buffer.from('café').toString('latin1');
    expect(await postRaw(`${listener.url}/hooks`, { ...headers(large, 'dlv_large'), expect: '100-continue' }, large)).toBe(200);
    expect(await postRaw(`${listener.url}/hooks`, { ...headers(plain, 'dlv_cafe'), 'x-name': cafe }, plain)).toBe(200);
    expect(await postRaw(`${listener.url}/hooks`, headers(bom, 'dlv_bom'), bom)).toBe(200);
    expect(await listener.exit).toBe(0);
    expect(listener.stderr()).not.toMatch(/Error|unexpected/);
    const forwarded = app.received.splice(0);
    expect(forwarded.map((request) => request.path)).toEqual(['/forwarded', '/forwarded', '/forwarded']);

    const replayed = await runInProcess(['replay', file, '--to', `${app.url}/replayed`]);
    expect(replayed.stderr).not.toContain('unexpected error');
    expect(replayed.code, replayed.stderr).toBe(0);
    for (const received of [forwarded, app.received]) {
      const [first, second, third] = received;
      expect(first!.bytes.equals(large)).toBe(true);
      expect(first!.headers.expect).toBeUndefined();
      expect(Buffer.from(second!.headers['x-name'] as string, 'latin1').equals(Buffer.from('café'))).toBe(true);
      expect(third!.bytes.equals(bom)).toBe(true);
      for (const request of received) expect(request.headers['x-service-signature']).toBe(signatureOf(secret, request.bytes));
    }
  });

  it('a header no HTTP request can carry is refused before anything is sent: exit 2, FILE:LINE, never "unexpected error"', async () => {
    const file = join(workDir, 'unsendable.ndjson');
    const good = readFileSync(recordFile(), 'utf8').trim().split('\n')[0]!;
    const bad = JSON.parse(good);
    bad.headers['x-name'] = '日本';
    writeFileSync(file, `${good}\n${JSON.stringify(bad)}\n`);
    app.received.length = 0;
    const result = await runInProcess(['replay', file, '--to', app.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:2: the header "x-name" holds U+65E5, which is not one byte`);
    expect(result.stderr).not.toContain('unexpected error');
    expect(app.received).toHaveLength(0);
  });
});

describe('--to with a user name and password', () => {
  it('is never shown: not in the lines, the summary or --dry-run', async () => {
    const url = app.url.replace('http://', 'http://someone:pa55word@');
    const result = await runInProcess(['replay', recordFile(), '--to', `${url}/creds`, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('pa55word');
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!).summary.to).toBe(`${app.url.replace('http://', 'http://***@')}/creds`);
    const dry = await runInProcess(['replay', recordFile(), '--to', `${url}/creds`, '--dry-run']);
    expect(dry.stdout + dry.stderr).not.toContain('pa55word');
  });
});
