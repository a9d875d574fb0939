import { describe, expect, it } from 'vitest';
import { Answerer, type AnswerRules } from '../../../src/receiver/answer.js';
import { deliveryHeaders } from '../../../src/protocol/headers.js';
import { sign } from '../../../src/protocol/signature.js';

const SECRET = 'whsec_test';
const body = (event = 'invoice.paid', id = 'inv_1') => Buffer.from(JSON.stringify({ id, event, amount: { amount: 100, currency: 'USD' } }));
/** The headers the sandbox sends, as Node hands them to a server (lower-case names). */
const headersFor = (payload: Buffer, deliveryId: string, attempt: number, options: { event?: string; secret?: string } = {}) =>
  Object.fromEntries(
    Object.entries(
      deliveryHeaders('Service', 'test', {
        signature: sign(options.secret ?? SECRET, payload),
        event: options.event ?? (JSON.parse(payload.toString()) as { event: string }).event,
        deliveryId,
        attempt,
        attemptId: `${deliveryId}_${attempt}`,
      }),
    ).map(([name, value]) => [name.toLowerCase(), value]),
  );
const answerer = (rules: Partial<AnswerRules> = {}, secret: { now: string | undefined } = { now: SECRET }) =>
  new Answerer({ respondStatus: 200, forwards: () => false, ...rules }, () => (secret.now === undefined ? [] : [{ name: 'whsec.txt', secret: secret.now }]));

