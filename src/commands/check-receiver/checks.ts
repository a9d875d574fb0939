import { randomBytes } from 'node:crypto';
import { samplePayload } from '../../protocol/catalog.js';
import { LARGEST_PAYLOAD_BYTES, type MadeDelivery } from '../../protocol/delivery.js';
import { deliveryHeaderNames, signatureHeaderName } from '../../protocol/headers.js';
import { digestHex, SIGNATURE_PREFIX, SIGNING_SECRET_PREFIX, type SignatureCheck } from '../../protocol/signature.js';
import { counted, countText } from '../../render/text.js';
import { elapsed } from '../../render/words.js';
import type { Check, Key, Making, Outcome, Probe } from './types.js';
import { payloadOfSize, unlikeReserialized, withOneByteChanged } from './bodies.js';
import { RAW_BODY_FIX, suspectsOfRefusal, suspectsOfReserialization } from './causes.js';
import {
  ANSWER_AT_ONCE_FIX,
  answered,
  EVENT_TYPES_KEY,
  failures,
  foundVerdict,
  isSuspectsKey,
  judgeRefusal,
  median,
  notShown,
  outcomeOf,
  refusalCause,
  refused,
  refusedAsUnsigned,
  refusedAsValid,
  reply,
  statuses,
  suspectsKey,
  suspectTaken,
  taken,
  timedOut,
  whyNotTaken,
} from './judges.js';

// The nine checks of check-receiver, in order: what each sends, and how it judges what came back.

/** The event type no catalog has, for the check that an unknown type gets no 5xx. */
export const UNKNOWN_EVENT_TYPE = 'whsvc_check.unknown_type';

/** A secret as the service makes one, made up for a check: the receiver cannot hold it. */
const madeUpSecret = () => `${SIGNING_SECRET_PREFIX}${randomBytes(24).toString('base64url')}`;

/** A delivery that must be refused: not signed with a secret of the receiver's. */
const forged = (what: string, delivery: MadeDelivery, signatureCheck: SignatureCheck): Probe => ({ what, delivery, signatureCheck, signedWith: null });

/** 1: a valid delivery of each event type (and of one signed with each other secret) is taken. */
export function eventTypesCheck({ ctx, first, others, event, sample, make, signed, suspected }: Making): Check {
  const probes = [
    ...ctx.events.map((type) => signed(type, JSON.stringify(samplePayload(type, ctx.now)), type)),
    ...others.map((key) => signed(`${event} signed with ${key.name}`, sample(), event, key)),
  ];
  // Signed with a secret made up for it: compared with the valid deliveries under `key`, it tells their signature verified.
  const control = (key: Key): Probe => ({
    ...forged(`${event} signed with a secret made up for the check`, make(sample(), event, { secret: madeUpSecret() }), 'mismatch'),
    controls: key.name,
  });
  // The secret whose every delivery was refused as a bad signature: the likely causes are tested with it.
  const refusedKey = (own: readonly Outcome[]) =>
    [first, ...others].find((key) => {
      const under = own.filter((o) => o.probe.signedWith === key.name);
      return under.length > 0 && under.every(refusedAsUnsigned);
    });
  return {
    number: 1,
    key: EVENT_TYPES_KEY,
    title: 'a valid delivery of each event type is taken',
    sends: `${counted(probes.length, 'delivery', 'deliveries')}: ${ctx.events.join(', ')}${others.length ? `, and ${event} signed with each other secret` : ''}`,
    probes,
    suspects(own) {
      const key = refusedKey(own);
      return key === undefined ? [] : [control(key), ...suspected(suspectsOfRefusal, key, sample())];
    },
    judge(own, all) {
      const wrong = own.find((o) => !taken(o));
      if (wrong === undefined) return { result: 'pass', summary: `${own.length === 1 ? '' : `all ${own.length} `}answered ${statuses(own)}` };
      const summary = failures(own, taken);
      const key = refusedKey(own);
      const found = key && refusalCause(all.get(suspectsKey(EVENT_TYPES_KEY)), key.name, own);
      // Taken under one secret and not the other: a receiver moving to a new secret must take both.
      if (others.length > 0 && own.filter((o) => o.probe.signedWith === first.name).every(taken)) {
        if (found && !found.likely) return { result: 'fail', summary, ...foundVerdict(found) };
        return {
          result: 'fail',
          summary,
          cause: `it does not take a delivery signed with ${wrong.probe.signedWith}: while it moves to a new secret, a signature under either must verify`,
          fix: 'check the signature against each of its secrets, old and new, until the move is done',
        };
      }
      if (own.some(taken) && refused(wrong)) {
        return {
          result: 'fail',
          summary,
          cause: 'it refuses some event types: every type its webhook subscribes to comes, and a refusal is sent again',
          fix: 'answer 2xx to every delivery that verifies, and skip the work for a type it does not handle',
        };
      }
      return { result: 'fail', summary, ...(found ? foundVerdict(found) : whyNotTaken(wrong, ctx.limitMs)) };
    },
  };
}

