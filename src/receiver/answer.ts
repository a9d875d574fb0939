import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { readDeliveryHeaders } from '../protocol/headers.js';
import { checkSignatureWith, type SignatureCheck } from '../protocol/signature.js';

/** What listen answers, set by its flags. */
export interface AnswerRules {
  respondStatus: number;
  /** Answer 500 to the first N attempts of each delivery. */
  failFirst?: number | undefined;
  /** Answer 500 to this share of attempts, decided by `seed`. */
  failRate?: number | undefined;
  seed?: string | undefined;
  /** Only these event types are taken; others get the usual answer and are not shown. */
  events?: string[] | undefined;
  /** Whether a verified delivery of this event type is relayed to an app (--forward-to), whose answer becomes listen's. */
  forwards: (event: string | undefined) => boolean;
}

/** What decided the answer to a request, on every line listen prints. */
/** `not_recorded`: --record could not keep it, so it is not acknowledged (503: the sender tries again). */
export type Rule = 'signature' | 'replay' | 'event_mismatch' | 'fail_first' | 'fail_rate' | 'forward' | 'respond_status' | 'not_recorded';

/** What listen makes of one request: the facts it read, and the answer it decided. */
export interface Decision {
  /** An event type --events leaves out: answered, neither shown nor counted. */
  filtered: boolean;
  /** The body's event (signed), else the header's. */
  event: string | undefined;
  headerEvent: string | undefined;
  /** The header names another event than the signed body. */
  eventMismatch: boolean;
  signatureCheck: SignatureCheck;
  /** The secret that verified it, by its name (a file as given; never the secret), or null. */
  verifiedBy: string | null;
  deliveryId: string | undefined;
  /** The attempt header as sent. */
  attempt: string | undefined;
  /** Attempts of this delivery received so far, this one included (what --fail-first counts). */
  attemptNumber: number;
  repeat: 'retry' | 'replay' | 'same_body' | null;
  repeatOf: string | null;
  /** The answer: for `forward`, replaced by the app's. */
  status: number;
  rule: Rule;
  /** The answer's body: why a request was refused. */
  refusal: string;
}

/**
 * listen's judgement of each request, apart from any server: it verifies the
 * signature, tells a sender's retry from a replay, applies --fail-first,
 * --fail-rate and --respond-status, and counts what it took. Deliveries it
 * has seen are remembered in `seen`; the tally is what listen's exit code and
 * last lines say.
 */
export class Answerer {
  readonly tally = { verified: 0, bad: 0, refused: 0 };
  private readonly seen = new Seen();
  /** Attempts received per delivery id, for --fail-first. */
  private readonly attemptsOf = new Map<string, number>();
  /** Deliveries counted for --count: each once, however many attempts it takes. */
  private readonly counted = new Set<string>();
  private requestNumber = 0;
  /** What taking each decision considered changes. */
  private readonly toTake = new WeakMap<Decision, () => void>();

  constructor(
    private readonly rules: AnswerRules,
    /**
     * The signing secrets now, each named (one, or several while the receiver moves to a new one: any of them
     * verifies); a secret file may be written later, by `webhooks create --secret-file`.
     */
    private readonly secrets: () => ReadonlyArray<{ name: string; secret: string }>,
  ) {}

  /** Decides the answer to a request and takes it: what `consider` and `take` do in turn. */
  decide(headers: IncomingHttpHeaders, body: Buffer): Decision {
    const decision = this.consider(headers, body);
    this.take(decision);
    return decision;
  }

  /**
   * The answer to a request, from what was taken so far, changing nothing:
   * listen takes it (`take`) only once its record is kept, so that a request
   * answered 503 for want of a record is, when it comes again, not a replay,
   * and counts for neither --count nor --fail-first.
   */
  consider(headers: IncomingHttpHeaders, body: Buffer): Decision {
    const delivery = readDeliveryHeaders(headers);
    const headerEvent = delivery.event;
    // The body's event is signed; the header is not, and may have been rewritten.
    const signedEvent = bodyEvent(body);
    const event = signedEvent ?? headerEvent;
    const eventMismatch = signedEvent !== undefined && headerEvent !== undefined && headerEvent !== signedEvent;
    const { deliveryId, attempt } = delivery;
    const base = { event, headerEvent, eventMismatch, deliveryId, attempt };
    const keys = this.secrets();
    const { check: signatureCheck, by } = checkSignatureWith(keys, body, delivery.signature);
    if (this.rules.events && event && !this.rules.events.includes(event)) {
      // Checked all the same: its record says what its signature is (and a verified one is always recorded).
      return {
        ...base,
        filtered: true,
        signatureCheck,
        verifiedBy: by?.name ?? null,
        attemptNumber: 0,
        repeat: null,
        repeatOf: null,
        status: this.rules.respondStatus,
        rule: 'respond_status',
        refusal: '',
      };
    }
    const trusted = signatureCheck === 'verified' || signatureCheck === 'not_checked';
    // Only what passed (or could not be checked) is remembered: a forged request must not poison an id.
    const seen = trusted ? this.seen.classify(deliveryId, attempt, body) : { repeat: null, of: null, remember: () => {} };
    const { repeat, of: repeatOf } = seen;
    // A signed body under headers that lie about it, or sent again as another delivery: someone replays it.
    const suspect = eventMismatch || repeat === 'replay';
    this.requestNumber += 1;
    const attemptNumber = deliveryId === undefined ? 1 : (this.attemptsOf.get(deliveryId) ?? 0) + 1;
    const [status, rule] = this.answer(
      signatureCheck,
      keys.length > 0,
      suspect,
      eventMismatch,
      attemptNumber,
      deliveryId ?? `request ${this.requestNumber}`,
      attempt,
      event,
    );
    const refusal =
      rule === 'signature'
        ? `signature ${signatureCheck === 'mismatch' ? 'does not match' : signatureCheck}\n`
        : eventMismatch
          ? 'event header does not match the signed body\n'
          : repeat === 'replay'
            ? 'replay of a delivery already received\n'
            : '';
    const decision: Decision = {
      ...base,
      filtered: false,
      signatureCheck,
      verifiedBy: by?.name ?? null,
      attemptNumber,
      repeat,
      repeatOf,
      status,
      rule,
      refusal,
    };
    this.toTake.set(decision, () => {
      seen.remember();
      if (deliveryId !== undefined && trusted) this.attemptsOf.set(deliveryId, Math.max(this.attemptsOf.get(deliveryId) ?? 0, attemptNumber));
      if (rule === 'signature') this.tally.bad += 1;
      if (rule === 'event_mismatch' || rule === 'replay') this.tally.refused += 1;
      // --count counts distinct deliveries taken (not failed on purpose): a later attempt of one already counted is shown, not counted again.
      if (signatureCheck === 'verified' && !suspect && rule !== 'fail_first' && rule !== 'fail_rate') {
        if (deliveryId === undefined) this.tally.verified += 1;
        else if (!this.counted.has(deliveryId)) {
          this.counted.add(deliveryId);
          this.tally.verified += 1;
        }
      }
    });
    return decision;
  }

