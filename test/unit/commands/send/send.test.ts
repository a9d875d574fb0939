import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { undiciTransport, type TransportRequest, type TransportResponse } from '../../../../src/api/transport.js';
import { TransportError } from '../../../../src/net.js';
import { startHostileReceiver } from '../../../helpers/hostile-receivers.js';
import { samplePayloadWith, setting } from '../../../../src/commands/send/payload.js';
import { run, type SendOptions } from '../../../../src/commands/send/send.js';
import { parseRecordLine } from '../../../../src/protocol/record-line.js';
import { Collector, fakeStdin } from '../../../helpers/fake-deps.js';
import { signatureOf } from '../../../helpers/delivery.js';
import { startEndlessServer } from '../../../helpers/endless.js';
import { PrintedJson } from '../../../../src/cli/json-output.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-send-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 10, 25, 9, 0, 0);

/** A transport that answers each request with `answer`, keeping what was sent. */
function receiver(answer: TransportResponse | TransportError = { status: 200, headers: {}, text: 'ok' }) {
  const sent: TransportRequest[] = [];
  return {
    sent,
    transport: async (request: TransportRequest) => {
      sent.push(request);
      if (answer instanceof TransportError) throw answer;
      return answer;
    },
  };
}

function setup(options: Partial<SendOptions> = {}, answer?: TransportResponse | TransportError, stdin = '') {
  const secretFile = join(dir, 'whsec.txt');
  writeFileSync(secretFile, 'whsec_send_test\n');
  const { sent, transport } = receiver(answer);
  const stdout = new Collector();
  const stderr = new Collector();
  let clock = T0;
  const deps = { stdin: fakeStdin(stdin), stdout, stderr, env: {}, jsonOut: new PrintedJson(stdout), transport, now: () => (clock += 5) };
  const opts: SendOptions = {
    url: 'http://127.0.0.1:3000/hooks',
    set: [],
    secretFile,
    platformName: 'Service',
    timeoutMs: 10_000,
    json: true,
    color: false,
    ...options,
  };
  return { sent, stdout, stderr, run: () => run(opts, deps), secretFile };
}

const bodyOf = (request: TransportRequest) => Buffer.from(request.body as Uint8Array).toString('utf8');

