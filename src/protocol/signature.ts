import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_PREFIX = 'sha256=';

/** What every signing secret the service makes starts with (`whsec_…`); the libraries that decode one take what follows. */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** The hex HMAC-SHA256 of the raw body, keyed with the secret (or with other key bytes, as a mistaken receiver keys it). */
export function digestHex(secret: string | Uint8Array, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, the value of the signature header. */
export function sign(secret: string, rawBody: string | Uint8Array): string {
  return SIGNATURE_PREFIX + digestHex(secret, rawBody);
}

/**
 * The one result of checking a delivery's signature, in every command's
 * `--json` (`signature_check`) and record file:
 * - `verified`: it matches the body under the secret;
 * - `mismatch`: it is well formed and does not match;
 * - `missing`: there is no signature (no header, or none stored);
 * - `malformed`: it is not `sha256=` and 64 hex digits;
 * - `not_checked`: there is no secret to check it with.
 */
export type SignatureCheck = 'verified' | 'mismatch' | 'missing' | 'malformed' | 'not_checked';

export const SIGNATURE_CHECKS: readonly SignatureCheck[] = ['verified', 'mismatch', 'missing', 'malformed', 'not_checked'];

/**
 * What is wrong with a signature that is not `sha256=` and 64 hex digits, in
 * words that end a sentence; undefined for a well-formed one. Whitespace
 * around it does not count (a header's value has none).
 */
export function signatureProblem(signature: string): string | undefined {
  const value = signature.trim();
  if (value === '') return 'is empty';
  if (!value.startsWith(SIGNATURE_PREFIX)) {
    const scheme = /^([A-Za-z0-9-]{1,20})=/.exec(value)?.[1];
    if (scheme !== undefined) return `starts with ${scheme}=, not sha256=`;
    return /^[0-9a-fA-F]{64}$/.test(value) ? 'has no sha256= before its 64 hex digits' : 'does not start with sha256=';
  }
  const digest = value.slice(SIGNATURE_PREFIX.length);
  const notHex = /[^0-9a-fA-F]/.exec(digest);
  if (notHex) return `has ${JSON.stringify(notHex[0])} after sha256=, which is not a hex digit`;
  if (digest.length !== 64) return `has ${digest.length} hex digit${digest.length === 1 ? '' : 's'} after sha256=, not 64`;
  return undefined;
}

/**
 * Whether a well-formed signature matches the raw body under the secret, in
 * constant time; a malformed one (signatureProblem) never does.
 */
export function verify(secret: string, rawBody: string | Uint8Array, signature: string): boolean {
  if (signatureProblem(signature) !== undefined) return false;
  const given = Buffer.from(signature.trim().slice(SIGNATURE_PREFIX.length), 'hex');
  return timingSafeEqual(createHmac('sha256', secret).update(rawBody).digest(), given);
}

/** Checks a delivery's signature: missing and malformed are told before the secret is needed. */
export function checkSignature(secret: string | undefined, rawBody: string | Uint8Array, signature: string | undefined): SignatureCheck {
  return checkSignatureWith(secret === undefined ? [] : [{ secret }], rawBody, signature).check;
}

/**
 * Checks a delivery's signature against several secrets (a receiver moving to
 * a new secret accepts the old and the new): `verified` by the first that it
 * matches, which is returned (each is checked, in constant time, whichever
 * matches); with none, `not_checked` (unless it is missing or malformed).
 */
export function checkSignatureWith<K extends { secret: string }>(
  keys: readonly K[],
  rawBody: string | Uint8Array,
  signature: string | undefined,
): { check: SignatureCheck; by?: K } {
  if (signature === undefined || signature.trim() === '') return { check: 'missing' };
  if (signatureProblem(signature) !== undefined) return { check: 'malformed' };
  if (keys.length === 0) return { check: 'not_checked' };
  const matching = keys.filter((key) => verify(key.secret, rawBody, signature));
  return matching.length > 0 ? { check: 'verified', by: matching[0]! } : { check: 'mismatch' };
}

/** Whether two secrets are the same, in a time that tells nothing of either (hashed first, so lengths do not show). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}
