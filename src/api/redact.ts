import { isCredentialHeader } from '../protocol/headers.js';
import { SIGNING_SECRET_PREFIX } from '../protocol/signature.js';

const SECRET_KEYS = ['client_secret', 'access_token', 'signing_secret', 'refresh_token'];

/** A body or header block with every secret value replaced, for --debug. */
export function redactText(text: string): string {
  let out = text;
  for (const key of SECRET_KEYS) {
    out = out
      .replace(new RegExp(`("${key}"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g'), '$1"[redacted]"')
      .replace(new RegExp(`(\\b${key}=)[^&\\s]*`, 'g'), '$1[redacted]');
  }
  return out;
}

/** A header block for --debug, each credential header's value `[redacted]` (`platformName`'s delivery headers are none). */
export function redactHeaders(headers: Record<string, string | string[] | undefined>, platformName?: string): string {
  return Object.entries(headers)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => {
      const shown = isCredentialHeader(name, platformName) ? '[redacted]' : String(value);
      return `${name}: ${shown}`;
    })
    .join('\n');
}

/** A text as it stands inside a JSON string. */
const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * The secrets in force (the client secret, each access token sent, a proxy's credentials, the signing secrets whsvc
 * holds), and others' text with each masked: a token endpoint, gateway or API error may quote the request it was sent,
 * and jq quotes its input. A secret is masked in every form an echo carries it in: as it is, URL-encoded, JSON-escaped
 * (`/` too, as some encoders escape it), and escaped twice (the JSON body sent, quoted inside a JSON string); and cut,
 * as jq and many servers shorten a long value (`"whsec_abcdefghijklmnopqr..."`): a beginning of a form, at least
 * MIN_CUT characters long, just before `...` or `…`. One shorter than MIN_MASKED is left: masking it would hide the
 * letters of every word that holds it, and a secret that short guards nothing.
 */
export class SecretMask {
  static readonly MIN_MASKED = 4;
  /** The shortest beginning of a secret masked when cut: a shorter one tells little (`whsec_…` is every signing secret's). */
  static readonly MIN_CUT = 8;
  /**
   * The shortest signing secret's key (its part after `whsec_`) that is a form of it: a shorter one is a word other text
   * holds (`whsec_2026`'s `2026` is a year; `whsec_1`'s `1`, a digit of every id), and no real key is near it.
   */
  static readonly MIN_KEY = 8;

  /** Longest first, so that no form is cut by a shorter one inside it. */
  private forms: string[] = [];

  add(secret: string | undefined): void {
    if (secret === undefined) return;
    const fresh = formsOf(secret).filter((form) => !this.forms.includes(form));
    if (fresh.length > 0) this.forms = [...new Set([...this.forms, ...fresh])].sort((a, b) => b.length - a.length);
  }

  /**
   * Whether `text` holds `secret` in a form it can be had back whole from, one that mask() masks: as it is, encoded
   * (base64, URL, JSON), or a signing secret's part after `whsec_` (the prefix is fixed, so the whole can be had back). A cut form is not.
   */
  static holdsWhole(text: string, secret: string): boolean {
    return formsOf(secret).some((form) => text.includes(form));
  }

  /** Whether `text` holds a secret in force, in any form mask() masks. */
  holds(text: string): boolean {
    return this.mask(text) !== text;
  }

  mask = (text: string): string => this.maskCut(this.forms.reduce((out, form) => out.replaceAll(form, '[redacted]'), text));

  /** Each beginning of a secret's form cut short by an ellipsis (`...` or `…`), masked with its ellipsis. */
  private maskCut(text: string): string {
    if (this.forms.length === 0) return text;
    let out = '';
    let from = 0;
    for (const { 0: ellipsis, index: at } of text.matchAll(/\.\.\.|…/g)) {
      const before = text.slice(Math.max(from, at - this.forms[0]!.length), at);
      const cut = Math.max(...this.forms.map((form) => cutLength(before, form)));
      if (cut === 0) continue;
      out += `${text.slice(from, at - cut)}[redacted]`;
      from = at + ellipsis.length;
    }
    return out + text.slice(from);
  }
}

/**
 * The forms an echo carries `secret` in, each of which gives it back whole (SecretMask), none shorter than MIN_MASKED
 * (a signing secret's key none shorter than MIN_KEY); none of a secret shorter than MIN_MASKED.
 */
function formsOf(secret: string): string[] {
  if (secret.length < SecretMask.MIN_MASKED) return [];
  const key = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : '';
  const once = jsonEscaped(secret);
  const encoded = encodeURIComponent(secret);
  const bytes = Buffer.from(secret, 'utf8');
  return [
    secret,
    encoded,
    // Percent-encoding in lower case (%2f), as some servers write it, and form encoding's + for a space.
    encoded.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase()),
    encoded.replaceAll('%20', '+'),
    once,
    once.replaceAll('/', '\\/'),
    jsonEscaped(once),
    // Base64, as a Basic header or a debugging echo carries it (the padding left out: it depends on what precedes).
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
    // A signing secret's key, as the libraries that decode it take it (`whsec_` left off).
    ...(key.length >= SecretMask.MIN_KEY ? [key] : []),
  ].filter((form) => form.length >= SecretMask.MIN_MASKED);
}

/** How long a beginning of `form` (MIN_CUT characters at least, not all of it) `text` ends with; 0 for none. */
function cutLength(text: string, form: string): number {
  for (let length = Math.min(form.length - 1, text.length); length >= SecretMask.MIN_CUT; length--) {
    if (text.endsWith(form.slice(0, length))) return length;
  }
  return 0;
}