describe('whsvc send', () => {
  it("sends the catalog's sample with the service's headers, signed over its exact bytes; --json says what was sent and what came back", async () => {
    const s = setup();
    expect(await s.run()).toBe(0);
    expect(s.sent).toHaveLength(1);
    const [request] = s.sent;
    const body = bodyOf(request!);
    expect(JSON.parse(body)).toMatchObject({ event: 'invoice.paid', amount: { amount: 12900, currency: 'EUR' } });
    expect(request!.method).toBe('POST');
    expect(request!.url.href).toBe('http://127.0.0.1:3000/hooks');
    expect(request!.timeoutMs).toBe(10_000);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'X-Service-Signature': signatureOf('whsec_send_test', body),
      'X-Service-Event': 'invoice.paid',
      'X-Service-Attempt': '1',
    });
    expect(request!.headers['X-Service-Delivery-Id']).toMatch(/^dlv_[0-9a-f]{24}$/);
    const document = JSON.parse(s.stdout.text);
    expect(document).toMatchObject({
      event: 'invoice.paid',
      attempt: 1,
      signature: signatureOf('whsec_send_test', body),
      signature_check: 'verified',
      signed_with: s.secretFile,
      body,
      status: 200,
      ms: 5,
      error: null,
      response_body: 'ok',
    });
    expect(s.stdout.text + s.stderr.text).not.toContain('whsec_send_test');
  });

  it('--set changes the sample (JSON values where they parse, strings otherwise); the event header follows the body', async () => {
    const s = setup({
      event: 'sales_order.created',
      set: [setting('total.amount=500'), setting('total.currency=USD'), setting('customer_id="42"'), setting('rush=true'), setting('event=sales_order.other')],
    });
    await s.run();
    const body = JSON.parse(bodyOf(s.sent[0]!));
    expect(body).toMatchObject({ total: { amount: 500, currency: 'USD' }, customer_id: '42', rush: true, event: 'sales_order.other' });
    expect(s.sent[0]!.headers['X-Service-Event']).toBe('sales_order.other');
  });

  it('--data is sent byte for byte (its spacing kept, signed as given), from the flag, a file or stdin', async () => {
    const data = '{ "id" : "inv_9",\n  "event": "invoice.paid" }';
    for (const given of [data, `@${join(dir, 'body.json')}`, '-']) {
      writeFileSync(join(dir, 'body.json'), data);
      const s = setup({ data: given }, undefined, data);
      expect(await s.run()).toBe(0);
      expect(bodyOf(s.sent[0]!)).toBe(data);
      expect(s.sent[0]!.headers['X-Service-Signature']).toBe(signatureOf('whsec_send_test', data));
    }
  });

  it('without --secret-file it goes unsigned, and says so', async () => {
    const s = setup({ secretFile: undefined, json: false });
    expect(await s.run()).toBe(0);
    expect(Object.keys(s.sent[0]!.headers).some((name) => /signature/i.test(name))).toBe(false);
    expect(s.stdout.text).toMatch(/^signature +none: sent unsigned$/m);
    expect(s.stderr.text).toContain('sent unsigned (no --secret-file)');
  });

  it('exit 1 when the answer is not a 2xx, or there is none, said in the words replay uses', async () => {
    const refused = setup({ json: false }, { status: 401, headers: {}, text: 'bad signature\n' });
    expect(await refused.run()).toBe(1);
    expect(refused.stdout.text).toMatch(/^answer +401 in 5 ms$/m);
    expect(refused.stdout.text).toMatch(/^answered +bad signature$/m);
    const down = setup({ json: false }, new TransportError('connection refused', 'ECONNREFUSED', false));
    expect(await down.run()).toBe(1);
    expect(down.stdout.text).toMatch(/^answer +no answer: connection refused$/m);
    const slow = setup({}, new TransportError('no answer within 10 s', 'ETIMEDOUT', true));
    expect(await slow.run()).toBe(1);
    expect(JSON.parse(slow.stdout.text)).toMatchObject({ status: null, error: 'no answer within 10 s', response_body: null });
  });

  it('exit 1 with one line naming what broke when the receiver (on 127.0.0.1) answers with bytes that are not HTTP', async () => {
    const receiver = await startHostileReceiver('not HTTP');
    const agent = new Agent();
    try {
      const s = setup({ json: false, url: `${receiver.url}/hooks` });
      const { stdout, stderr } = s;
      const code = await run(
        { url: `${receiver.url}/hooks`, set: [], secretFile: s.secretFile, platformName: 'Service', timeoutMs: 30_000, json: false, color: false },
        { stdin: fakeStdin(''), stdout, stderr, env: {}, jsonOut: new PrintedJson(stdout), transport: undiciTransport(agent) },
      );
      expect(code).toBe(1);
      expect(stdout.text).toMatch(/^answer +broken answer: not HTTP: it does not begin with an HTTP\/1\.1 status line$/m);
    } finally {
      await agent.close();
      await receiver.close();
    }
  });

  it('--record appends it in the record format (0600) that replay reads', async () => {
    const file = join(dir, 'sent.ndjson');
    const s = setup({ record: file });
    await s.run();
    const line = readFileSync(file, 'utf8').trim();
    const record = parseRecordLine(line);
    expect(record).toMatchObject({ method: 'POST', path: '/hooks', event: 'invoice.paid', attempt: 1, signature_check: 'verified', answered: 200 });
    expect((record as { body: string }).body).toBe(bodyOf(s.sent[0]!));
    expect((record as { headers: Record<string, string> }).headers['x-service-signature']).toBe(s.sent[0]!.headers['X-Service-Signature']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(line).not.toContain('whsec_send_test');
  });

  it("--record onto a file of the user's is refused before anything is sent, the file kept byte for byte; a record file a kill cut is cut back, and said", async () => {
    const mine = join(dir, 'mine.json');
    writeFileSync(mine, '{"keep":"me"}');
    const refused = setup({ record: mine });
    await expect(refused.run()).rejects.toMatchObject({ refused: true, message: expect.stringMatching(/is not a record file/) });
    expect(refused.sent).toEqual([]);
    expect(readFileSync(mine, 'utf8')).toBe('{"keep":"me"}');

    const records = join(dir, 'sent.ndjson');
    await setup({ record: records }).run();
    const first = readFileSync(records, 'utf8');
    writeFileSync(records, `${first}${first.slice(0, 30)}`);
    const again = setup({ record: records });
    expect(await again.run()).toBe(0);
    expect(again.stderr.text.split('\n')[0]).toBe(
      `whsvc send: ${records} ended in a line cut short (30 bytes, a run killed mid-write): removed, so the file is whole again`,
    );
    const lines = readFileSync(records, 'utf8').split('\n');
    expect(lines[0]).toBe(first.trimEnd());
    expect(parseRecordLine(lines[1]!)).toMatchObject({ event: 'invoice.paid' });
    expect(lines.length).toBe(3);
  });

  it('bad input is a usage error before anything is sent', async () => {
    const cases: Array<[Partial<SendOptions>, RegExp]> = [
      [{ data: '{"a":1}', set: [setting('a=2')] }, /give one of them/],
      [{ data: 'not json' }, /^--data \(the value given\) is not JSON/],
      [{ data: '@' }, /names no file/],
      [{ data: `@${join(dir, 'none.json')}` }, /: no such file$/],
      [{ data: '{"event":"product.updated"}', event: 'invoice.paid' }, /the body's event is "product.updated"/],
      [{ data: '-', secretFile: '-' }, /both read stdin/],
      [{ url: 'ftp://example.com/' }, /only http/],
      [{ set: [setting('amount.amount.x=1')] }, /amount.amount is 12900, which holds no x/],
      [{ secretFile: '' }, /--secret-file is empty/],
    ];
    for (const [options, message] of cases) {
      const s = setup(options);
      await expect(s.run()).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(message) });
      expect(s.sent).toEqual([]);
    }
  });
});