/** 2: the JSON written as no serializer writes it, signed over those bytes, is taken. */
export function rawBytesCheck({ ctx, first, event, signed, suspected }: Making): Check {
  const otherwise = () => unlikeReserialized(samplePayload(event, ctx.now));
  const probe = signed(`${event} written otherwise`, otherwise(), event);
  // Refused where the same JSON written compactly was taken: it verifies JSON it wrote again.
  const reserializes = (o: Outcome, all: ReadonlyMap<string, readonly Outcome[]>) => {
    const plain = all.get(EVENT_TYPES_KEY)?.find((v) => v.probe.what === event);
    return plain !== undefined && taken(plain) && o.result.status !== null && o.result.status < 500;
  };
  return {
    number: 2,
    key: 'raw_bytes',
    title: 'bytes unlike a re-serialization are taken',
    sends: `${event} with its JSON written otherwise (key order, spacing, \\u escapes), signed over those bytes`,
    probes: [probe],
    suspects(own, all) {
      const o = outcomeOf(own, probe);
      return refusedAsUnsigned(o) && reserializes(o, all) ? suspected(suspectsOfReserialization, first, otherwise()) : [];
    },
    judge(own, all) {
      const o = outcomeOf(own, probe);
      if (taken(o)) return { result: 'pass', summary: `answered ${o.result.status}` };
      if (reserializes(o, all)) {
        const found = suspectTaken(all.get(suspectsKey('raw_bytes')));
        return {
          result: 'fail',
          summary: `${reply(o)}, where the same JSON written compactly was taken`,
          ...(found
            ? foundVerdict(found)
            : { cause: 'it verifies the signature over JSON it parsed and wrote again, whose bytes differ from those signed', fix: RAW_BODY_FIX }),
        };
      }
      return { result: 'fail', summary: reply(o), ...whyNotTaken(o, ctx.limitMs, all) };
    },
  };
}

/** 3: the body changed by one byte after it was signed is refused. */
export function tamperedBodyCheck({ ctx, first, event, original, make }: Making): Check {
  const tampered = withOneByteChanged(original);
  const signature = `${SIGNATURE_PREFIX}${digestHex(first.secret, original)}`;
  const header = signatureHeaderName(ctx.platformName);
  return {
    number: 3,
    key: 'tampered_body',
    title: 'a body changed by one byte is refused',
    sends: `${event} with ${tampered.change} after it was signed`,
    probes: [forged(`${event} with one byte changed`, make(tampered.body, event, { signature }), 'mismatch')],
    judge: (own, all) =>
      judgeRefusal(own, all, ctx.limitMs, {
        cause: 'it takes a body that its signature does not match: it does not check the signature, or does not act on the result',
        fix: `compute the HMAC of the raw body, compare it with ${header} in constant time, and answer 400 or 401 when they differ`,
      }),
  };
}

/** 4: a delivery signed with a secret made up for the check is refused. */
export function otherSecretCheck({ ctx, event, original, make }: Making): Check {
  const otherSecret = madeUpSecret();
  return {
    number: 4,
    key: 'other_secret',
    title: 'a delivery signed with another secret is refused',
    sends: `${event} signed with a secret made up for this check`,
    probes: [forged(`${event} signed with another secret`, make(original, event, { secret: otherSecret }), 'mismatch')],
    judge: (own, all) =>
      judgeRefusal(own, all, ctx.limitMs, {
        cause:
          "it takes a signature made with another secret: it does not check signatures, or checks them with another secret than the webhook's (a default, an empty one)",
        fix: "check every delivery with the webhook's signing secret, and refuse one that does not match",
      }),
  };
}

/** 5: a delivery without the signature header is refused. */
export function noSignatureCheck({ ctx, event, original, make }: Making): Check {
  const header = signatureHeaderName(ctx.platformName);
  return {
    number: 5,
    key: 'no_signature',
    title: 'a delivery with no signature is refused',
    sends: `${event} with no ${header} header`,
    probes: [forged(`${event} unsigned`, make(original, event), 'missing')],
    judge: (own, all) =>
      judgeRefusal(own, all, ctx.limitMs, {
        cause: `it takes a delivery without ${header}: its check is skipped when the header is absent`,
        fix: `refuse a delivery without ${header}: 400 or 401`,
      }),
  };
}

