import { namesCredential } from '../protocol/credential-names.js';
import { isCredentialHeader, PLATFORM_NAME } from '../protocol/headers.js';
import { SIGNING_SECRET_PREFIX } from '../protocol/signature.js';

// What names or holds a credential: the variables --jq's $ENV leaves out (cli/jq.ts), and the values of the words typed
// on a command line that whsvc masks when it echoes them (a hint, commander's refusal of an option).

/** A signing secret (`whsec_…`) as it stands in a text, whole or cut at least 8 characters past its `whsec_`. */
const SIGNING_SECRET = new RegExp(`${SIGNING_SECRET_PREFIX}[A-Za-z0-9+/=_-]{8,}`, 'g');

/** The signing secrets a text holds, whatever names them (the service's answer, jq's error quoting it). */
export const signingSecretsIn = (text: string): string[] => text.match(SIGNING_SECRET) ?? [];

/** Whether a value holds a signing secret (`whsec_…`), whatever its name. */
export const holdsSigningSecret = (value: string): boolean => signingSecretsIn(value).length > 0;

/** What stands for a credential in an echo of what was typed: a placeholder, as `<webhook-id>` is in a hint. */
const MASKED = '<secret>';

/**
 * Whether a flag's value is a credential: its last word names one (--secret, --client-secret, --api-key, --token,
 * --password), and not where one is kept or how it is read (--secret-file, --client-secret-stdin, --token-ttl).
 */
const takesCredential = (flag: string): boolean => namesCredential(flag.replace(/^-+/, '').split(/[-_]/).at(-1) ?? '');

const HEADER_FLAGS = new Set(['-H', '--header']);
const FIELD_FLAGS = new Set(['-f', '-F', '--field', '--raw-field']);

/**
 * A flag's value with the credential in it masked, if any: a header's (`Authorization: …`; not a delivery header under
 * `platformName`), a field's (`password=…`), a secret flag's.
 */
function maskedValue(flag: string, value: string, platformName: string | undefined): string {
  if (HEADER_FLAGS.has(flag)) {
    const name = value.split(':')[0]!.trim();
    return value.includes(':') && isCredentialHeader(name, platformName) ? `${value.slice(0, value.indexOf(':'))}: ${MASKED}` : value;
  }
  if (FIELD_FLAGS.has(flag)) {
    const key = value.split('=')[0]!;
    return value.includes('=') && namesCredential(key) ? `${key}=${MASKED}` : value;
  }
  return takesCredential(flag) ? MASKED : value;
}

/**
 * The words of a command line with each credential in them masked (MASKED): the value of a flag that takes one, as
 * its next word or after `=` (`--secret whsec_…`, `--client-secret=…`, `--api-key …`), a credential header of -H
 * (`-H 'Authorization: Bearer …'`, `-H 'X-Api-Key: …'`), a field of -f/-F named like one (`-f password=…`).
 */
export function withCredentialsMasked(words: readonly string[]): string[] {
  const platformName = platformNameIn(words);
  const masked = [...words];
  for (let i = 0; i < masked.length; i++) {
    const word = masked[i]!;
    if (word === '--') break;
    if (!word.startsWith('-')) continue;
    const long = /^(--[^=]+)=(.*)$/s.exec(word);
    const short = /^(-[HfF])(.+)$/s.exec(word);
    if (long) masked[i] = `${long[1]}=${maskedValue(long[1]!, long[2]!, platformName)}`;
    else if (short) masked[i] = `${short[1]}${maskedValue(short[1]!, short[2]!, platformName)}`;
    else if (i + 1 < masked.length && !masked[i + 1]!.startsWith('-')) {
      masked[i + 1] = maskedValue(word, masked[i + 1]!, platformName);
      i++;
    }
  }
  return masked;
}

/** The platform name a command line gives (`--platform-name NAME`), whose delivery headers are no credential; else undefined. */
function platformNameIn(words: readonly string[]): string | undefined {
  const end = words.indexOf('--');
  const options = end < 0 ? words : words.slice(0, end);
  const at = options.findLastIndex((word) => word === '--platform-name' || word.startsWith('--platform-name='));
  const name = at < 0 ? undefined : options[at]!.includes('=') ? options[at]!.slice(options[at]!.indexOf('=') + 1) : options[at + 1];
  return name !== undefined && PLATFORM_NAME.test(name) ? name : undefined;
}
