import { createHmac } from 'node:crypto';
import type { RecordLine } from '../../src/protocol/record-line.js';

/** A signature as the service makes it, computed here apart from src/protocol: `sha256=<hex HMAC-SHA256 of the body>`. */
export const signatureOf = (secret: string, body: string | Buffer): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * A delivery POSTed to `url` as the service sends one, signed with `secret`:
 * an invoice.paid body unless one is given, its delivery id, attempt 1
 * unless another, and any headers besides.
 */
export function postDelivery(
  url: string,
  secret: string,
  deliveryId: string,
  options: { body?: string | Buffer; attempt?: number; headers?: Record<string, string> } = {},
): Promise<Response> {
  const body = options.body ?? JSON.stringify({ id: 'inv_1', event: 'invoice.paid' });
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signatureOf(secret, body),
      'x-service-event': 'invoice.paid',
      'x-service-delivery-id': deliveryId,
      'x-service-attempt': String(options.attempt ?? 1),
      ...options.headers,
    },
    body,
  });
}

/** One line of a record file, as listen writes it: a verified invoice.paid delivery, changed by `fields`. */
export const recordOf = (fields: Partial<RecordLine> = {}): RecordLine => ({
  whsvc_record: 1,
  received_at: '2026-11-25T09:00:00Z',
  method: 'POST',
  path: '/h',
  headers: { 'content-type': 'application/json' },
  body: '{}',
  signature_check: 'verified',
  event: 'invoice.paid',
  delivery_id: 'dlv_1',
  attempt: 1,
  answered: 200,
  ...fields,
});
