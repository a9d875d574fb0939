import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_PREFIX = 'sha256=';

/** `sha256=<hex HMAC-SHA256 of the raw body>`, the value of the signature header. */
export function sign(secret: string, rawBody: string | Uint8Array): string {
  return SIGNATURE_PREFIX + createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** The header carrying the signature: `X-Service-Signature`, or `X-<Platform>-Signature`. */
export function signatureHeaderName(platformName = 'Service'): string {
  return `X-${platformName}-Signature`;
}

/**
 * Checks a signature in constant time. Accepts it with or without the
 * `sha256=` prefix; anything that is not 64 hex digits is simply invalid.
 */
export function verify(secret: string, rawBody: string | Uint8Array, signature: string): boolean {
  const given = signature.trim().startsWith(SIGNATURE_PREFIX)
    ? signature.trim().slice(SIGNATURE_PREFIX.length)
    : signature.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(given)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}
