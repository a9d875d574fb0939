import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { undiciTransport, type TransportRequest, type TransportResponse } from '../../../../src/api/transport.js';
import { battery } from '../../../../src/commands/check-receiver/battery.js';
import { payloadOfSize, unlikeReserialized, withOneByteChanged } from '../../../../src/commands/check-receiver/bodies.js';
import { run, type CheckReceiverDeps, type CheckReceiverOptions } from '../../../../src/commands/check-receiver/check-receiver.js';
import { numbersSaid } from '../../../../src/commands/check-receiver/report.js';
import { probeEnvironment, type ProbeLimits } from '../../../../src/commands/check-receiver/effects.js';
import { suspectsOfRefusal, suspectsOfReserialization } from '../../../../src/commands/check-receiver/causes.js';
import { displayWidth } from '../../../../src/render/width.js';
import { BROKEN_ANSWER_CODE, TransportError } from '../../../../src/net.js';
import { type Breakage, startHostileReceiver } from '../../../helpers/hostile-receivers.js';
import { samplePayload } from '../../../../src/protocol/catalog.js';
import { verify } from '../../../../src/protocol/signature.js';
import type { Answer, Received } from '../../../helpers/receiver.js';
import {
  acceptsEverything,
  actingReceiver,
  correctReceiver,
  failsOnMismatch,
  mistaken,
  rejectsRepeatedDeliveryId,
  verifiesReserializedJson,
} from '../../../helpers/receivers.js';
import { Collector, fakeStdin } from '../../../helpers/fake-deps.js';
import { startEndlessServer } from '../../../helpers/endless.js';
import { PrintedJson } from '../../../../src/cli/json-output.js';

const SECRET = 'whsec_check_unit';
/** The suspects of a refusal of SECRET, in the order tried (causes.test.ts holds the order). */
const suspectKeys = suspectsOfRefusal({ secret: SECRET, keyName: 'whsec.txt', event: 'invoice.paid', body: '{}', header: 'X-Service-Signature' }).map(
  (suspect) => suspect.key,
);
const NOW = new Date(Date.UTC(2026, 10, 25, 9, 0, 0));

describe('the bodies check-receiver sends', () => {
  it('bytes unlike any re-serialization: the same JSON, written as no serializer writes it', () => {
    const value = { id: 'inv_1', event: 'invoice.paid', amount: { amount: 12900, currency: 'EUR' }, tags: ['a', ''], emoji: '😀x', note: 'café' };
    const written = unlikeReserialized(value);
    expect(JSON.parse(written)).toEqual(value);
    expect(written).not.toBe(JSON.stringify(value));
    expect(written).not.toBe(JSON.stringify(value, null, 2));
    // Python's json.dumps (", " and ": ") and its ensure_ascii escapes of non-ASCII only.
    expect(written).not.toContain('": ');
    expect(written).toContain('"\\u0069nv_1"');
    expect(written).toContain('"\\ud83d\\ude00x"');
    expect(written.indexOf('"emoji"')).toBeLessThan(written.indexOf('"id"'));
    expect(Buffer.from(written, 'utf8').toString('utf8')).toBe(written);
  });

  it('one byte changed: still JSON, one byte apart (its last digit)', () => {
    const body = JSON.stringify(samplePayload('invoice.paid', NOW));
    const { body: changed, change } = withOneByteChanged(body);
    expect(changed).toHaveLength(body.length);
    expect([...changed].filter((c, i) => c !== body[i])).toHaveLength(1);
    expect(JSON.parse(changed).amount.amount).toBe(12901);
    expect(change).toBe('a digit 0 made 1');
  });

  it('the largest payload: the sample grown to exactly the size asked, still JSON', () => {
    const body = payloadOfSize('invoice.paid', NOW, 65_536);
    expect(Buffer.byteLength(body)).toBe(65_536);
    expect(JSON.parse(body)).toMatchObject({ event: 'invoice.paid', amount: { amount: 12900, currency: 'EUR' } });
  });

  it("each delivery is signed as the check says: valid ones under each secret, forged ones not under the receiver's", () => {
    const checks = battery({
      secrets: [
        { name: 'old.txt', secret: SECRET },
        { name: 'new.txt', secret: 'whsec_new' },
      ],
      events: ['invoice.paid', 'product.updated'],
      platformName: 'Service',
      userAgent: 'test',
      now: NOW,
      limitMs: 10_000,
    });
    expect(checks.map((c) => c.key)).toEqual([
      'event_types',
      'raw_bytes',
      'tampered_body',
      'other_secret',
      'no_signature',
      'malformed_signature',
      'repeated_delivery',
      'unknown_event',
      'time_limit',
    ]);
    const valid = (key: string) => checks.find((c) => c.key === key)!.probes;
    expect(valid('event_types').map((p) => [p.what, p.signedWith])).toEqual([
      ['invoice.paid', 'old.txt'],
      ['product.updated', 'old.txt'],
      ['invoice.paid signed with new.txt', 'new.txt'],
    ]);
    expect(verify('whsec_new', valid('event_types')[2]!.delivery.body, valid('event_types')[2]!.delivery.signature!)).toBe(true);
    for (const key of ['tampered_body', 'other_secret']) {
      const { delivery } = valid(key)[0]!;
      expect(verify(SECRET, delivery.body, delivery.signature!), key).toBe(false);
    }
    expect(valid('no_signature')[0]!.delivery.signature).toBeUndefined();
    expect(valid('malformed_signature').map((p) => p.delivery.signature!.replace(/[0-9a-f]{32,64}$/, '…'))).toEqual(['sha1=…', 'sha256=…']);
    const [once, again] = valid('repeated_delivery');
    expect(again!.delivery).toMatchObject({ deliveryId: once!.delivery.deliveryId, attempt: 2, signature: once!.delivery.signature });
    expect(again!.delivery.body.equals(once!.delivery.body)).toBe(true);
  });
});

