import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_PREFIX = 'sha256=';

/** The hex HMAC-SHA256 of the raw body, keyed with the secret. */
export function digestHex(secret: string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, the value of the signature header. */
export function sign(secret: string, rawBody: string | Uint8Array): string {
  return SIGNATURE_PREFIX + digestHex(secret, rawBody);
}

/** The digest part of a signature, with or without the `sha256=` prefix. */
export function signatureDigest(signature: string): string {
  const trimmed = signature.trim();
  return trimmed.startsWith(SIGNATURE_PREFIX) ? trimmed.slice(SIGNATURE_PREFIX.length) : trimmed;
}

/** The header carrying the signature: `X-Service-Signature`, or `X-<Platform>-Signature`. */
export function signatureHeaderName(platformName = 'Service'): string {
  return `X-${platformName}-Signature`;
}

/** What a delivery's headers say, besides its content type and user agent. */
export interface DeliveryFacts {
  signature: string;
  event: string;
  deliveryId: string;
  attempt: number;
  attemptId: string;
  /** When the attempt was made, by the sender's clock (ISO 8601): the `Date` header, which listen stamps its line with. */
  sentAt?: string | undefined;
}

/**
 * The headers of a delivery, `X-<Platform>-Signature`, `-Event`,
 * `-Delivery-Id`, `-Attempt` and `-Attempt-Id`, and `Date` when the time is
 * known: as the sandbox sends it, and as `deliveries tail --forward-to`
 * passes a logged one on.
 */
export function deliveryHeaders(platformName: string, userAgent: string, facts: DeliveryFacts): Record<string, string> {
  const sentAt = facts.sentAt === undefined ? Number.NaN : Date.parse(facts.sentAt);
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    ...(Number.isNaN(sentAt) ? {} : { date: new Date(sentAt).toUTCString() }),
    [signatureHeaderName(platformName)]: facts.signature,
    [`X-${platformName}-Event`]: facts.event,
    [`X-${platformName}-Delivery-Id`]: facts.deliveryId,
    [`X-${platformName}-Attempt`]: String(facts.attempt),
    [`X-${platformName}-Attempt-Id`]: facts.attemptId,
  };
}

/** The delivery headers of a request, whatever its platform name (as a receiver reads them); absent ones undefined. */
export function readDeliveryHeaders(
  headers: Record<string, string | string[] | undefined>,
): Partial<Record<'signature' | 'event' | 'deliveryId' | 'attempt' | 'attemptId', string>> {
  const named = (suffix: string) => {
    const name = Object.keys(headers).find((key) => new RegExp(`^x-.+-${suffix}$`, 'i').test(key));
    const value = name ? headers[name] : undefined;
    return Array.isArray(value) ? value[0] : value;
  };
  return { signature: named('signature'), event: named('event'), deliveryId: named('delivery-id'), attempt: named('attempt'), attemptId: named('attempt-id') };
}

/**
 * Checks a signature in constant time. Accepts it with or without the
 * `sha256=` prefix; anything that is not 64 hex digits is simply invalid.
 */
export function verify(secret: string, rawBody: string | Uint8Array, signature: string): boolean {
  const given = signatureDigest(signature);
  if (!/^[0-9a-fA-F]{64}$/.test(given)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/** Whether two secrets are the same, in a time that tells nothing of either (hashed first, so lengths do not show). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}