describe("listen's answer, decided without a server", () => {
  it('a signed delivery is taken and counted once, its retry taken and not counted again', () => {
    const a = answerer();
    const payload = body();
    const first = a.decide(headersFor(payload, 'dlv_1', 1), payload);
    expect(first).toMatchObject({ signatureCheck: 'verified', status: 200, rule: 'respond_status', repeat: null, event: 'invoice.paid', deliveryId: 'dlv_1' });
    const retry = a.decide(headersFor(payload, 'dlv_1', 2), payload);
    expect(retry).toMatchObject({ signatureCheck: 'verified', status: 200, repeat: 'retry', repeatOf: 'dlv_1' });
    expect(a.tally).toEqual({ verified: 1, bad: 0, refused: 0 });
  });

  it('a bad signature is 400 and counted bad; a replay (the same attempt again) is refused', () => {
    const a = answerer();
    const payload = body();
    expect(a.decide(headersFor(payload, 'dlv_1', 1, { secret: 'whsec_other' }), payload)).toMatchObject({
      signatureCheck: 'mismatch',
      status: 400,
      rule: 'signature',
    });
    a.decide(headersFor(payload, 'dlv_2', 1), payload);
    const replay = a.decide(headersFor(payload, 'dlv_2', 1), payload);
    expect(replay).toMatchObject({ status: 400, rule: 'replay', repeat: 'replay', refusal: 'replay of a delivery already received\n' });
    expect(a.tally).toEqual({ verified: 1, bad: 1, refused: 1 });
  });

  it('with a secret, a missing or malformed signature is 400 and counted bad; without one, shown and not trusted', () => {
    const a = answerer();
    const payload = body();
    const { 'x-service-signature': _, ...unsigned } = headersFor(payload, 'dlv_1', 1);
    expect(a.decide(unsigned, payload)).toMatchObject({ signatureCheck: 'missing', status: 400, rule: 'signature', refusal: 'signature missing\n' });
    const short = { ...unsigned, 'x-service-signature': sign(SECRET, payload).slice(0, -1) };
    expect(a.decide(short, payload)).toMatchObject({ signatureCheck: 'malformed', status: 400, rule: 'signature', refusal: 'signature malformed\n' });
    expect(a.tally).toEqual({ verified: 0, bad: 2, refused: 0 });
    const noSecret = answerer({ forwards: () => true }, { now: undefined });
    expect(noSecret.decide(unsigned, payload)).toMatchObject({ signatureCheck: 'missing', status: 200, rule: 'respond_status' });
    expect(noSecret.decide(short, payload)).toMatchObject({ signatureCheck: 'malformed', status: 200, rule: 'respond_status' });
  });

  it('an event header that contradicts the signed body is refused', () => {
    const payload = body('invoice.paid');
    const decision = answerer().decide(headersFor(payload, 'dlv_1', 1, { event: 'sales_order.created' }), payload);
    expect(decision).toMatchObject({ eventMismatch: true, event: 'invoice.paid', headerEvent: 'sales_order.created', status: 400, rule: 'event_mismatch' });
  });

  it('--fail-first fails the first attempts of each delivery, then takes it and counts it', () => {
    const a = answerer({ failFirst: 2 });
    const payload = body();
    const statuses = [1, 2, 3].map((n) => a.decide(headersFor(payload, 'dlv_1', n), payload)).map((d) => [d.status, d.rule]);
    expect(statuses).toEqual([
      [500, 'fail_first'],
      [500, 'fail_first'],
      [200, 'respond_status'],
    ]);
    expect(a.tally.verified).toBe(1);
  });

  it('--fail-rate with a seed fails the same attempts whatever the order', () => {
    const decide = (order: number[]) => {
      const a = answerer({ failRate: 0.5, seed: 's7' });
      return Object.fromEntries(
        order.map((n) => {
          const payload = body('invoice.paid', `inv_${n}`);
          return [n, a.decide(headersFor(payload, `dlv_${n}`, 1), payload).rule];
        }),
      );
    };
    const numbers = Array.from({ length: 20 }, (_, i) => i + 1);
    const forward = decide(numbers);
    expect(decide(numbers.toReversed())).toEqual(forward);
    expect(Object.values(forward)).toContain('fail_rate');
    expect(Object.values(forward)).toContain('respond_status');
  });

  it('no secret yet: not checked, answered, not counted; with forwarding the app answers', () => {
    const payload = body();
    expect(answerer({}, { now: undefined }).decide(headersFor(payload, 'dlv_1', 1), payload)).toMatchObject({ signatureCheck: 'not_checked', status: 200 });
    const routed = answerer({ forwards: (event) => event === 'invoice.paid' });
    expect(routed.decide(headersFor(payload, 'dlv_1', 1), payload)).toMatchObject({ rule: 'forward' });
    // A delivery no route takes gets listen's own answer.
    const other = body('product.updated');
    expect(routed.decide(headersFor(other, 'dlv_2', 1), other)).toMatchObject({ rule: 'respond_status', status: 200 });
  });

  it('--events leaves other types out: answered, neither remembered nor counted', () => {
    const a = answerer({ events: ['sales_order.created'] });
    const payload = body('invoice.paid');
    expect(a.decide(headersFor(payload, 'dlv_1', 1), payload)).toMatchObject({ filtered: true, status: 200 });
    expect(a.tally).toEqual({ verified: 0, bad: 0, refused: 0 });
  });

  it('a request considered but not taken (its record could not be kept, answered 503) changes nothing: the same request again is new', () => {
    const a = answerer({ failFirst: 1 });
    const payload = body();
    const headers = headersFor(payload, 'dlv_1', 1);
    const dropped = a.consider(headers, payload);
    expect(dropped).toMatchObject({ repeat: null, rule: 'fail_first', attemptNumber: 1 });
    expect(a.tally).toEqual({ verified: 0, bad: 0, refused: 0 });
    // Not a replay, and still the first attempt --fail-first counts.
    expect(a.decide(headers, payload)).toMatchObject({ repeat: null, rule: 'fail_first', attemptNumber: 1, status: 500 });
    expect(a.decide(headersFor(payload, 'dlv_1', 2), payload)).toMatchObject({ repeat: 'retry', rule: 'respond_status', status: 200 });
    expect(a.tally).toEqual({ verified: 1, bad: 0, refused: 0 });
  });
});

describe('listen with several secrets (a receiver moving to a new one)', () => {
  it('a delivery signed with any of them is verified, and names the one that verified it; one signed with neither is refused', () => {
    const a = new Answerer({ respondStatus: 200, forwards: () => false }, () => [
      { name: 'old.txt', secret: 'whsec_old' },
      { name: 'new.txt', secret: 'whsec_new' },
    ]);
    const payload = body();
    expect(a.decide(headersFor(payload, 'dlv_1', 1, { secret: 'whsec_new' }), payload)).toMatchObject({
      signatureCheck: 'verified',
      verifiedBy: 'new.txt',
      status: 200,
    });
    expect(a.decide(headersFor(payload, 'dlv_2', 1, { secret: 'whsec_old' }), payload)).toMatchObject({
      signatureCheck: 'verified',
      verifiedBy: 'old.txt',
      status: 200,
    });
    expect(a.decide(headersFor(payload, 'dlv_3', 1, { secret: 'whsec_else' }), payload)).toMatchObject({
      signatureCheck: 'mismatch',
      verifiedBy: null,
      status: 400,
    });
  });
});
