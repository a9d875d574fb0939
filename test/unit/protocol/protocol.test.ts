import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rebuiltDelivery, signedDelivery } from '../../../src/protocol/delivery.js';
import {
  DEFAULT_PLATFORM_NAME,
  deliveryHeaderNames,
  deliveryHeaders,
  isSignatureHeader,
  readDeliveryHeaders,
  signatureHeaderName,
} from '../../../src/protocol/headers.js';
import { recordedSignatureCheck } from '../../../src/protocol/record-line.js';
import { SIGNATURE_PREFIX, checkSignature, sign, signatureProblem, verify } from '../../../src/protocol/signature.js';

const SECRET = 'whsec_3b1f0c9d8e7a6b5c';
const BODY = JSON.stringify({ id: 'inv_0001', event: 'invoice.paid', amount: { amount: 12900, currency: 'EUR' } });
const HEX = createHmac('sha256', SECRET).update(BODY).digest('hex');

describe('sign', () => {
  it('is sha256= and the hex HMAC-SHA256 of the raw body', () => {
    expect(SIGNATURE_PREFIX).toBe('sha256=');
    expect(sign(SECRET, BODY)).toBe(`sha256=${HEX}`);
    expect(sign(SECRET, BODY)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('matches the RFC 4231 test vector (test case 2)', () => {
    expect(sign('Jefe', 'what do ya want for nothing?')).toBe('sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('signs bytes the same as the equal string', () => {
    expect(sign(SECRET, new TextEncoder().encode(BODY))).toBe(sign(SECRET, BODY));
    expect(sign(SECRET, Buffer.from(BODY, 'utf8'))).toBe(`sha256=${HEX}`);
  });

  it('depends on the secret and on every byte of the body', () => {
    expect(sign('other', BODY)).not.toBe(sign(SECRET, BODY));
    expect(sign(SECRET, `${BODY} `)).not.toBe(sign(SECRET, BODY));
    expect(sign(SECRET, '')).toBe(`sha256=${createHmac('sha256', SECRET).update('').digest('hex')}`);
  });
});

describe('verify', () => {
  it('accepts the signature with the sha256= prefix', () => {
    expect(verify(SECRET, BODY, `sha256=${HEX}`)).toBe(true);
  });

  it('refuses the bare hex digest: a signature is sha256= and its digest', () => {
    expect(verify(SECRET, BODY, HEX)).toBe(false);
  });

  it('accepts upper-case hex and surrounding whitespace', () => {
    expect(verify(SECRET, BODY, `sha256=${HEX.toUpperCase()}`)).toBe(true);
    expect(verify(SECRET, BODY, `  sha256=${HEX}\n`)).toBe(true);
  });

  it('accepts a byte body equal to the signed string', () => {
    expect(verify(SECRET, Buffer.from(BODY), `sha256=${HEX}`)).toBe(true);
    expect(verify(SECRET, new TextEncoder().encode(BODY), `sha256=${HEX}`)).toBe(true);
  });

  it('refuses a signature made with another secret', () => {
    const other = createHmac('sha256', 'whsec_wrong').update(BODY).digest('hex');
    expect(verify(SECRET, BODY, `sha256=${other}`)).toBe(false);
    expect(verify('whsec_wrong', BODY, `sha256=${HEX}`)).toBe(false);
  });

  it('refuses a tampered body', () => {
    const tampered = BODY.replace('12900', '12901');
    expect(tampered).not.toBe(BODY);
    expect(verify(SECRET, tampered, `sha256=${HEX}`)).toBe(false);
    expect(verify(SECRET, `${BODY}\n`, `sha256=${HEX}`)).toBe(false);
  });

  it('refuses a digest with one digit changed', () => {
    const last = HEX.at(-1) === '0' ? '1' : '0';
    expect(verify(SECRET, BODY, `sha256=${HEX.slice(0, -1)}${last}`)).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['prefix only', 'sha256='],
    ['too short (63 digits)', `sha256=${HEX.slice(0, 63)}`],
    ['too long (65 digits)', `sha256=${HEX}0`],
    ['half length', HEX.slice(0, 32)],
    ['double length', `${HEX}${HEX}`],
    ['non-hex digits', `sha256=${'z'.repeat(64)}`],
    ['one non-hex digit', `sha256=${HEX.slice(0, 63)}g`],
    ['base64 of the digest', `sha256=${createHmac('sha256', SECRET).update(BODY).digest('base64')}`],
    ['another algorithm prefix', `sha1=${HEX}`],
    ['upper-case prefix', `SHA256=${HEX}`],
    ['doubled prefix', `sha256=sha256=${HEX}`],
    ['inner whitespace', `sha256= ${HEX.slice(0, 32)} ${HEX.slice(32)}`],
    ['non-ASCII', `sha256=${'é'.repeat(64)}`],
  ])('refuses a malformed signature (%s) without throwing', (_label, signature) => {
    let result: boolean | undefined;
    expect(() => {
      result = verify(SECRET, BODY, signature);
    }).not.toThrow();
    expect(result).toBe(false);
  });
});

describe('what is wrong with a malformed signature', () => {
  it.each([
    ['', 'is empty'],
    ['   ', 'is empty'],
    [`sha256=${HEX.slice(0, 63)}`, 'has 63 hex digits after sha256=, not 64'],
    [`sha256=${HEX}0`, 'has 65 hex digits after sha256=, not 64'],
    ['sha256=', 'has 0 hex digits after sha256=, not 64'],
    [`sha1=${HEX.slice(0, 40)}`, 'starts with sha1=, not sha256='],
    [`SHA256=${HEX}`, 'starts with SHA256=, not sha256='],
    [HEX, 'has no sha256= before its 64 hex digits'],
    ['v1,abc', 'does not start with sha256='],
    [`sha256=${HEX.slice(0, 63)}g`, 'has "g" after sha256=, which is not a hex digit'],
    [`sha256=sha256=${HEX}`, 'has "s" after sha256=, which is not a hex digit'],
  ])('%j %s', (signature, problem) => {
    expect(signatureProblem(signature)).toBe(problem);
  });

  it('none for sha256= and 64 hex digits, in either case, whitespace around it aside', () => {
    expect(signatureProblem(`sha256=${HEX}`)).toBeUndefined();
    expect(signatureProblem(`sha256=${HEX.toUpperCase()}`)).toBeUndefined();
    expect(signatureProblem(` sha256=${HEX}\n`)).toBeUndefined();
  });
});

describe('the signature check: one result', () => {
  it('verified, mismatch, missing, malformed, not_checked', () => {
    expect(checkSignature(SECRET, BODY, `sha256=${HEX}`)).toBe('verified');
    expect(checkSignature('whsec_other', BODY, `sha256=${HEX}`)).toBe('mismatch');
    expect(checkSignature(SECRET, `${BODY} `, `sha256=${HEX}`)).toBe('mismatch');
    expect(checkSignature(SECRET, BODY, undefined)).toBe('missing');
    expect(checkSignature(SECRET, BODY, '')).toBe('missing');
    expect(checkSignature(SECRET, BODY, `sha256=${HEX.slice(1)}`)).toBe('malformed');
    expect(checkSignature(SECRET, BODY, `sha1=${HEX}`)).toBe('malformed');
    expect(checkSignature(undefined, BODY, `sha256=${HEX}`)).toBe('not_checked');
  });

  it('tells a missing or malformed signature without a secret', () => {
    expect(checkSignature(undefined, BODY, undefined)).toBe('missing');
    expect(checkSignature(undefined, BODY, HEX)).toBe('malformed');
  });

  it("reads a record's check, and the words of record files written before it", () => {
    expect(recordedSignatureCheck({ signature_check: 'malformed' })).toBe('malformed');
    expect(recordedSignatureCheck({ signature: 'ok' })).toBe('verified');
    expect(recordedSignatureCheck({ signature: 'bad' })).toBe('mismatch');
    expect(recordedSignatureCheck({ signature: 'unsigned' })).toBe('missing');
    expect(recordedSignatureCheck({ signature: 'unchecked' })).toBe('not_checked');
    expect(recordedSignatureCheck({})).toBe('not_checked');
    expect(recordedSignatureCheck({ signature: 'toString' })).toBe('not_checked');
    expect(recordedSignatureCheck({ signature_check: 'valid', signature: 'bad' })).toBe('mismatch');
  });
});

describe('the header names', () => {
  it('come from the platform name, Service by default', () => {
    expect(DEFAULT_PLATFORM_NAME).toBe('Service');
    expect(deliveryHeaderNames()).toEqual({
      signature: 'X-Service-Signature',
      event: 'X-Service-Event',
      deliveryId: 'X-Service-Delivery-Id',
      attempt: 'X-Service-Attempt',
      attemptId: 'X-Service-Attempt-Id',
    });
    expect(Object.values(deliveryHeaderNames('Acme')).every((name) => name.startsWith('X-Acme-'))).toBe(true);
  });

  it('a signature header is told whatever its platform name and case', () => {
    expect(['X-Service-Signature', 'x-acme-signature', 'X-Big-Co-Signature'].every(isSignatureHeader)).toBe(true);
    expect(['signature', 'X-Signature-Event', 'X-Acme-Signatures'].some(isSignatureHeader)).toBe(false);
  });
});

describe('a delivery rebuilt from an attempt of the log', () => {
  const attempt = {
    id: 'dlv_2',
    event: 'invoice.paid',
    attempts: 2,
    created_at: '2030-01-02T03:04:05.000Z',
    payload: JSON.parse(BODY) as unknown,
    signature: `sha256=${HEX}`,
  };

  it('is the compact JSON of the payload, which the stored signature covers, under the platform name it is given', () => {
    const rebuilt = rebuiltDelivery(attempt, 'dlv_1', { platformName: 'Acme', userAgent: 'test/1' });
    if ('cannot' in rebuilt) throw new Error(rebuilt.cannot);
    expect(rebuilt.body).toBe(BODY);
    expect(checkSignature(SECRET, rebuilt.body, rebuilt.signature)).toBe('verified');
    expect(rebuilt.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'test/1',
      date: 'Wed, 02 Jan 2030 03:04:05 GMT',
      'X-Acme-Signature': `sha256=${HEX}`,
      'X-Acme-Event': 'invoice.paid',
      'X-Acme-Delivery-Id': 'dlv_1',
      'X-Acme-Attempt': '2',
      'X-Acme-Attempt-Id': 'dlv_2',
    });
  });

  it('is the same bytes the sandbox signed and sent for that payload (one builder of the signed body)', () => {
    const payload = { id: 'inv_0001', note: 'caf\u00e9 \u{1F600}', lines: [{ qty: 1 }], empty: {} };
    const sent = signedDelivery(SECRET, payload);
    expect(sent.body).toBe('{"id":"inv_0001","note":"caf\u00e9 \u{1F600}","lines":[{"qty":1}],"empty":{}}');
    expect(sent.signature).toBe(`sha256=${createHmac('sha256', SECRET).update(sent.body).digest('hex')}`);
    const rebuilt = rebuiltDelivery({ ...attempt, payload: JSON.parse(sent.body) as unknown, signature: sent.signature }, 'dlv_1', {
      platformName: 'Service',
      userAgent: 'test/1',
    });
    if ('cannot' in rebuilt) throw new Error(rebuilt.cannot);
    expect(rebuilt.body).toBe(sent.body);
    expect(checkSignature(SECRET, rebuilt.body, rebuilt.signature)).toBe('verified');
  });

  it('cannot be rebuilt without its payload or its signature', () => {
    const sender = { platformName: 'Service', userAgent: 'test/1' };
    expect(rebuiltDelivery({ ...attempt, payload: undefined }, 'dlv_1', sender)).toEqual({ cannot: 'the service returned no payload for it' });
    expect(rebuiltDelivery({ ...attempt, signature: undefined }, 'dlv_1', sender)).toEqual({ cannot: 'the service returned no signature for it' });
  });
});

describe('signatureHeaderName', () => {
  it('is X-Service-Signature by default', () => {
    expect(signatureHeaderName()).toBe('X-Service-Signature');
    expect(signatureHeaderName('Service')).toBe('X-Service-Signature');
  });

  it('uses the platform name', () => {
    expect(signatureHeaderName('Acme')).toBe('X-Acme-Signature');
  });
});

describe('the delivery headers', () => {
  it("carry the attempt's time as Date when it is known, and no Date when it is not", () => {
    const facts = { signature: sign('whsec_x', '{}'), event: 'invoice.paid', deliveryId: 'dlv_1', attempt: 1, attemptId: 'dlv_1' };
    expect(deliveryHeaders('Service', 'test/1', { ...facts, sentAt: '2030-01-02T03:04:05.678Z' }).date).toBe('Wed, 02 Jan 2030 03:04:05 GMT');
    expect(deliveryHeaders('Service', 'test/1', facts)).not.toHaveProperty('date');
    expect(deliveryHeaders('Service', 'test/1', { ...facts, sentAt: 'not a time' })).not.toHaveProperty('date');
  });

  it('are read back whatever the platform name, as a receiver sees them (lower case)', () => {
    const facts = { signature: sign('whsec_x', '{}'), event: 'invoice.paid', deliveryId: 'dlv_1', attempt: 2, attemptId: 'dlv_2' };
    const sent = deliveryHeaders('Acme', 'test/1', facts);
    expect(sent).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'test/1',
      'X-Acme-Signature': facts.signature,
      'X-Acme-Attempt': '2',
      'X-Acme-Attempt-Id': 'dlv_2',
    });
    const received = Object.fromEntries(Object.entries(sent).map(([name, value]) => [name.toLowerCase(), value]));
    expect(readDeliveryHeaders(received)).toEqual({ ...facts, attempt: '2' });
    expect(readDeliveryHeaders({ 'content-type': 'application/json' })).toEqual({
      signature: undefined,
      event: undefined,
      deliveryId: undefined,
      attempt: undefined,
      attemptId: undefined,
    });
  });
});
