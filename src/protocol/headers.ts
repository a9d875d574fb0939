import { namesCredential } from './credential-names.js';

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

/** A delivery header's name under any platform name, in any case: `X-<Platform>-<suffix>`. */
const deliveryHeaderPattern = (suffix: string) => new RegExp(`^x-[a-z0-9-]+-${suffix}$`, 'i');

/** Whether a header is a delivery's signature header, whatever its platform name and case. */
export function isSignatureHeader(name: string): boolean {
  return deliveryHeaderPattern('signature').test(name);
}

/**
 * The headers with the signature made anew (replay --secret-file, listen -i's `r`): each X-…-Signature header
 * replaced, the default platform's added when there was none.
 */
export function withSignature<V>(headers: Readonly<Record<string, V>>, signature: string): Record<string, V | string> {
  const names = Object.keys(headers).filter(isSignatureHeader);
  const next: Record<string, V | string> = { ...headers };
  for (const name of names.length ? names : [signatureHeaderName().toLowerCase()]) next[name] = signature;
  return next;
}

/**
 * A header's name as a person reads it, in the case of the canonical names (`Content-Type`, `Date`,
 * `X-Service-Signature`): a name all in lower case (the standard ones as deliveryHeaders writes them, and every name
 * as node reads it) gets each word's first letter in capitals; one with a capital is kept (`X-ACME-Event`).
 */
export const headerShownName = (name: string): string =>
  name === name.toLowerCase() ? name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()) : name;

/** What a delivery's headers say, besides its content type and user agent. */
export interface DeliveryFacts {
  signature: string;
  event: string;
  deliveryId: string;
  /** The attempt's number, or its text as the service wrote it. */
  attempt: number | string;
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
    const pattern = deliveryHeaderPattern(suffix);
    const name = Object.keys(headers).find((key) => pattern.test(key));
    const value = name ? headers[name] : undefined;
    return Array.isArray(value) ? value[0] : value;
  };
  return { signature: named('signature'), event: named('event'), deliveryId: named('delivery-id'), attempt: named('attempt'), attemptId: named('attempt-id') };
}

/**
 * Headers that describe the hop, not the delivery (RFC 9110, 7.6.1), and
 * those the HTTP client makes itself (`host`, `content-length`) or refuses
 * (`expect`: curl sends `Expect: 100-continue` with a large body). Never sent
 * on, whatever their case.
 */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
]);

export const isHopHeader = (name: string): boolean => HOP_HEADERS.has(name.toLowerCase());

/**
 * Named like a credential, holding none: a challenge asks for a login (`Bearer realm=…, error="insufficient_scope"`),
 * and an idempotency key names a request without opening anything, so a replay must send it again.
 */
const NOT_CREDENTIAL_HEADERS = new Set(['www-authenticate', 'proxy-authenticate', 'idempotency-key']);

/**
 * Whether a header carries a credential, by its name as any name is judged (namesCredential): a request's to the
 * server and to a proxy (`Authorization`, `Proxy-Authorization`, `X-Api-Key`, `Api-Key`, `X-Auth-Token`,
 * `X-Access-Token`…) and a session's either way (`Cookie`, `Set-Cookie`), whatever their case; not a challenge nor an
 * idempotency key, nor a delivery's own header under the platform name in use (`X-Monkey-Signature` of platform
 * Monkey), and only those: `X-Auth-Token-Event` is a credential, not platform Auth-Token's, unless that is the one in
 * use (the command's --platform-name; listen, which takes none, goes by the request's own: platformNameOf). Never kept in a record nor printed by listen (a delivery has none; a request sent by mistake
 * may), and shown as `[redacted]` by --debug.
 */
export function isCredentialHeader(name: string, platformName = DEFAULT_PLATFORM_NAME): boolean {
  const lower = name.toLowerCase();
  if (!namesCredential(name) || NOT_CREDENTIAL_HEADERS.has(lower)) return false;
  return !Object.values(deliveryHeaderNames(platformName)).some((own) => own.toLowerCase() === lower);
}

/**
 * The platform name a request's delivery headers are under: the one of its `X-<Platform>-Event` and
 * `X-<Platform>-Delivery-Id`, which every delivery carries together (and its signature, when signed); undefined for
 * a request without such a pair (not a delivery). Any sender can name one so: only where the command was given no
 * --platform-name (listen) is it believed.
 */
export function platformNameOf(headers: Readonly<Record<string, unknown>>): string | undefined {
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  for (const name of Object.keys(headers)) {
    const platform = /^x-(.+)-event$/i.exec(name)?.[1];
    if (platform !== undefined && names.has(deliveryHeaderNames(platform).deliveryId.toLowerCase())) return platform;
  }
  return undefined;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A header value is bytes, a character each: Node's server reads each byte of a header as one character (latin1),
// and undici writes each character back as one byte, so what listen received goes back byte for byte. Tab, printable
// ASCII and the bytes 0x80-0xFF are what HTTP allows (and undici sends).
const UNSENDABLE_IN_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Why a header cannot be sent as it stands, or undefined when it can. */
export function unsendableHeader(name: string, value: string): string | undefined {
  if (!TOKEN.test(name)) return `the header name ${JSON.stringify(name)} is not one HTTP allows (letters, digits and !#$%&'*+.^_\`|~-)`;
  const bad = UNSENDABLE_IN_VALUE.exec(value)?.[0];
  if (bad === undefined) return undefined;
  const code = bad.codePointAt(0)!;
  const shown = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code > 0xff
    ? `the header ${JSON.stringify(name)} holds ${shown}, which is not one byte: a recorded header value is bytes, one character each (U+0000 to U+00FF), as listen records them`
    : `the header ${JSON.stringify(name)} holds the control character ${shown}, which HTTP does not allow in a header`;
}

/**
 * When an attempt was made, by the service's clock (ISO 8601): its `Date` header (the sandbox's clock, moved or not),
 * else when it arrived here. listen stamps its lines with it, and replay shows a recording's deliveries by it, so the
 * two say the same time of the same delivery.
 */
export function serviceTimeOf(headers: Readonly<Record<string, string | string[] | undefined>>, arrived: string | Date): string {
  const date = headers.date ?? headers.Date;
  const sent = typeof date === 'string' ? Date.parse(date) : Number.NaN;
  return Number.isNaN(sent) ? new Date(arrived).toISOString() : new Date(sent).toISOString();
}
