import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_PREFIX, deliveryHeaders, readDeliveryHeaders, sign, signatureHeaderName, verify } from '../../src/signing/signature.js';

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

  it('accepts the bare hex digest, without the prefix', () => {
    expect(verify(SECRET, BODY, HEX)).toBe(true);
  });

  it('accepts upper-case hex and surrounding whitespace', () => {
    expect(verify(SECRET, BODY, `sha256=${HEX.toUpperCase()}`)).toBe(true);
    expect(verify(SECRET, BODY, `  sha256=${HEX}\n`)).toBe(true);
  });

  it('accepts a byte body equal to the signed string', () => {
    expect(verify(SECRET, Buffer.from(BODY), `sha256=${HEX}`)).toBe(true);
    expect(verify(SECRET, new TextEncoder().encode(BODY), HEX)).toBe(true);
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
