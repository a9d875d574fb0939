import { canonicalJson } from '../../exact-json.js';
import { digestHex, SIGNATURE_PREFIX, SIGNING_SECRET_PREFIX } from '../../protocol/signature.js';

/**
 * The usual reasons a receiver refuses deliveries the service signed, each as a delivery it predicts the receiver
 * takes: the same compact bytes the service sends, signed as the mistaken receiver computes the signature (over its
 * re-serialization of them, with its key, in its form). `check-receiver` sends them one at a time after a refusal and
 * names the one taken; when none is, a control signed with a secret made up for it tells a payload refused from
 * every request refused alike (another secret, or something in front of the receiver). Apart from any network, as battery.ts is.
 */

/** A likely cause, with the delivery that tests it. */
export interface Suspect {
  /** Its name for scripts (`cause_found.cause` in --json). */
  key: string;
  /** What its delivery is, in words: `invoice.paid signed over json.dumps(…) of its JSON`. */
  what: string;
  /** The bytes sent: as the service writes them. */
  body: string;
  /** The signature header's value, as the mistaken receiver computes it. */
  signature: string;
  /** The cause in a sentence, when its delivery was taken. */
  cause: string;
  /** The cause in a few words, for the checks it explains too (`see 1: …`). */
  short: string;
  fix: string;
}

/** The fix of a signature computed over anything but the bytes received, with the calls that read them in the servers people write. */
export const RAW_BODY_FIX =
  "compute the HMAC over the raw body as received, before any parsing: express.raw(), or in node:http Buffer.concat of the request's chunks; " +
  'request.get_data() (Flask), or in http.server self.rfile.read(length), length its Content-Length; io.ReadAll(r.Body) (Go)';

/** How the key is read: the whole secret string's bytes. */
export const KEY_CONVENTION =
  'the key is the bytes of the whole whsec_… string as given, never base64-decoded, with no trailing newline (.trim() in Node, .strip() in Python when read from a file)';

/** How Python's json.dumps writes JSON: its separators, indent and key order (ensure_ascii, its default, always). */
interface PythonDumps {
  indent?: number;
  sortKeys?: boolean;
  separators?: readonly [item: string, key: string];
}