/** 6: the right digest under sha1=, and a sha256= digest cut short, are refused (and a cut one makes no 5xx). */
export function malformedSignatureCheck({ ctx, first, event, original, make }: Making): Check {
  const digest = digestHex(first.secret, original);
  const cutShort = forged(`${event} with the digest cut short`, make(original, event, { signature: `${SIGNATURE_PREFIX}${digest.slice(0, 32)}` }), 'malformed');
  return {
    number: 6,
    key: 'malformed_signature',
    title: 'a signature in the wrong form is refused',
    sends: `${event} twice: its right digest under sha1=, then sha256= with the digest cut to 32 hex digits`,
    probes: [forged(`${event} signed sha1=<digest>`, make(original, event, { signature: `sha1=${digest}` }), 'malformed'), cutShort],
    judge(own, all) {
      const crashed = own.find((o) => o.result.status !== null && o.result.status >= 500);
      if (crashed?.probe === cutShort && !own.some(taken)) {
        return {
          result: 'fail',
          summary: failures(own, refused),
          cause: `a signature of the wrong length makes it fail (${crashed.result.status}): a constant-time compare of unequal lengths throws (Node's timingSafeEqual does)`,
          fix: 'check that the header is sha256= and 64 hex digits before comparing, and answer 400 when it is not',
        };
      }
      return judgeRefusal(own, all, ctx.limitMs, {
        cause: 'it takes a signature in the wrong form: it compares only part of it, or ignores what comes before the digest',
        fix: 'take the header only when it is sha256= and 64 hex digits, and compare the whole digest in constant time',
      });
    },
  };
}

/** What check 7 cannot see without --effects: whether the receiver acted on the repeat again. */
export const secondEffectUnseen = (deliveryIdHeader: string) =>
  `a second effect of the repeat cannot be seen over HTTP: drop repeats by ${deliveryIdHeader} (--effects CMD can see it)`;

/** 7: one delivery sent again with the same delivery id, as the service retries it, is answered 2xx both times. */
export function repeatedDeliveryCheck({ ctx, first, event, sample, make }: Making): Check {
  const deliveryIdHeader = deliveryHeaderNames(ctx.platformName).deliveryId;
  const repeated = make(sample(), event, { secret: first.secret });
  const once: Probe = { what: `${event}, attempt 1`, delivery: repeated, signatureCheck: 'verified', signedWith: first.name };
  const again: Probe = {
    what: `${event}, attempt 2 of the same delivery`,
    delivery: make(repeated.body.toString('utf8'), event, { signature: repeated.signature, deliveryId: repeated.deliveryId, attempt: 2 }),
    signatureCheck: 'verified',
    signedWith: first.name,
  };
  return {
    number: 7,
    key: 'repeated_delivery',
    title: 'the same delivery sent twice is answered 2xx twice',
    sends: `one ${event} delivery, then again with the same delivery id, as the service retries one (attempt 2)`,
    probes: [once, again],
    repeats: true,
    judge(own, all) {
      const sent = outcomeOf(own, once);
      // The repeat is looked at only once the first was taken: a battery stopped by time-outs may not have sent it.
      if (!taken(sent)) return { result: 'fail', summary: `the first send ${reply(sent)}`, ...whyNotTaken(sent, ctx.limitMs, all) };
      const resent = outcomeOf(own, again);
      if (taken(resent)) {
        return {
          result: 'pass',
          // What HTTP shows is the answer; whether it acted twice is not (check-receiver's --effects can see it).
          summary: `answered ${sent.result.status}, then ${resent.result.status}${ctx.effectsWatched ? '' : `; ${secondEffectUnseen(deliveryIdHeader)}`}`,
        };
      }
      if (resent.result.status === null) return { result: 'fail', summary: `the repeat ${reply(resent)}`, ...whyNotTaken(resent, ctx.limitMs, all) };
      return {
        result: 'fail',
        summary: `answered ${sent.result.status}, then ${answered(resent)}`,
        cause:
          'it refuses a delivery id it has seen: the service sends a delivery again when it did not get the answer (a timeout, a lost connection), and that retry must be answered 2xx',
        fix: `keep the ${deliveryIdHeader} of each delivery it has processed, and answer a repeat 2xx without doing the work again`,
      };
    },
  };
}

