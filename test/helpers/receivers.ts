import { appendFileSync } from 'node:fs';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Answer, Received } from './receiver.js';

// Small real webhook receivers, one per way of getting it right or wrong, for the configurable receiver of
// receiver.ts (startReceiver(policy)): each verifies as a developer's app would, with node:crypto and nothing of src/.

/** The hex HMAC-SHA256 of some bytes, computed here apart from src/. */
const hmac = (secret: string, bytes: Buffer | string) => createHmac('sha256', secret).update(bytes).digest('hex');

const header = (request: Received, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The signature check of a careful receiver: `sha256=` and 64 hex digits, compared whole in constant time with the
 * HMAC of `bytes` under any of `secrets`. What it says is the answer: 401 for a missing, malformed or wrong signature.
 */
function checked(request: Received, secrets: readonly string[], bytes: Buffer | string): 'ok' | 'missing' | 'malformed' | 'mismatch' {
  const given = header(request, 'x-service-signature');
  if (given === undefined) return 'missing';
  const match = /^sha256=([0-9a-f]{64})$/.exec(given);
  if (!match) return 'malformed';
  const digest = Buffer.from(match[1]!, 'hex');
  return secrets.some((secret) => timingSafeEqual(Buffer.from(hmac(secret, bytes), 'hex'), digest)) ? 'ok' : 'mismatch';
}

const refuse = (why: string): Answer => ({ status: 401, body: `${why}\n` });

/**
 * A receiver done right: verifies the raw body (with any of its secrets, while it moves to a new one), refuses what
 * does not verify with 401, answers a delivery id it has seen 200 again without doing the work twice, at once.
 */
export function correctReceiver(...secrets: string[]): (request: Received) => Answer {
  const seen = new Set<string>();
  return (request) => {
    const verdict = checked(request, secrets, request.bytes);
    if (verdict !== 'ok') return refuse(`signature ${verdict}`);
    const id = header(request, 'x-service-delivery-id') ?? '';
    if (seen.has(id)) return { status: 200, body: 'already processed' };
    seen.add(id);
    return { status: 200, body: 'ok' };
  };
}

/** A receiver that never checks a signature: it takes everything. */
export const acceptsEverything = (): ((request: Received) => Answer) => () => ({ status: 200, body: 'ok' });

/** A receiver that parses the body first and verifies the JSON it writes again: the commonest bug. */
export function verifiesReserializedJson(secret: string): (request: Received) => Answer {
  return (request) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body);
    } catch {
      return { status: 400, body: 'not JSON' };
    }
    const verdict = checked(request, [secret], JSON.stringify(parsed));
    return verdict === 'ok' ? { status: 200, body: 'ok' } : refuse(`signature ${verdict}`);
  };
}

/**
 * A receiver that verifies as correctReceiver does, and then does with a verified delivery what `taken` says, told
 * its delivery id and whether that id came before.
 */
function onVerified(secret: string, taken: (id: string, seenBefore: boolean) => Answer): (request: Received) => Answer {
  const right = correctReceiver(secret);
  const seen = new Set<string>();
  return (request) => {
    const answer = right(request);
    if (typeof answer !== 'object' || answer.status !== 200) return answer;
    const id = header(request, 'x-service-delivery-id') ?? '';
    const seenBefore = seen.has(id);
    seen.add(id);
    return taken(id, seenBefore);
  };
}

/** A receiver done right but for one thing: a delivery id it has seen is refused (409), a retry too. */
export const rejectsRepeatedDeliveryId = (secret: string): ((request: Received) => Answer) =>
  onVerified(secret, (_id, seenBefore) => (seenBefore ? { status: 409, body: 'duplicate delivery' } : { status: 200, body: 'ok' }));

/** A receiver that refuses a missing or malformed signature, but answers 500 to one that does not match (it throws). */
export function failsOnMismatch(secret: string): (request: Received) => Answer {
  return (request) => {
    const verdict = checked(request, [secret], request.bytes);
    if (verdict === 'mismatch') return { status: 500, body: 'Internal Server Error' };
    return verdict === 'ok' ? { status: 200, body: 'ok' } : refuse(`signature ${verdict}`);
  };
}

/** A receiver done right, that answers only after `delayMs` (its work done before it answers). */
export function slowReceiver(secret: string, delayMs: number): (request: Received) => Answer {
  const right = correctReceiver(secret);
  return (request) => {
    const answer = right(request);
    return typeof answer === 'object' ? { ...answer, delayMs } : answer;
  };
}

/**
 * A receiver that computes the signature header it wants its own way (`expected`) and takes a delivery only when the
 * header is exactly that: a receiver with one of the usual mistakes of key, bytes or form, as check-receiver names them.
 */
function expecting(expected: (request: Received) => string): (request: Received) => Answer {
  return (request) => {
    const given = header(request, 'x-service-signature');
    if (given === undefined) return refuse('signature missing');
    const want = Buffer.from(expected(request));
    const got = Buffer.from(given);
    return want.length === got.length && timingSafeEqual(want, got) ? { status: 200, body: 'ok' } : refuse('signature mismatch');
  };
}

/** The mistakes of a receiver that verifies otherwise than the service signs, each a receiver of `secret`. */
export const mistaken = {
  /** Keyed with the secret file read as it is, its newline too (readFileSync(f, 'utf8')). */
  keyWithNewline: (secret: string) => expecting((r) => `sha256=${hmac(`${secret}\n`, r.bytes)}`),
  /** Keyed with the secret base64-decoded after whsec_, as Svix's libraries do. */
  keyDecoded: (secret: string) =>
    expecting(
      (r) =>
        `sha256=${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
          .update(r.bytes)
          .digest('hex')}`,
    ),
  /** The header compared with the bare hex digest. */
  bareHex: (secret: string) => expecting((r) => hmac(secret, r.bytes)),
  /** sha256= added to a value that has it already. */
  prefixTwice: (secret: string) => expecting((r) => `sha256=sha256=${hmac(secret, r.bytes)}`),
  /** The digest in base64. */
  base64Digest: (secret: string) => expecting((r) => `sha256=${createHmac('sha256', secret).update(r.bytes).digest('base64')}`),
  /** The JSON pretty-printed again (JSON.stringify(…, null, 2)) and that verified. */
  prettyJson: (secret: string) => expecting((r) => `sha256=${hmac(secret, JSON.stringify(JSON.parse(r.body), null, 2))}`),
  /** The JSON written again with its keys sorted, compact (a canonical JSON), and that verified. */
  sortedJson: (secret: string) => {
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : typeof v === 'object' && v !== null
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
            )
          : v;
    return expecting((r) => `sha256=${hmac(secret, JSON.stringify(sorted(JSON.parse(r.body))))}`);
  },
};

/**
 * A receiver done right but that acts on each valid delivery (its id appended to `file`, as an app writes a row);
 * with `dedupe` a delivery id it has seen is answered 200 without acting again, without it a repeat is acted on again.
 */
export const actingReceiver = (secret: string, file: string, dedupe: boolean): ((request: Received) => Answer) =>
  onVerified(secret, (id, seenBefore) => {
    if (!(dedupe && seenBefore)) appendFileSync(file, `${id}\n`);
    return { status: 200, body: 'ok' };
  });