const PYTHON_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A string as json.dumps writes it with ensure_ascii: every character but printable ASCII escaped (an astral one as its two surrogates). */
function pythonString(text: string): string {
  const escaped = text.replace(/[\\"]|[^\x20-\x7e]/g, (unit) => PYTHON_ESCAPES[unit] ?? `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped}"`;
}

/**
 * A JSON value as Python's `json.dumps(value, …)` writes it: `", "` and `": "` by default, `","` between items when
 * indented, keys in the order given unless sorted. Numbers as JSON writes them: the bodies made here hold integers,
 * which both write alike.
 */
export function pythonDumps(value: unknown, options: PythonDumps = {}): string {
  const [item, key] = options.separators ?? (options.indent === undefined ? [', ', ': '] : [',', ': ']);
  const wrap = (open: string, close: string, parts: string[], level: number) => {
    if (parts.length === 0) return `${open}${close}`;
    if (options.indent === undefined) return `${open}${parts.join(item)}${close}`;
    const inner = `\n${' '.repeat(options.indent * (level + 1))}`;
    return `${open}${inner}${parts.join(`${item}${inner}`)}\n${' '.repeat(options.indent * level)}${close}`;
  };
  const write = (v: unknown, level: number): string => {
    if (typeof v === 'string') return pythonString(v);
    if (Array.isArray(v))
      return wrap(
        '[',
        ']',
        v.map((x) => write(x, level + 1)),
        level,
      );
    if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      if (options.sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return wrap(
        '{',
        '}',
        entries.map(([name, x]) => `${pythonString(name)}${key}${write(x, level + 1)}`),
        level,
      );
    }
    return JSON.stringify(v);
  };
  return write(value, 0);
}

/** A key a receiver makes by base64-decoding the secret after `whsec_`: its name for scripts, the bytes, the decoding in a word or two, and how, by which calls. */
interface DecodedKey {
  name: string;
  key: Buffer;
  label: string;
  how: string;
}

/**
 * The keys the usual libraries make of the secret after `whsec_` (none when it is no such string). Base64 read with
 * `-` and `_` as the urlsafe alphabet's (Node's Buffer.from(…, 'base64'), Python's urlsafe_b64decode); with either in
 * it, also standard base64 as Python's b64decode reads it, dropping them (a strict standard decoder, as Standard
 * Webhooks' JavaScript one, refuses such a secret, and makes no key). Without them both read it alike: one key.
 */
function decodedKeys(secret: string): DecodedKey[] {
  const encoded = new RegExp(`^${SIGNING_SECRET_PREFIX}([A-Za-z0-9+/_-]+={0,2})$`).exec(secret)?.[1];
  if (encoded === undefined) return [];
  const urlsafe = Buffer.from(encoded, 'base64');
  if (!/[-_]/.test(encoded)) {
    return [{ name: 'key_base64_decoded', key: urlsafe, label: 'base64', how: "standard and urlsafe alike: Buffer.from(s, 'base64'), b64decode" }];
  }
  const keys = [{ name: 'key_base64_decoded', key: urlsafe, label: 'urlsafe base64', how: "urlsafe: Buffer.from(s, 'base64'), urlsafe_b64decode" }];
  // Python pads what is left itself (+ '=='), but a length of 4n + 1 is no base64 at all.
  const standard = encoded.replace(/[-_]/g, '');
  if (standard.replace(/=+$/, '').length % 4 !== 1) {
    keys.push({
      name: 'key_base64_standard',
      key: Buffer.from(standard, 'base64'),
      label: 'standard base64, - and _ dropped',
      how: "standard, its - and _ dropped: Python's b64decode",
    });
  }
  return keys.filter(({ key }) => key.length > 0);
}

/** What the suspects are made from: the receiver's key (by its file), the body and its event, and the signature header's name. */
export interface SuspectOf {
  secret: string;
  /** The file that holds the secret: how the words name it. */
  keyName: string;
  event: string;
  /** The bytes sent, compact JSON as the service writes it. */
  body: string;
  header: string;
}

/** A suspect of re-serialization: the body signed over what `serializer` writes of its JSON. */
function reserialized(of: SuspectOf, key: string, serializer: string, write: (value: unknown) => string): Suspect {
  return {
    key,
    what: `${of.event} signed over its JSON written by ${serializer}`,
    body: of.body,
    signature: `${SIGNATURE_PREFIX}${digestHex(of.secret, write(JSON.parse(of.body)))}`,
    cause: `it verifies the JSON written again by ${serializer}, not the bytes received: a delivery signed over that re-serialization was taken`,
    short: `it verifies JSON re-serialized by ${serializer}`,
    fix: RAW_BODY_FIX,
  };
}

/**
 * The suspects when every valid delivery signed with a key is refused, the likeliest first: the receiver re-serializes
 * (Python's json.dumps, pretty-printed, keys sorted), reads the key with its newline or base64-decoded, wants the
 * signature without `sha256=` or with it twice, or writes the digest in base64.
 */
export function suspectsOfRefusal(of: SuspectOf): Suspect[] {
  const { secret, keyName, event, body, header } = of;
  const hex = digestHex(secret, body);
  const keyed = (key: string, what: string, with_: Buffer | string, cause: string, short: string): Suspect => ({
    key,
    what: `${event} signed with ${what}`,
    body,
    signature: `${SIGNATURE_PREFIX}${digestHex(with_, body)}`,
    cause,
    short,
    fix: `key the HMAC as the service does: ${KEY_CONVENTION}`,
  });
  const formed = (key: string, signature: string, cause: string, short: string, fix: string): Suspect => ({
    key,
    what: `${event} with ${header}: ${signature.replace(/[0-9a-f]{64}$|[A-Za-z0-9+/]{43}=$/, '<digest>')}`,
    body,
    signature,
    cause,
    short,
    fix,
  });
  return [
    reserialized(of, 'python_json_dumps', 'json.dumps(…) with its defaults (", " and ": ")', (v) => pythonDumps(v)),
    keyed(
      'key_with_newline',
      `the secret in ${keyName} and a newline after it`,
      `${secret}\n`,
      `it keys the HMAC with the secret in ${keyName} and the newline that ends the file (read as it is: readFileSync(f, 'utf8'), open(f).read()): a delivery signed with that key was taken`,
      'it keys the HMAC with the secret and its newline',
    ),
    ...decodedKeys(secret).map(({ name, key, label, how }) =>
      keyed(
        name,
        `the secret in ${keyName} after whsec_, decoded as ${label}`,
        key,
        `it keys the HMAC with the secret base64-decoded after whsec_ (${how}), as Svix and Standard Webhooks users do: a delivery signed with that key was taken`,
        `it keys the HMAC with the secret decoded as ${label}`,
      ),
    ),
    formed(
      'prefix_absent',
      hex,
      `it compares ${header} with the bare hex digest, without sha256=: a delivery whose header was the digest alone was taken`,
      'it compares the signature without sha256=',
      `compare the whole header with "sha256=" and the hex digest, or the 64 hex digits after sha256= with the digest`,
    ),
    reserialized(of, 'pretty_indent_2', 'JSON.stringify(…, null, 2) or json.dumps(…, indent=2)', (v) => JSON.stringify(v, null, 2)),
    reserialized(of, 'python_sort_keys', 'json.dumps(…, sort_keys=True)', (v) => pythonDumps(v, { sortKeys: true })),
    reserialized(of, 'pretty_indent_4', 'json.dumps(…, indent=4) or JSON.stringify(…, null, 4)', (v) => JSON.stringify(v, null, 4)),
    reserialized(of, 'sorted_compact', 'a canonical JSON (keys sorted, compact)', canonicalJson),
    formed(
      'base64_digest',
      `${SIGNATURE_PREFIX}${Buffer.from(hex, 'hex').toString('base64')}`,
      'it writes the digest in base64, not hex: a delivery signed sha256=<base64 digest> was taken',
      'it writes the digest in base64',
      "write the HMAC-SHA256 digest in hex: digest('hex') in Node, hexdigest() in Python",
    ),
    formed(
      'prefix_doubled',
      `${SIGNATURE_PREFIX}${SIGNATURE_PREFIX}${hex}`,
      `it expects sha256= twice (the prefix added to a value that has it already): a delivery whose ${header} was sha256=sha256=<digest> was taken`,
      'it expects sha256= twice',
      'add sha256= once: the header is "sha256=" and the hex digest',
    ),
  ];
}

/**
 * The suspect when compact JSON is taken and the same JSON written otherwise is refused (`body` is the latter): the
 * receiver writes it again compactly, as JSON.stringify does, and verifies that.
 */
export function suspectsOfReserialization(of: SuspectOf): Suspect[] {
  return [reserialized(of, 'compact', "JSON.stringify(JSON.parse(…)) or json.dumps(…, separators=(',', ':'))", (v) => JSON.stringify(v))];
}

/** The fix when something in front of the receiver asks for a login. */
export const LOGIN_FIX =
  "let the service's deliveries through to the receiver with no login (their signature is what authenticates them), or give the webhook a URL that asks for none";

/** A cause named: tested (a delivery it predicts was taken, or a control told it), or `likely` (what is left when none was). */
export type CauseFound = Pick<Suspect, 'key' | 'cause' | 'short' | 'fix'> & { likely?: true };

/**
 * The cause when the valid deliveries got another answer than the control, signed with a secret made up for it: the
 * signature verified, and the receiver refuses what the delivery holds (`answer`: what the valid ones got).
 */
export function payloadRefused(answer: string, control: string): CauseFound {
  return {
    key: 'payload_refused',
    cause: `the signature verified (a delivery signed with a secret made up for the check got another answer: ${control}); it refuses the payload: ${answer}`,
    short: 'it refuses the payload, its signature verified',
    fix: 'answer 2xx to every delivery whose signature verifies, whatever its payload holds (see what it answered), and skip the work for one it cannot handle',
  };
}

/**
 * The likely cause when no suspect was taken and the control got the answer the valid deliveries got (`answer`): nothing
 * tells a signature checked with another secret from something in front of the receiver that refuses every request;
 * `login`, the WWW-Authenticate it answered with, names the latter.
 */
export function refusedAlike(keyName: string, tried: number, answer: string, login?: string): CauseFound {
  if (login !== undefined) {
    return {
      key: 'login_in_front',
      cause: `something in front of it asks for a login (WWW-Authenticate: ${login}): it refuses every request alike (${answer}), signed or not, before a signature is checked`,
      short: 'a login in front of it refuses every request',
      fix: LOGIN_FIX,
      likely: true,
    };
  }
  return {
    key: 'refused_alike',
    cause: `it refuses every request alike: another secret than the one in ${keyName}, or something in front of it (a login, a proxy); a delivery signed with a secret made up for the check got the same answer (${answer}), and it took none of ${tried} signed as the usual mistakes would verify them (re-serialized JSON, the key with its newline or base64-decoded, sha256= left out or doubled, a base64 digest)`,
    short: 'it refuses every request alike: another secret, or something in front of it',
    fix: `give it the webhook's signing secret, the one in ${keyName}, and let deliveries through whatever stands in front of it; ${KEY_CONVENTION}`,
    likely: true,
  };
}
