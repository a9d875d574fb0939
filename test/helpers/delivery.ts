import { createHmac } from 'node:crypto';

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