describe("the closing line's numbers", () => {
  it('a run of three or more said by its ends, shorter runs one by one', () => {
    expect(numbersSaid([1, 9])).toBe('1, 9');
    expect(numbersSaid([2, 3, 4, 5, 6, 7, 8])).toBe('2–8');
    expect(numbersSaid([1, 3, 4, 6, 7, 8, 9])).toBe('1, 3, 4, 6–9');
    expect(numbersSaid([])).toBe('');
  });
});

describe('whsvc check-receiver, its run with the receivers of test/helpers/receivers.ts behind a fake transport', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'whsvc-check-'));
    writeFileSync(join(dir, 'whsec.txt'), SECRET);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A transport that hands each request to `policy`, as an HTTP server would, or fails as `failure` says. */
  function transportTo(policy: (request: Received) => Answer | TransportError) {
    const sent: TransportRequest[] = [];
    const transport = async (request: TransportRequest): Promise<TransportResponse> => {
      sent.push(request);
      const bytes = Buffer.from(request.body as Uint8Array);
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]));
      const answer = policy({ method: request.method, path: request.url.pathname, headers, body: bytes.toString('utf8'), bytes, receivedAt: 0 });
      if (answer instanceof TransportError) throw answer;
      const { status, body, headers: said } = typeof answer === 'object' ? answer : { status: answer as number, body: '', headers: {} };
      return { status, headers: said ?? {}, text: body ?? '' };
    };
    return { sent, transport };
  }

  async function check(
    policy: (request: Received) => Answer | TransportError,
    options: Partial<CheckReceiverOptions> = {},
    stderrIsTTY = false,
    more: Partial<CheckReceiverDeps> = {},
  ) {
    const { sent, transport } = transportTo(policy);
    const stdout = new Collector();
    const stderr = new Collector(stderrIsTTY, 100);
    let clock = NOW.getTime();
    const code = await run(
      {
        url: 'http://127.0.0.1:3000/hooks',
        secretFiles: [join(dir, 'whsec.txt')],
        platformName: 'Service',
        limitMs: 10_000,
        limitGiven: false,
        json: true,
        color: false,
        ...options,
      },
      { stdin: fakeStdin(), stdout, stderr, env: {}, jsonOut: new PrintedJson(stdout), transport, now: () => (clock += 4), ...more },
    );
    const document = options.json === false ? undefined : JSON.parse(stdout.text);
    const failed = document?.checks.filter((c: { result: string }) => c.result === 'fail').map((c: { number: number }) => c.number);
    return { code, sent, stdout: stdout.text, stderr: stderr.text, document, failed };
  }

  it('a receiver done right passes all nine, exit 0; the document has each check and what each send got back', async () => {
    const result = await check(correctReceiver(SECRET));
    expect(result.code).toBe(0);
    expect(result.failed).toEqual([]);
    expect(result.sent).toHaveLength(15);
    expect(result.document).toMatchObject({
      url: 'http://127.0.0.1:3000/hooks',
      time_limit_ms: 10_000,
      passed: 9,
      failed: 0,
      timing: { answers: 15, median_ms: 4, slowest_ms: 4 },
    });
    expect(result.document.checks[2].sent[0]).toMatchObject({
      what: 'invoice.paid with one byte changed',
      signature_check: 'mismatch',
      signed_with: null,
      status: 401,
      ms: 4,
      response_body: 'signature mismatch\n',
    });
    expect(JSON.stringify(result.document) + result.stderr).not.toContain(SECRET);
  });

  it.each([
    ['takes everything', acceptsEverything(), [3, 4, 5, 6]],
    ['verifies re-serialized JSON', verifiesReserializedJson(SECRET), [2]],
    ['refuses a repeated delivery id', rejectsRepeatedDeliveryId(SECRET), [7]],
    ['answers 500 to a signature that does not match', failsOnMismatch(SECRET), [3, 4]],
  ] as const)('a receiver that %s fails the checks it should, and no other: exit 1', async (_what, policy, failed) => {
    const result = await check(policy);
    expect(result.code).toBe(1);
    expect(result.failed).toEqual(failed);
  });

  it.each([
    ['keys the HMAC with the secret and its newline', mistaken.keyWithNewline, 'key_with_newline', 'the newline that ends the file'],
    ['keys it with the secret base64-decoded after whsec_', mistaken.keyDecoded, 'key_base64_decoded', 'base64-decoded'],
    ['compares the header with the bare hex digest', mistaken.bareHex, 'prefix_absent', 'without sha256='],
    ['wants sha256= twice', mistaken.prefixTwice, 'prefix_doubled', 'sha256= twice'],
    ['writes the digest in base64', mistaken.base64Digest, 'base64_digest', 'in base64'],
    ['verifies the JSON pretty-printed again', mistaken.prettyJson, 'pretty_indent_2', 'JSON.stringify(…, null, 2)'],
    ['verifies the JSON written again with its keys sorted', mistaken.sortedJson, 'sorted_compact', 'keys sorted'],
  ] as const)(
    'a receiver that %s: named in check 1, after the control and the suspects before it were refused; 2, 7 and 9 point at it',
    async (_what, receiver, key, words) => {
      const result = await check(receiver(SECRET), { events: ['invoice.paid'] });
      expect(result.failed).toEqual([1, 2, 7, 9]);
      expect(result.document.cause_found).toMatchObject({ check: 1, cause: key });
      const [first] = result.document.checks;
      expect(first.cause).toContain(words);
      const tried = first.cause_probes.map((p: { cause: string }) => p.cause);
      // The control first, signed with a secret made up for it: refused as the valid delivery was.
      expect(first.cause_probes[0]).toMatchObject({ cause: null, what: 'invoice.paid signed with a secret made up for the check', status: 401 });
      expect(tried.at(-1)).toBe(key);
      expect(first.cause_probes.slice(0, -1).every((p: { status: number }) => p.status === 401)).toBe(true);
      expect(result.sent).toHaveLength(11 + tried.length);
      for (const n of [2, 7, 9]) expect(result.document.checks[n - 1]).toMatchObject({ explained_by: 1, cause: expect.stringMatching(/^see 1: /), fix: null });
      expect(result.document.timing.answers).toBe(11 + tried.length);
      // Its deliveries and the cause probes counted apart: 11 deliveries were said before the battery began.
      expect(result.document.checks[8].summary).toContain(`of ${11 + tried.length} answers (11 to deliveries and ${tried.length} to cause probes);`);
    },
  );

  it('a receiver that holds another secret: every suspect and the control refused alike, a likely cause, nothing named found', async () => {
    const result = await check(correctReceiver('whsec_another'), { events: ['invoice.paid'] });
    expect(result.failed).toEqual([1, 2, 7, 9]);
    expect(result.document.cause_found).toBeNull();
    const [first] = result.document.checks;
    expect(first.cause_probes.map((p: { cause: string | null }) => p.cause)).toEqual([null, ...suspectKeys]);
    expect(first.cause_probes.every((p: { status: number }) => p.status === 401)).toBe(true);
    expect(first.cause).toMatch(
      /^it refuses every request alike: another secret than the one in .*whsec\.txt, or something in front of it \(a login, a proxy\)/,
    );
    expect(first.cause).toContain('got the same answer (401 "signature mismatch"), and it took none of 10 signed as the usual mistakes would verify them');
    for (const n of [2, 7, 9])
      expect(result.document.checks[n - 1].cause).toBe('see 1: it refuses every request alike: another secret, or something in front of it');
    const human = await check(correctReceiver('whsec_another'), { events: ['invoice.paid'], json: false });
    expect(human.stdout).toMatch(/^ {9}likely cause: it refuses every request alike/m);
    expect(human.stdout).not.toContain('cause (tested)');
  });

  it('a receiver that verifies the signature and then refuses the payload: the control, refused otherwise, tells it (tested), no suspect sent', async () => {
    const right = correctReceiver(SECRET);
    const refusing = (request: Received): Answer => {
      const answer = right(request);
      return typeof answer === 'object' && answer.status === 200 ? { status: 422, body: 'missing field: customer' } : answer;
    };
    const result = await check(refusing);
    expect(result.document.cause_found).toMatchObject({ check: 1, cause: 'payload_refused' });
    expect(result.document.checks[0].cause).toBe(
      'the signature verified (a delivery signed with a secret made up for the check got another answer: 401 "signature mismatch"); it refuses the payload: 422 "missing field: customer"',
    );
    expect(result.document.checks[0].cause_probes).toMatchObject([{ cause: null, signature_check: 'mismatch', status: 401 }]);
    // The forgeries refused otherwise than the valid deliveries: their refusals show the signature checked.
    expect(result.document.checks.slice(2, 6).map((c: { result: string }) => c.result)).toEqual(['pass', 'pass', 'pass', 'pass']);
    const human = await check(refusing, { json: false });
    expect(human.stdout).toMatch(/^ {9}cause \(tested\): the signature verified/m);
    // Signed or not, the same 422: nothing tells the signature verified.
    const alike = await check(() => ({ status: 422, body: 'missing field: customer' }), { events: ['invoice.paid'] });
    expect(alike.document.checks[0].cause).toMatch(/^it refuses every request alike/);
  });

  it('a login in front of the receiver (401 with WWW-Authenticate to every request): named from the header, a likely cause', async () => {
    const result = await check(() => ({ status: 401, body: 'Unauthorized', headers: { 'www-authenticate': 'Basic realm="staging"' } }), {
      events: ['invoice.paid'],
    });
    expect(result.document.cause_found).toBeNull();
    expect(result.document.checks[0].cause).toBe(
      'something in front of it asks for a login (WWW-Authenticate: Basic realm="staging"): it refuses every request alike (401 "Unauthorized"), signed or not, before a signature is checked',
    );
    expect(result.document.checks[0].fix).toContain('with no login (their signature is what authenticates them)');
    expect(result.document.checks[1].cause).toBe('see 1: a login in front of it refuses every request');
  });

  it('refusals alike those of every valid delivery show nothing: checks 3 to 6 and 8 inconclusive, not passed', async () => {
    const proxy = () => ({ status: 401, body: 'Unauthorized', headers: { 'www-authenticate': 'Basic realm="staging"' } });
    const result = await check(proxy, { events: ['invoice.paid'] });
    for (const n of [3, 4, 5, 6, 8]) {
      expect(result.document.checks[n - 1], `check ${n}`).toMatchObject({
        result: 'inconclusive',
        summary: 'answered 401; not shown: it refuses valid deliveries too (see 1)',
        explained_by: 1,
        cause: null,
      });
    }
    expect(result.document).toMatchObject({ passed: 0, failed: 4, inconclusive: 5 });
    const human = await check(proxy, { events: ['invoice.paid'], json: false });
    expect(human.stdout).toContain('?     3  a body changed by one byte is refused: answered 401; not shown: it refuses valid deliveries too (see 1)\n');
    expect(human.stdout.trimEnd().split('\n').at(-1)).toBe('0 of 9 checks passed; failed: 1, 2, 7, 9; inconclusive: 3–6, 8');
    // Holding another secret, it refuses a forgery as it refuses a valid delivery (check 4), but a delivery with no
    // signature otherwise (check 5): that refusal shows its check of the header.
    const another = await check(correctReceiver('whsec_another'), { events: ['invoice.paid'] });
    expect(another.document.checks.map((c: { result: string }) => c.result)).toEqual([
      'fail',
      'fail',
      'inconclusive',
      'inconclusive',
      'pass',
      'pass',
      'fail',
      'inconclusive',
      'fail',
    ]);
  });

  it('a redirect to a login page: named from its Location', async () => {
    const result = await check(() => ({ status: 302, body: '', headers: { location: 'https://sso.example.com/login?next=%2Fhooks' } }), {
      events: ['invoice.paid'],
    });
    expect(result.document.checks[0].cause).toBe(
      '302 redirects to a login (https://sso.example.com/login?next=%2Fhooks): something in front of the receiver asks for one, and the service follows no redirect',
    );
    const elsewhere = await check(() => ({ status: 308, body: '', headers: { location: 'https://example.com/hooks/' } }), { events: ['invoice.paid'] });
    expect(elsewhere.document.checks[0].cause).toBe('308 is a redirect to https://example.com/hooks/, which the service does not follow');
  });

  it('a receiver that verifies JSON.stringify of what it parsed: check 2 names the compact serializer, tested', async () => {
    const result = await check(verifiesReserializedJson(SECRET));
    expect(result.document.cause_found).toMatchObject({ check: 2, cause: 'compact' });
    expect(result.document.checks[1].cause).toContain('JSON.stringify(JSON.parse(…))');
    expect(result.document.checks[1].cause_probes).toMatchObject([{ cause: 'compact', status: 200, signed_with: null }]);
  });

  it('moving to a new secret, read with its newline: check 1 names that, with the new file', async () => {
    const old = correctReceiver(SECRET);
    const renewed = mistaken.keyWithNewline('whsec_the_new_one');
    writeFileSync(join(dir, 'new.txt'), 'whsec_the_new_one\n');
    // Takes the old secret right, and the new one keyed with its newline.
    const result = await check(
      (request) => {
        const answer = old(request);
        return typeof answer === 'object' && answer.status === 401 ? renewed(request) : answer;
      },
      {
        secretFiles: [join(dir, 'whsec.txt'), join(dir, 'new.txt')],
        events: ['invoice.paid'],
      },
    );
    expect(result.failed).toEqual([1]);
    expect(result.document.cause_found).toMatchObject({ check: 1, cause: 'key_with_newline' });
    expect(result.document.checks[0].cause).toContain(`the secret in ${join(dir, 'new.txt')} and the newline`);
  });

  it('an answer that tells nothing (a 5xx) stops the suspects: the cause stays a likely one, none is named found', async () => {
    let requests = 0;
    const result = await check(() => (++requests === 2 ? 503 : { status: 401, body: 'bad signature' }), { events: ['invoice.paid'], json: true });
    expect(result.document.cause_found).toBeNull();
    expect(result.document.checks[0].cause_probes).toHaveLength(1);
    expect(result.document.checks[0].cause).toContain('it holds another secret, or computes the signature otherwise');
    expect(result.document.checks[0].fix).toContain('never base64-decoded');
  });

  it('a 500 to a signature cut short (a compare of unequal lengths that throws) is named so', async () => {
    const right = correctReceiver(SECRET);
    const result = await check((request) => (/^sha256=[0-9a-f]{32}$/.test(String(request.headers['x-service-signature'])) ? 500 : right(request)));
    expect(result.failed).toEqual([6]);
    expect(result.document.checks[5].cause).toContain('timingSafeEqual');
  });

  it('no answer in time: after the second time-out nothing more is sent; the checks not run say so, check 9 names the time-outs', async () => {
    const result = await check(() => new TransportError('no answer within 250 ms', 'ETIMEDOUT', true), {
      limitMs: 250,
      limitGiven: true,
      events: ['invoice.paid'],
    });
    expect(result.code).toBe(1);
    expect(result.sent).toHaveLength(2);
    expect(result.failed).toEqual([1, 2, 9]);
    expect(result.document.checks[0].cause).toContain('(see 9)');
    expect(result.document.checks[1]).toMatchObject({ summary: 'got no answer within 250 ms' });
    for (const n of [3, 4, 5, 6, 7, 8]) {
      expect(result.document.checks[n - 1]).toMatchObject({ result: 'not_run', summary: 'not run: stopped after 2 time-outs (see 9)', sent: [] });
    }
    expect(result.document).toMatchObject({ passed: 0, failed: 3, not_run: 6, inconclusive: 0 });
    expect(result.document.checks[8]).toMatchObject({ summary: '2 of 2 got no answer within 250 ms; 9 more not sent', sent: [] });
    expect(result.document.checks[8].cause).toContain('waits 250 ms');
    expect(result.document.not_sent).toBe(9);
    expect(result.stderr).toContain('each answer awaited up to 250 ms (--request-timeout; the service waits 10 s)');
    expect(result.stderr).toContain('whsvc check-receiver: 2 deliveries got no answer within 250 ms: 9 more deliveries would wait up to 2.3 s; not sent\n');
  });

  it('the second time-out inside a check: that check is judged on what it sent and says how many were not', async () => {
    const right = correctReceiver(SECRET);
    const slowTypes = new Set(['product.updated', 'inventory.changed']);
    const result = await check(
      (request) =>
        slowTypes.has(String(request.headers['x-service-event'])) ? new TransportError('no answer within 10 s', 'ETIMEDOUT', true) : right(request),
      { json: false },
    );
    expect(result.code).toBe(1);
    expect(result.sent).toHaveLength(2);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(
      'fail  1  a valid delivery of each event type is taken: product.updated: no answer within 10 s; inventory.changed: no answer within 10 s; 3 more not sent',
    );
    expect(lines).toContain('skip  2  bytes unlike a re-serialization are taken: not run: stopped after 2 time-outs (see 9)');
    expect(lines.at(-2)).toBe('0 of 9 checks passed; failed: 1, 9; not run: 2–8');
    expect(result.stderr).toContain('2 deliveries got no answer within 10 s: 13 more deliveries would wait up to 2 min 10 s; not sent');
  });

  it('one time-out (the largest payload alone is slow): every delivery is sent, check 9 names it, nothing is said stopped', async () => {
    const right = correctReceiver(SECRET);
    const result = await check((request) => (request.bytes.length >= 65_536 ? new TransportError('no answer within 10 s', 'ETIMEDOUT', true) : right(request)));
    expect(result.sent).toHaveLength(15);
    expect(result.failed).toEqual([9]);
    expect(result.document.checks[8].summary).toMatch(/^1 of 15 got no answer within 10 s; slowest 4 ms/);
    expect(result.document.not_sent).toBe(0);
    expect(result.stderr).not.toContain('not sent');
  });

  it('the first send of check 7 is the second time-out: check 7 says so, and the repeat is not sent', async () => {
    const right = correctReceiver(SECRET);
    let valid = 0;
    const result = await check((request) => {
      const signature = request.headers['x-service-signature'];
      const isValid = request.headers['x-service-event'] === 'invoice.paid' && typeof signature === 'string' && verify(SECRET, request.bytes, signature);
      // The valid invoice.paid deliveries come from check 1, check 2, then check 7: the first and the third get no answer.
      if (isValid && [1, 3].includes(++valid)) return new TransportError('no answer within 10 s', 'ETIMEDOUT', true);
      return right(request);
    });
    expect(result.document.checks[6]).toMatchObject({ summary: 'the first send got no answer within 10 s; 1 more not sent' });
    expect(result.document.checks[6].sent).toHaveLength(1);
    expect(result.failed).toEqual([1, 7, 9]);
    expect(result.document.checks[7]).toMatchObject({ result: 'not_run', sent: [] });
  });

  /**
   * check-receiver --effects against a receiver that acts on each valid delivery (a row written), the repeat too unless
   * it `dedupes` by delivery id; the command, run by a fake in place of sh, gives its row count, or what `probe` says.
   */
  async function checkWithEffects(
    dedupe: boolean,
    probe?: (rows: number, runs: number) => { output: string } | { failure: string },
    options: Partial<CheckReceiverOptions> = {},
  ) {
    const file = join(dir, 'rows.txt');
    writeFileSync(file, '');
    const rows = () => readFileSync(file, 'utf8').split('\n').length - 1;
    const calls: Array<{ command: string; limits: ProbeLimits }> = [];
    const result = await check(actingReceiver(SECRET, file, dedupe), { effects: 'sqlite3 app.db "select count(*) from payments"', ...options }, false, {
      env: {
        PATH: '/usr/bin',
        WHSVC_CLIENT_SECRET: 'client-secret',
        APP_SIGNING_KEY: SECRET,
        HTTPS_PROXY: 'http://me:pw@proxy:3128',
        NO_PROXY: 'x',
        DB_PASSWORD: 'pw',
        GITHUB_TOKEN: 'ghp_x',
        // The client secret of the profile, and a signing secret of another webhook, under names that say nothing.
        APP_CLIENT: 'the-profiles-client-secret',
        OTHER_HOOK: 'whsec_of_another_webhook',
        APP_DSN: 'postgres://app:the-profiles-client-secret@db/app',
        HOME: '/home/me',
      },
      clientSecrets: ['client-secret', 'the-profiles-client-secret'],
      pause: async () => {},
      runProbe: async (command, limits) => {
        calls.push({ command, limits });
        return probe ? probe(rows(), calls.length) : { output: `${rows()}\n` };
      },
    });
    return { ...result, seven: result.document?.checks[6], calls };
  }

  it('a receiver that acts again on the repeat fails check 7: the row count changed after each send', async () => {
    // Five event types (check 1) and check 2 made six rows before check 7.
    const result = await checkWithEffects(false);
    expect(result.code).toBe(1);
    expect(result.document.failed).toBe(1);
    expect(result.seven).toMatchObject({
      result: 'fail',
      summary: 'answered 200, then 200, and the --effects output changed after each ("6" → "7" → "8"): it acted twice',
    });
    expect(result.seven.cause).toContain('a repeat then pays, ships or writes twice');
    expect(result.seven.fix).toContain('X-Service-Delivery-Id');
    expect(result.document.effects).toEqual({ result: 'acted_twice', before: '6\n', after_first: '7\n', after_repeat: '8\n', error: null });
    // Seen, not inferred: labelled so.
    const human = await checkWithEffects(false, undefined, { json: false });
    expect(human.stdout).toMatch(/^ {9}cause \(seen\): it does the work again for a delivery it has processed/m);
  });

  it('one that drops a repeat by its delivery id passes: changed after the first send, not after the repeat', async () => {
    const result = await checkWithEffects(true);
    expect(result.code).toBe(0);
    expect(result.seven).toMatchObject({
      result: 'pass',
      summary: 'answered 200, then 200; the --effects output changed after the first send ("6" → "7"), not after the repeat',
    });
    expect(result.document.effects).toMatchObject({ result: 'acted_once', after_repeat: '7\n' });
    expect(result.stderr).toContain('--effects run by sh -c before check 7 and after each of its two sends');
  });

  it("it is run with the user's environment less whsvc's own credentials (WHSVC_ ones by name, a secret whsvc holds by value), and the command as given", async () => {
    const { calls } = await checkWithEffects(true);
    for (const { command, limits } of calls) {
      expect(command).toBe('sqlite3 app.db "select count(*) from payments"');
      // The app's own credentials stay: the probe is the user's command, as from the user's shell.
      expect(limits.env).toEqual({ PATH: '/usr/bin', NO_PROXY: 'x', DB_PASSWORD: 'pw', GITHUB_TOKEN: 'ghp_x', HOME: '/home/me' });
      expect(limits).toMatchObject({ timeoutMs: 10_000, maxBytes: 4096 });
    }
    // A secret too short to tell from other text leaves the variables that hold it.
    expect(probeEnvironment({ PATH: '/usr/bin', SHELL: '/bin/sh' }, ['sh'])).toEqual({ PATH: '/usr/bin', SHELL: '/bin/sh' });
  });

  it('a command whose output never changes cannot judge: check 7 fails saying so, not blaming the receiver for a second effect', async () => {
    const result = await checkWithEffects(true, () => ({ output: '42\n' }));
    expect(result.code).toBe(1);
    expect(result.seven.summary).toBe(
      'answered 200, then 200; the --effects output did not change after the first send ("42"), so a second effect cannot be judged',
    );
    expect(result.seven.cause).toContain('does not see what the app does with a delivery');
    expect(result.document.effects.result).toBe('not_seen');
    // Not judged, not failed: inconclusive, and still not exit 0.
    expect(result.seven.result).toBe('inconclusive');
    expect(result.document).toMatchObject({ passed: 8, failed: 0, not_run: 0, inconclusive: 1 });
  });

  it('a command that fails before anything is sent is a bad flag (exit 2): nothing sent; one that fails later fails check 7 with its reason', async () => {
    await expect(checkWithEffects(true, () => ({ failure: 'its command was not found (exit 127): sh: 1: sqlite3: not found' }))).rejects.toMatchObject({
      exitCode: 2,
      message: '--effects: its command was not found (exit 127): sh: 1: sqlite3: not found',
    });
    const later = await checkWithEffects(true, (rows, runs) => (runs < 3 ? { output: `${rows}` } : { failure: 'it exited 1: database is locked' }));
    expect(later.seven.summary).toBe(
      'answered 200, then 200; the --effects command failed, so a second effect cannot be judged: it exited 1: database is locked',
    );
    expect(later.document.effects).toMatchObject({ result: 'failed', error: 'it exited 1: database is locked' });
    expect(later.seven.result).toBe('inconclusive');
  });

  it("--effects with the battery stopped at check 7's repeat (the second time-out): check 7 fails over HTTP, what was read is not judged", async () => {
    const file = join(dir, 'rows.txt');
    writeFileSync(file, '');
    const acting = actingReceiver(SECRET, file, false);
    const timedOut = new TransportError('no answer within 10 s', 'ETIMEDOUT', true);
    const result = await check(
      (request) => (request.headers['x-service-event'] === 'product.updated' || request.headers['x-service-attempt'] === '2' ? timedOut : acting(request)),
      { effects: 'wc -l < rows.txt' },
      false,
      { pause: async () => {}, runProbe: async () => ({ output: `${readFileSync(file, 'utf8').split('\n').length - 1}` }) },
    );
    expect(result.document.checks[6].summary).toBe('the repeat got no answer within 10 s');
    expect(result.document.effects).toMatchObject({ result: 'not_run', after_repeat: null });
  });

  it.each<Breakage>(['headers over 16 KiB', 'a body shorter than its Content-Length', 'not HTTP', 'status line 000'])(
    'a receiver on 127.0.0.1 whose answer breaks HTTP (%s): each check fails naming it, and the battery goes on to the end',
    async (breakage) => {
      const receiver = await startHostileReceiver(breakage);
      const agent = new Agent();
      const stdout = new Collector();
      try {
        const code = await run(
          {
            url: `${receiver.url}/hooks`,
            secretFiles: [join(dir, 'whsec.txt')],
            events: ['invoice.paid'],
            platformName: 'Service',
            limitMs: 30_000,
            limitGiven: false,
            json: false,
            color: false,
          },
          { stdin: fakeStdin(), stdout, stderr: new Collector(), env: {}, jsonOut: new PrintedJson(stdout), transport: undiciTransport(agent) },
        );
        expect(code).toBe(1);
        // Every delivery of every check was sent: a broken answer reached the receiver, unlike a refused connection.
        expect(receiver.requests).toBe(11);
        const lines = stdout.text.trimEnd().split('\n');
        const verdicts = lines.filter((line) => /^(pass|fail) {2}\d/.test(line));
        expect(verdicts).toHaveLength(9);
        for (const verdict of verdicts) expect(verdict).toMatch(/^fail {2}\d .*broken answer: /);
        expect(lines.filter((line) => line.includes('likely cause: what it sent back is no HTTP answer the service can read'))).toHaveLength(9);
        expect(lines.at(-1)).toBe('0 of 9 checks passed; failed: 1–9');
      } finally {
        await agent.close();
        await receiver.close();
      }
    },
  );

  it('no word of a cause or a fix is wider than 49 columns: at 60, under its label (11 in), a terminal would cut it', async () => {
    const right = correctReceiver(SECRET);
    const refusing = (status: number, body: string) => (request: Received) => {
      const answer = right(request);
      return typeof answer === 'object' && answer.status === 200 ? { status, body } : answer;
    };
    const receivers: Array<(request: Received) => Answer | TransportError> = [
      acceptsEverything(),
      verifiesReserializedJson(SECRET),
      rejectsRepeatedDeliveryId(SECRET),
      failsOnMismatch(SECRET),
      ...Object.values(mistaken).map((receiver) => receiver(SECRET)),
      correctReceiver('whsec_another'),
      refusing(422, 'missing field: customer'),
      (request) => (request.headers['x-service-event'] === 'product.updated' ? 400 : right(request)),
      (request) => (/^sha256=[0-9a-f]{32}$/.test(String(request.headers['x-service-signature'])) ? 500 : right(request)),
      (request) => (request.bytes.length >= 65_536 ? 413 : right(request)),
      () => new TransportError('no answer within 10 s', 'ETIMEDOUT', true),
      () => new TransportError('connection refused', 'ECONNREFUSED', false),
      () => new TransportError('broken answer: not HTTP', BROKEN_ANSWER_CODE, true),
      () => 500,
      () => 404,
      () => ({ status: 302, headers: { location: '/login' } }),
      () => ({ status: 307, headers: { location: '/hooks/' } }),
      () => ({ status: 401, body: 'Unauthorized', headers: { 'www-authenticate': 'Basic realm="staging"' } }),
    ];
    const texts: Array<string | null> = [];
    const said = (document: { checks: Array<{ cause: string | null; fix: string | null }> }) => {
      for (const c of document.checks) texts.push(c.cause, c.fix);
    };
    for (const receiver of receivers) said((await check(receiver)).document);
    writeFileSync(join(dir, 'new.txt'), 'whsec_the_new_one');
    said((await check(right, { secretFiles: [join(dir, 'whsec.txt'), join(dir, 'new.txt')] })).document);
    said((await checkWithEffects(false)).document);
    said((await checkWithEffects(true, () => ({ output: '42' }))).document);
    said((await checkWithEffects(true, (rows, runs) => (runs < 3 ? { output: `${rows}` } : { failure: 'it exited 1' }))).document);
    const of = { secret: SECRET, keyName: 'whsec.txt', event: 'invoice.paid', body: '{"a":1}', header: 'X-Service-Signature' };
    const dashed = { ...of, secret: 'whsec_q0tzH3rUSjB7-fo_2nlV4cW8mJ1pa6Ye' };
    for (const suspect of [...suspectsOfRefusal(of), ...suspectsOfRefusal(dashed), ...suspectsOfReserialization(of)]) {
      texts.push(suspect.cause, suspect.short, suspect.fix);
    }
    const words = texts.flatMap((text) => (text ?? '').replaceAll(dir, 'DIR').split(' '));
    expect(words.length).toBeGreaterThan(1000);
    expect([...new Set(words.filter((word) => displayWidth(word) > 49))]).toEqual([]);
  });

  it('human lines: pass or fail, the check, what came back; under a failure its likely cause and the fix; a summary', async () => {
    const result = await check(rejectsRepeatedDeliveryId(SECRET), { json: false });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('pass  1  a valid delivery of each event type is taken: all 5 answered 200');
    expect(lines).toContain('fail  7  the same delivery sent twice is answered 2xx twice: answered 200, then 409 "duplicate delivery"');
    expect(lines[lines.indexOf('fail  7  the same delivery sent twice is answered 2xx twice: answered 200, then 409 "duplicate delivery"') + 1]).toMatch(
      /^ {9}likely cause: it refuses a delivery id it has seen/,
    );
    expect(lines.at(-1)).toBe('8 of 9 checks passed; failed: 7');
  });

  it('says what it sends before each check: a line each in a pipe, a progress line on a terminal that the result replaces', async () => {
    const piped = await check(correctReceiver(SECRET));
    expect(piped.stderr).toMatch(/^ {2}sending 1\/9: 5 deliveries: product.updated/m);
    const terminal = await check(correctReceiver(SECRET), {}, true);
    expect(terminal.stderr).toContain('\r\u001b[2Ksending 9/9: ');
    expect(terminal.stderr.endsWith('\r\u001b[2K')).toBe(true);
  });
});