  /** A decision kept (its record written, when --record): remembered, counted. Once per decision. */
  take(decision: Decision): void {
    const taking = this.toTake.get(decision);
    this.toTake.delete(decision);
    taking?.();
  }

  /** The answer and the rule that decided it, the first that applies in this order. */
  private answer(
    signatureCheck: SignatureCheck,
    hasSecret: boolean,
    suspect: boolean,
    eventMismatch: boolean,
    attemptNumber: number,
    deliveryKey: string,
    attempt: string | undefined,
    event: string | undefined,
  ): [number, Rule] {
    const { rules } = this;
    // With a secret, only a verified signature passes; without one, a missing or malformed one is only shown (and not trusted).
    if (hasSecret && signatureCheck !== 'verified') return [400, 'signature'];
    if (suspect) return [400, eventMismatch ? 'event_mismatch' : 'replay'];
    if (rules.failFirst !== undefined && attemptNumber <= rules.failFirst) return [500, 'fail_first'];
    if (rules.seed !== undefined && rules.failRate !== undefined && failsByRate(rules.seed, deliveryKey, attempt ?? String(attemptNumber), rules.failRate)) {
      return [500, 'fail_rate'];
    }
    if (rules.forwards(event) && (signatureCheck === 'verified' || signatureCheck === 'not_checked')) return [502, 'forward'];
    return [rules.respondStatus, 'respond_status'];
  }
}

/**
 * Whether --fail-rate fails this attempt: a hash of the seed, the delivery id
 * and the attempt number, so that the same seed fails the same attempts
 * whatever order they arrive in.
 */
function failsByRate(seed: string, deliveryId: string, attempt: string, rate: number): boolean {
  const digest = createHash('sha256').update(`${seed}\0${deliveryId}\0${attempt}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < rate;
}

/** The `event` field of a JSON body: what the signature covers, unlike the headers. */
function bodyEvent(body: Buffer): string | undefined {
  try {
    const event = (JSON.parse(body.toString('utf8')) as { event?: unknown }).event;
    return typeof event === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What `listen` remembers of the deliveries it has seen, to tell a new one
 * from a repeat: the signature covers the body only, with no timestamp, so a
 * captured delivery can be sent again with any delivery id or attempt header.
 * A delivery id is the key: the same id with the same body and a higher
 * attempt number is the sender's retry; the same id with an attempt already
 * seen, or with another body, is a replay. The same body under a new id is
 * only noted: two events can have identical payloads.
 */
class Seen {
  private readonly byId = new Map<string, { bodyHash: string; attempt: number }>();
  private readonly byBody = new Map<string, string>();

  /** What a request is, against what was seen; `remember` makes it seen (only once it was kept). */
  classify(
    deliveryId: string | undefined,
    attemptHeader: string | undefined,
    body: Buffer,
  ): { repeat: Decision['repeat']; of: string | null; remember: () => void } {
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const attempt = Number(attemptHeader ?? NaN);
    const earlierBody = this.byBody.get(bodyHash);
    if (deliveryId === undefined) {
      if (earlierBody !== undefined) return { repeat: 'same_body', of: earlierBody, remember: () => {} };
      return { repeat: null, of: null, remember: () => this.byBody.set(bodyHash, '(no id)') };
    }
    const earlier = this.byId.get(deliveryId);
    if (earlier) {
      if (earlier.bodyHash === bodyHash && Number.isInteger(attempt) && attempt > earlier.attempt) {
        return { repeat: 'retry', of: deliveryId, remember: () => (earlier.attempt = Math.max(earlier.attempt, attempt)) };
      }
      return { repeat: 'replay', of: deliveryId, remember: () => {} };
    }
    const remember = () => {
      if (!this.byId.has(deliveryId)) this.byId.set(deliveryId, { bodyHash, attempt: Number.isInteger(attempt) ? attempt : 0 });
      if (!this.byBody.has(bodyHash)) this.byBody.set(bodyHash, deliveryId);
    };
    return earlierBody !== undefined ? { repeat: 'same_body', of: earlierBody, remember } : { repeat: null, of: null, remember };
  }
}
