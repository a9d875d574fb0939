import type { AddressInfo } from 'node:net';

/** The http URL of a listening server's address (IPv6 in brackets). */
export function httpUrl(address: AddressInfo): string {
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/** Hosts plain http may go to: this machine only (a sandbox, its receivers, a local proxy of the service). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export const MAX_URL_LENGTH = 2048;

// Characters that change how a URL reads without changing where it goes:
// bidirectional controls, zero-width spaces and joiners, the word joiner and
// invisible operators, the byte order mark, the soft hyphen.
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** 169.254.0.0/16 or fe80::/10 (also inside an IPv6 address): where cloud metadata services answer. */
function isLinkLocal(hostname: string): boolean {
  if (/^169\.254\.\d{1,3}\.\d{1,3}$/.test(hostname)) return true;
  if (!hostname.startsWith('[')) return false;
  const address = hostname.slice(1, -1).toLowerCase();
  if (/^fe[89ab][0-9a-f]?:/.test(address)) return true;
  // An IPv4 address inside IPv6: mapped (::ffff:0:0/96), compatible (::/96) or NAT64 (64:ff9b::/96).
  const embedded = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(address);
  return embedded !== null && parseInt(embedded[1]!, 16) >> 8 === 169 && (parseInt(embedded[1]!, 16) & 0xff) === 254;
}

/**
 * A webhook endpoint: an absolute https URL, or http to a loopback host (the
 * sandbox's receivers run locally), in its normalised form, so that what is
 * stored, shown and sent to is one and the same string. The sandbox refuses
 * the rest with 400; the CLI refuses them before sending (exit 2, or asks again).
 */
export function webhookUrl(value: unknown): { href: string } | { problem: string } {
  const problem = (why: string) => ({ problem: why });
  if (typeof value !== 'string' || value.trim() === '') return problem('is required and must be a string');
  // URL parsing drops tabs and newlines silently; a URL that holds them would print as something else.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f-\u009f]/.test(value)) return problem('must not contain spaces or control characters');
  if (!value.isWellFormed()) return problem('must be well-formed Unicode (it holds a lone surrogate)');
  if (INVISIBLE.test(value)) return problem('must not contain invisible or bidirectional characters (zero-width spaces, direction marks)');
  if (value.length > MAX_URL_LENGTH) return problem(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return problem('must be an absolute URL such as https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return problem(`scheme ${url.protocol.replace(':', '')} is not supported; use https`);
  // The parser forgives `https:/host/x` and `https:///host/x`; a URL that only parses by forgiveness is a typo.
  if (!/^https?:\/\/[^/\\]/i.test(value)) return problem('must be written scheme://host/path, such as https://example.com/webhooks');
  if (url.username !== '' || url.password !== '') return problem('must not carry a user name or password (user:pass@); the signature authenticates deliveries');
  if (isLinkLocal(url.hostname)) return problem(`${url.hostname} is a link-local address (169.254.0.0/16, fe80::/10), refused`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return problem('must use https (http is accepted only for localhost and 127.0.0.1)');
  if (url.href.length > MAX_URL_LENGTH) return problem(`must be at most ${MAX_URL_LENGTH} characters`);
  return { href: url.href };
}

/** A URL for messages: a user name or password in it (`user:pass@`) shown as `***@`. */
export function redactUserinfo(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, '$1***@');
}