describe('whsvc check-receiver against a receiver that answers without end, over real connections', () => {
  it('reads each answer up to its head: each status stands, each cut is said (response_body_truncated; … in a line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-check-endless-'));
    writeFileSync(join(dir, 'whsec.txt'), SECRET);
    const receiver = await startEndlessServer({ status: 401, total: 64 * 1024 * 1024, contentType: 'text/plain' });
    const agent = new Agent();
    try {
      const stdout = new Collector();
      const options = { url: receiver.url, secretFiles: [join(dir, 'whsec.txt')], platformName: 'Service', limitMs: 10_000, limitGiven: false, color: false };
      const deps = {
        stdin: fakeStdin(),
        stdout,
        stderr: new Collector(),
        env: {},
        jsonOut: new PrintedJson(stdout),
        transport: undiciTransport(agent),
        now: () => NOW.getTime(),
      };
      expect(await run({ ...options, json: true }, deps)).toBe(1);
      const sent = JSON.parse(stdout.text).checks.flatMap((c: { sent: unknown[] }) => c.sent);
      expect(sent.length).toBeGreaterThan(9);
      for (const one of sent) expect(one).toMatchObject({ status: 401, response_body: 'a'.repeat(1024), response_body_truncated: true });
      expect(receiver.written()).toBeLessThan(sent.length * 64 * 1024 * 1024);
      await receiver.untilCutOff(sent.length);
      const human = new Collector();
      expect(await run({ ...options, json: false }, { ...deps, stdout: human, jsonOut: new PrintedJson(human) })).toBe(1);
      expect(human.text).toMatch(/^fail {2}2 .*: answered 401 "a{59}…"$/m);
    } finally {
      await agent.destroy();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
