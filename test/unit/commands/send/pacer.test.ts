import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TransportRequest, TransportResponse } from '../../../../src/api/transport.js';
import { ArrivalPlan, phasesOf } from '../../../../src/commands/send/arrivals.js';
import { Deliveries, Pacer } from '../../../../src/commands/send/pacer.js';
import { TransportError } from '../../../../src/net.js';
import { EVENT_TYPES } from '../../../../src/protocol/catalog.js';
import { flushPromises, ManualClock } from '../../../helpers/manual-clock.js';

const SECRET = 'whsec_pacer_test';
const URL_ = new URL('http://127.0.0.1:9/hooks');

/** A receiver that answers only when the test says: what was sent, and a way to answer each. */
function heldTransport() {
  const open: Array<{ request: TransportRequest; answer: (outcome: TransportResponse | TransportError) => void }> = [];
  const sent: TransportRequest[] = [];
  const transport = (request: TransportRequest) =>
    new Promise<TransportResponse>((resolve, reject) => {
      sent.push(request);
      open.push({ request, answer: (outcome) => (outcome instanceof TransportError ? reject(outcome) : resolve(outcome)) });
    });
  const answer = async (count: number, outcome: TransportResponse | TransportError = { status: 200, headers: {}, text: 'ok' }) => {
    for (const each of open.splice(0, count)) each.answer(outcome);
    await flushPromises();
  };
  return { transport, sent, open, answer };
}

function pacerFor(options: { perSecond: number; durationMs: number; maxInFlight?: number; repeatShare?: number; stop?: AbortSignal }) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 9, 0, 0));
  const receiver = heldTransport();
  let caps = 0;
  const plan = new ArrivalPlan(phasesOf(options.perSecond, options.durationMs, []));
  const deliveries = new Deliveries({
    events: EVENT_TYPES,
    repeatShare: options.repeatShare ?? 0,
    secret: SECRET,
    platformName: 'Service',
    userAgent: 'whsvc/test (send)',
  });
  const pacer = new Pacer(URL_, plan, { timeoutMs: 10_000, maxInFlight: options.maxInFlight ?? 10_000 }, deliveries, {
    transport: receiver.transport,
    timers: clock,
    elapsedMs: () => clock.now(),
    stop: options.stop,
    onCap: () => (caps += 1),
  });
  let ended = false;
  const run = pacer.run().finally(() => (ended = true));
  return { clock, receiver, pacer, run, ended: () => ended, caps: () => caps };
}

const header = (request: TransportRequest, name: string) => request.headers[name];
const bodyOf = (request: TransportRequest) => Buffer.from(request.body as Uint8Array).toString('utf8');

describe('send --rate: the pacer', () => {
  it('starts each delivery when it is due by the clock, whether or not any was answered (an open model)', async () => {
    const s = pacerFor({ perSecond: 200, durationMs: 2000 });
    await s.clock.runDue();
    expect(s.receiver.sent).toHaveLength(1);
    await s.clock.advance(1000);
    // Due at 0, 5, …, 1000 ms: 201, none answered.
    expect(s.receiver.sent).toHaveLength(201);
    expect(s.pacer.inFlight).toBe(201);
    await s.clock.advance(1000);
    expect(s.receiver.sent).toHaveLength(400);
    // The duration is over; the run waits for those open, each up to its own limit.
    expect(s.ended()).toBe(false);
    await s.receiver.answer(399);
    expect(s.ended()).toBe(false);
    await s.receiver.answer(1);
    const stats = await s.run;
    expect(stats).toMatchObject({ sent: 400, missed: 0, late: 0, cancelled: 0, arrivalsMs: 2000 });
    expect(stats.answers['2xx']).toBe(400);
    expect(Array.from(stats.perSecond.sent)).toEqual([200, 200]);
  });

  it('holds deliveries due at the cap of open requests, says so once, starts them late as answers come, and counts those never started', async () => {
    const s = pacerFor({ perSecond: 100, durationMs: 1000, maxInFlight: 10 });
    await s.clock.advance(500);
    expect(s.receiver.sent).toHaveLength(10);
    expect(s.caps()).toBe(1);
    // Five answers: five more start, the first of them due at 100 ms, now at 500 ms.
    await s.receiver.answer(5);
    expect(s.receiver.sent).toHaveLength(15);
    expect(s.caps()).toBe(1);
    await s.clock.advance(500);
    expect(s.receiver.sent).toHaveLength(15);
    await s.receiver.answer(10);
    const stats = await s.run;
    expect(stats).toMatchObject({ sent: 15, missed: 85, late: 5, mostLateMs: 400, capReachedAt: 0 });
  });

  it('counts each answer by class and each failure by kind, in the second it was due', async () => {
    const s = pacerFor({ perSecond: 2, durationMs: 2000 });
    await s.clock.advance(2000);
    await s.receiver.answer(1, { status: 200, headers: {}, text: '' });
    await s.receiver.answer(1, { status: 503, headers: {}, text: '' });
    await s.receiver.answer(1, new TransportError('connection reset', 'ECONNRESET', true));
    await s.receiver.answer(1, new TransportError('no answer within 10 s', 'ETIMEDOUT', true));
    const stats = await s.run;
    expect(stats.answers).toMatchObject({ '2xx': 1, '5xx': 1 });
    expect(stats.noAnswer).toMatchObject({ reset: 1, timed_out: 1 });
    expect(Array.from(stats.perSecond.failed)).toEqual([1, 2]);
    expect(stats.failingSince()).toBe(0);
  });

  it('ends at a stop with what it saw, those still open counted as cut off and never waited for', async () => {
    const stop = new AbortController();
    const s = pacerFor({ perSecond: 100, durationMs: 10_000, stop: stop.signal });
    await s.clock.advance(500);
    await s.receiver.answer(20);
    stop.abort();
    const stats = await s.run;
    expect(stats).toMatchObject({ sent: 51, cancelled: 31, arrivalsMs: 500 });
    // What ends after the stop changes nothing.
    await s.receiver.answer(31);
    expect(stats.answers['2xx']).toBe(20);
    expect(s.clock.pendingTimers).toBe(0);
  });
});

