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
 * A receiver done right but that acts on each valid delivery (its id appended to `file`, as an app writes a row);
 * with `dedupe` a delivery id it has seen is answered 200 without acting again, without it a repeat is acted on again.
 */
export const actingReceiver = (secret: string, file: string, dedupe: boolean): ((request: Received) => Answer) =>
  onVerified(secret, (id, seenBefore) => {
    if (!(dedupe && seenBefore)) appendFileSync(file, `${id}\n`);
    return { status: 200, body: 'ok' };
  });
