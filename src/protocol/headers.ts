/** The platform name of the delivery headers when none is given: `X-Service-Signature`, `X-Service-Event`, … */
export const DEFAULT_PLATFORM_NAME = 'Service';

/** A platform name for the delivery headers (`X-<name>-Signature`): letters, digits and dashes, from a letter, at most 40. */
export const PLATFORM_NAME = /^[A-Za-z][A-Za-z0-9-]{0,39}$/;

/** The names of a delivery's own headers under a platform name: `X-<Platform>-Signature`, `-Event`, `-Delivery-Id`, `-Attempt`, `-Attempt-Id`. */
export function deliveryHeaderNames(platformName = DEFAULT_PLATFORM_NAME) {
  return {
    signature: `X-${platformName}-Signature`,
    event: `X-${platformName}-Event`,
    deliveryId: `X-${platformName}-Delivery-Id`,
    attempt: `X-${platformName}-Attempt`,
    attemptId: `X-${platformName}-Attempt-Id`,
  };
}

/** The header carrying the signature: `X-Service-Signature`, or `X-<Platform>-Signature`. */
export function signatureHeaderName(platformName = DEFAULT_PLATFORM_NAME): string {
  return deliveryHeaderNames(platformName).signature;
}

/** Whether a header is a delivery's signature header, whatever its platform name and case. */
export function isSignatureHeader(name: string): boolean {
  return /^x-[a-z0-9-]+-signature$/i.test(name);
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
 * known: as the sandbox sends it, and as a delivery rebuilt from the log
 * (`rebuiltDelivery`) is shown, forwarded and recorded.
 */
export function deliveryHeaders(platformName: string, userAgent: string, facts: DeliveryFacts): Record<string, string> {
  const names = deliveryHeaderNames(platformName);
  const sentAt = facts.sentAt === undefined ? Number.NaN : Date.parse(facts.sentAt);
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    ...(Number.isNaN(sentAt) ? {} : { date: new Date(sentAt).toUTCString() }),
    [names.signature]: facts.signature,
    [names.event]: facts.event,
    [names.deliveryId]: facts.deliveryId,
    [names.attempt]: String(facts.attempt),
    [names.attemptId]: facts.attemptId,
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