describe('whsvc send: a receiver that answers without end', () => {
  it('its answer is read up to its head: its 2xx stands (exit 0), and the cut is said, in words and in --json', async () => {
    const receiver = await startEndlessServer({ total: 64 * 1024 * 1024, contentType: 'text/plain' });
    const agent = new Agent();
    try {
      const outputs = [];
      for (const json of [false, true]) {
        const stdout = new Collector();
        const deps = {
          stdin: fakeStdin(),
          stdout,
          stderr: new Collector(),
          env: {},
          jsonOut: new PrintedJson(stdout),
          transport: undiciTransport(agent),
          now: () => T0,
        };
        const code = await run({ url: receiver.url, set: [], platformName: 'Service', timeoutMs: 10_000, json, color: false }, deps);
        expect(code).toBe(0);
        outputs.push(stdout.text);
      }
      expect(outputs[0]).toMatch(/^answered +a{199}… \(truncated to its first 1,024 bytes: the rest was not read\)$/m);
      const document = JSON.parse(outputs[1]!);
      expect(document).toMatchObject({ status: 200, response_body: 'a'.repeat(1024), response_body_truncated: true });
      expect(receiver.written()).toBeLessThan(2 * 64 * 1024 * 1024);
      await receiver.untilCutOff(2);
    } finally {
      await agent.destroy();
      await receiver.close();
    }
  });

  it('an answer read whole is not said truncated', async () => {
    const s = setup();
    await s.run();
    expect(JSON.parse(s.stdout.text)).toMatchObject({ response_body: 'ok', response_body_truncated: false });
  });
});

describe('--set', () => {
  it('makes the objects on its path, sets array items, and keeps a key such as __proto__ an own key', () => {
    const payload = samplePayloadWith('product.updated', [setting('meta.source.name=erp'), setting('changed.1=name'), setting('__proto__.x=1')], new Date(T0));
    expect(payload).toMatchObject({ meta: { source: { name: 'erp' } }, changed: ['price', 'name'] });
    expect(JSON.stringify(payload)).toContain('"__proto__":{"x":1}');
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
    expect(({} as { x?: number }).x).toBeUndefined();
  });

  it('refuses what is not path=value', () => {
    expect(() => setting('amount')).toThrow(/must be path=value/);
    expect(() => setting('=1')).toThrow(/must be path=value/);
    expect(() => setting('a..b=1')).toThrow(/empty key/);
  });
});
