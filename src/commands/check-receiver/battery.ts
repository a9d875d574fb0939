import { samplePayload } from '../../protocol/catalog.js';
import { madeDelivery } from '../../protocol/delivery.js';
import { signatureHeaderName } from '../../protocol/headers.js';
import { checkSignatureWith } from '../../protocol/signature.js';
import {
  eventTypesCheck,
  malformedSignatureCheck,
  noSignatureCheck,
  otherSecretCheck,
  rawBytesCheck,
  repeatedDeliveryCheck,
  tamperedBodyCheck,
  timeLimitCheck,
  unknownEventCheck,
} from './checks.js';
import type { BatteryContext, Check, Making } from './types.js';

/**
 * The battery of `check-receiver`: the nine checks (checks.ts) in order, made from what types.ts says a check is, apart from any network (sends.ts sends; tests judge answers
 * made up). Each check's deliveries are made as the service makes them; the ways they are wrong on purpose are the
 * ways a forger's would be.
 */

/** The checks, in order, with the deliveries each sends. */
export function battery(ctx: BatteryContext): Check[] {
  const making = makingFor(ctx);
  return [
    eventTypesCheck(making),
    rawBytesCheck(making),
    tamperedBodyCheck(making),
    otherSecretCheck(making),
    noSignatureCheck(making),
    malformedSignatureCheck(making),
    repeatedDeliveryCheck(making),
    unknownEventCheck(making),
    timeLimitCheck(making),
  ];
}

function makingFor(ctx: BatteryContext): Making {
  const [first, ...others] = ctx.secrets;
  if (first === undefined) throw new Error('check-receiver needs a secret');
  const event = ctx.events.find((type) => type === 'invoice.paid') ?? ctx.events[0];
  if (event === undefined) throw new Error('check-receiver needs an event type');
  const sample = () => JSON.stringify(samplePayload(event, ctx.now));
  const make: Making['make'] = (body, type, extra = {}) =>
    madeDelivery(body, { event: type, platformName: ctx.platformName, userAgent: ctx.userAgent, sentAt: ctx.now, ...extra });
  const signed: Making['signed'] = (what, body, type, key = first) => ({
    what,
    delivery: make(body, type, { secret: key.secret }),
    signatureCheck: 'verified',
    signedWith: key.name,
  });
  const suspected: Making['suspected'] = (suspects, key, body) =>
    suspects({ secret: key.secret, keyName: key.name, event, body, header: signatureHeaderName(ctx.platformName) }).map((suspect) => ({
      what: suspect.what,
      delivery: make(suspect.body, event, { signature: suspect.signature }),
      signatureCheck: checkSignatureWith(ctx.secrets, suspect.body, suspect.signature).check,
      signedWith: null,
      suspect,
    }));
  return { ctx, first, others, event, original: sample(), sample, make, signed, suspected };
}