/** 8: a validly signed event of a type no catalog has gets no 5xx. */
export function unknownEventCheck({ ctx, signed }: Making): Check {
  const body = JSON.stringify({
    id: `evt_${randomBytes(6).toString('hex')}`,
    event: UNKNOWN_EVENT_TYPE,
    note: 'an event type this receiver does not know',
  });
  const probe = signed(UNKNOWN_EVENT_TYPE, body, UNKNOWN_EVENT_TYPE);
  return {
    number: 8,
    key: 'unknown_event',
    title: 'an unknown event type gets no 5xx',
    sends: `an event of the type ${UNKNOWN_EVENT_TYPE}, validly signed`,
    probes: [probe],
    judge(own, all) {
      const o = outcomeOf(own, probe);
      if (refusedAsValid(o, all)) return notShown(`answered ${o.result.status}`);
      if (taken(o) || refused(o)) return { result: 'pass', summary: `answered ${o.result.status}${refused(o) ? ' (a refusal it may document)' : ''}` };
      if (o.result.status !== null && o.result.status >= 500) {
        return {
          result: 'fail',
          summary: reply(o),
          cause: 'it fails on an event type it does not know: the service may add types, and sends a 5xx delivery again and again',
          fix: 'answer 2xx (or a 4xx you document) to a type it does not handle',
        };
      }
      return { result: 'fail', summary: reply(o), ...whyNotTaken(o, ctx.limitMs, all) };
    },
  };
}

/** 9: every answer of the battery came within the limit, and the largest payload the service sends is taken. */
export function timeLimitCheck({ ctx, event, signed }: Making): Check {
  const limit = elapsed(ctx.limitMs);
  const largestWords = `${countText(LARGEST_PAYLOAD_BYTES)}-byte`;
  const probe = signed(`${event} of ${countText(LARGEST_PAYLOAD_BYTES)} bytes`, payloadOfSize(event, ctx.now, LARGEST_PAYLOAD_BYTES), event);
  return {
    number: 9,
    key: 'time_limit',
    title: `every answer within ${limit}; the largest payload taken`,
    sends: `${event} of ${countText(LARGEST_PAYLOAD_BYTES)} bytes (the largest the service sends); every answer is timed`,
    probes: [probe],
    timesEveryAnswer: true,
    judge(own, all) {
      const every = [...all.values()].flat();
      const answers = every.filter((o) => o.result.status !== null);
      const times = answers.map((o) => o.ms);
      const late = every.filter(timedOut);
      // The cause probes counted apart: the deliveries are those said before the battery began.
      const probes = [...all].flatMap(([key, outcomes]) => (isSuspectsKey(key) ? outcomes.filter((o) => o.result.status !== null) : [])).length;
      const apart = probes ? ` (${answers.length - probes} to deliveries and ${probes} to cause probes)` : '';
      const timing = times.length
        ? `slowest ${elapsed(Math.max(...times))}, median ${elapsed(median(times))} of ${counted(times.length, 'answer')}${apart}`
        : 'no answer came';
      if (late.length > 0) {
        return {
          result: 'fail',
          summary: `${late.length} of ${every.length} got no answer within ${limit}${times.length ? `; ${timing}` : ''}`,
          cause: `the service waits ${limit} for an answer: past it the attempt has failed, and the delivery is sent again`,
          fix: ANSWER_AT_ONCE_FIX,
        };
      }
      const big = outcomeOf(own, probe);
      if (taken(big)) return { result: 'pass', summary: `${timing}; the ${largestWords} payload answered ${big.result.status}` };
      const why =
        big.result.status === 413
          ? {
              cause: `its request body limit is below ${LARGEST_PAYLOAD_BYTES / 1024} KiB, the largest payload the service sends`,
              fix: `raise it to ${LARGEST_PAYLOAD_BYTES / 1024} KiB or more`,
            }
          : whyNotTaken(big, ctx.limitMs, all);
      return { result: 'fail', summary: `${timing}; the ${largestWords} payload ${reply(big)}`, ...why };
    },
  };
}

/** What passing every check shows, and what it cannot: the words after `all 9 checks passed`. */
export const allPassedWords = (limitMs: number) =>
  `it takes valid deliveries by their raw bytes, refuses forged ones, answers a repeat 2xx and answers within ${elapsed(limitMs)}; whether it acts twice on a repeat cannot be seen over HTTP (see 7)`;