describe('send --rate: after this machine held the pacer off its CPU', () => {
  /** Timers that fire only when the test says, at the time it sets: a stall is time moved on with nothing fired. */
  function stalledTimers() {
    let now = Date.UTC(2026, 10, 30, 9, 0, 0);
    const due: Array<() => void> = [];
    return {
      timers: {
        now: () => now,
        setTimeout: (callback: () => void) => due.push(callback),
        clearTimeout: () => {},
      },
      moveOn: (ms: number) => (now += ms),
      fire: async () => {
        for (const callback of due.splice(0)) callback();
        await flushPromises();
      },
    };
  }

  it('starts what fell due meanwhile 100 at a time, reading the answers in between: its own stall does not fill the cap', async () => {
    const clock = stalledTimers();
    const receiver = heldTransport();
    let caps = 0;
    const plan = new ArrivalPlan(phasesOf(10_000, 1000, []));
    const deliveries = new Deliveries({ events: EVENT_TYPES, repeatShare: 0, secret: SECRET, platformName: 'Service', userAgent: 'whsvc/test (send)' });
    const pacer = new Pacer(URL_, plan, { timeoutMs: 10_000, maxInFlight: 150 }, deliveries, {
      transport: receiver.transport,
      timers: clock.timers,
      elapsedMs: () => clock.timers.now(),
      onCap: () => (caps += 1),
    });
    const run = pacer.run();
    expect(receiver.sent).toHaveLength(1);
    // 30 ms with the CPU elsewhere: 300 more fell due.
    clock.moveOn(30);
    await clock.fire();
    expect(receiver.sent).toHaveLength(101);
    for (let turn = 0; turn < 3; turn++) {
      await receiver.answer(receiver.open.length);
      await clock.fire();
    }
    expect(receiver.sent).toHaveLength(301);
    expect(caps).toBe(0);
    expect(pacer.stats.capReachedAt).toBeUndefined();
    clock.moveOn(1000);
    await clock.fire();
    await receiver.answer(receiver.open.length);
    while (receiver.open.length > 0 || receiver.sent.length < 10_000) {
      await clock.fire();
      await receiver.answer(receiver.open.length);
    }
    expect((await run).sent).toBe(10_000);
  });
});

describe('send --rate: the deliveries', () => {
  it("are the catalog's event types in turn, each signed over its bytes, a fresh id, attempt 1, dated by the run's clock", async () => {
    const s = pacerFor({ perSecond: 10, durationMs: 1000 });
    await s.clock.advance(1000);
    const sent = s.receiver.sent;
    expect(sent.map((r) => header(r, 'X-Service-Event'))).toEqual([...EVENT_TYPES, ...EVENT_TYPES]);
    for (const request of sent) {
      expect(header(request, 'X-Service-Signature')).toBe(`sha256=${createHmac('sha256', SECRET).update(bodyOf(request)).digest('hex')}`);
      expect(header(request, 'X-Service-Attempt')).toBe('1');
      expect(JSON.parse(bodyOf(request)).event).toBe(header(request, 'X-Service-Event'));
    }
    expect(new Set(sent.map((r) => header(r, 'X-Service-Delivery-Id'))).size).toBe(10);
    expect(header(sent[3]!, 'date')).toBe(new Date(Date.UTC(2026, 10, 30, 9, 0, 0)).toUTCString());
    await s.receiver.answer(10);
  });

  it('repeats the share asked, spread evenly: a delivery sent before, once, with its id and bytes and attempt 2', async () => {
    const s = pacerFor({ perSecond: 100, durationMs: 2000, repeatShare: 0.05 });
    await s.clock.advance(2000);
    const sent = s.receiver.sent;
    const repeats = sent.filter((r) => header(r, 'X-Service-Attempt') === '2');
    expect(repeats).toHaveLength(10);
    expect(sent.findIndex((r) => header(r, 'X-Service-Attempt') === '2')).toBe(19);
    const firsts = new Map(sent.filter((r) => header(r, 'X-Service-Attempt') === '1').map((r) => [header(r, 'X-Service-Delivery-Id'), r]));
    expect(firsts.size).toBe(190);
    for (const repeat of repeats) {
      const first = firsts.get(header(repeat, 'X-Service-Delivery-Id'));
      expect(first, 'a repeat is of a delivery sent before').toBeDefined();
      expect(sent.indexOf(first!)).toBeLessThan(sent.indexOf(repeat));
      expect(bodyOf(repeat)).toBe(bodyOf(first!));
      expect(header(repeat, 'X-Service-Signature')).toBe(header(first!, 'X-Service-Signature'));
      expect(header(repeat, 'X-Service-Attempt-Id')).not.toBe(header(first!, 'X-Service-Attempt-Id'));
    }
    expect(new Set(repeats.map((r) => header(r, 'X-Service-Delivery-Id'))).size).toBe(10);
    await s.receiver.answer(200);
    expect((await s.run).repeats).toBe(10);
  });
});
