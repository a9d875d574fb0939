import { describe, expect, it } from 'vitest';
import { madeDelivery } from '../../../src/protocol/delivery.js';
import { signatureOf } from '../../helpers/delivery.js';

// A delivery made as the service makes one (send, check-receiver): its headers, and the signature over the exact bytes.
describe('madeDelivery', () => {
  const sentAt = new Date('2026-11-25T09:00:00.000Z');
  const body = '{ "id" : "inv_1",\n "event":"invoice.paid" }';

  it("has the service's headers, a fresh delivery id, attempt 1 (its attempt id the delivery's), and the signature of the bytes as given", () => {
    const made = madeDelivery(body, { event: 'invoice.paid', platformName: 'Service', userAgent: 'whsvc/test (send)', sentAt, secret: 'whsec_a' });
    expect(made.deliveryId).toMatch(/^dlv_[0-9a-f]{24}$/);
    expect(made.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'whsvc/test (send)',
      date: 'Wed, 25 Nov 2026 09:00:00 GMT',
      'X-Service-Signature': signatureOf('whsec_a', body),
      'X-Service-Event': 'invoice.paid',
      'X-Service-Delivery-Id': made.deliveryId,
      'X-Service-Attempt': '1',
      'X-Service-Attempt-Id': made.deliveryId,
    });
    expect(made.body.toString('utf8')).toBe(body);
    expect(madeDelivery(body, { event: 'invoice.paid', platformName: 'Service', userAgent: 'whsvc/test (send)', sentAt }).deliveryId).not.toBe(made.deliveryId);
  });

  it('unsigned without a secret; a later attempt of a delivery keeps its id, with an attempt id of its own; a platform name names the headers', () => {
    const unsigned = madeDelivery(body, { event: 'invoice.paid', platformName: 'Acme', userAgent: 'whsvc/test (send)', sentAt });
    expect(unsigned.signature).toBeUndefined();
    expect(Object.keys(unsigned.headers).filter((name) => /signature/i.test(name))).toEqual([]);
    const again = madeDelivery(body, {
      event: 'invoice.paid',
      platformName: 'Acme',
      userAgent: 'whsvc/test (send)',
      sentAt,
      deliveryId: 'dlv_1',
      attempt: 2,
      signature: 'sha256=00',
    });
    expect(again.headers).toMatchObject({ 'X-Acme-Delivery-Id': 'dlv_1', 'X-Acme-Attempt': '2', 'X-Acme-Signature': 'sha256=00' });
    expect(again.headers['X-Acme-Attempt-Id']).toMatch(/^dlv_[0-9a-f]{24}$/);
    expect(again.headers['X-Acme-Attempt-Id']).not.toBe('dlv_1');
  });
});
