import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTransport } from '../../src/api/transport.js';
import { spike, type Spike } from '../../src/commands/send/arrivals.js';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_REPEAT_SHARE, type Load } from '../../src/commands/send/load.js';
import { run, type SendOptions } from '../../src/commands/send/send.js';
import { PrintedJson } from '../../src/cli/json-output.js';
import { EVENT_TYPES } from '../../src/protocol/catalog.js';
import { Collector, fakeStdin } from '../helpers/fake-deps.js';
import { startInProcess } from '../helpers/in-process.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { type Received, type Receiver, startReceiver } from '../helpers/receiver.js';

// send --rate against real receivers on 127.0.0.1 (issue 43, "a peak day, tried"). The deliveries are due by a manual
// clock that the test moves, so that ten seconds of a run take what the requests take; the requests, the receivers and
// the answer times are real. One run in-process on this machine's clock, stopped by Ctrl-C.

const SECRET = 'whsec_send_rate_0123456789';
/** A whole second, as a Date header says the time: the receiver that fails from 5 s reads it. */
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-send-rate-'));
  writeFileSync(join(dir, 'whsec.txt'), `${SECRET}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const secretFile = () => join(dir, 'whsec.txt');

/** Whether the delivery's signature is the HMAC-SHA256 of its bytes under the secret, as a receiver checks it. */
function verifies(request: Received): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(request.bytes).digest('hex')}`);
  const given = Buffer.from(String(request.headers['x-service-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function loadOf(perSecond: number, durationMs: number, more: Partial<Omit<Load, 'spikes'>> & { spikes?: string[] } = {}): Load {
  return {
    perSecond,
    durationMs,
    repeatShare: DEFAULT_REPEAT_SHARE,
    maxInFlight: DEFAULT_MAX_IN_FLIGHT,
    yes: false,
    ...more,
    spikes: (more.spikes ?? []).reduce<Spike[]>((all, value) => spike(value, all), []),
  };
}

/** `send URL --secret-file F --rate … --duration …` run on a manual clock: start it, then move the clock with `drive`. */
function startLoad(url: string, load: Load, options: Partial<SendOptions> = {}, terminal = false) {
  const clock = new ManualClock(T0);
  const stdout = new Collector();
  const stderr = new Collector(terminal, 100);
  const deps = { stdin: fakeStdin(), stdout, stderr, env: {}, jsonOut: new PrintedJson(stdout), transport: defaultTransport({}), timers: clock };
  const sendOptions: SendOptions = {
    url,
    set: [],
    secretFile: secretFile(),
    platformName: 'Service',
    timeoutMs: 10_000,
    json: false,
    color: false,
    load,
    ...options,
  };
  const exit = run(sendOptions, deps);
  return { clock, stdout, stderr, exit };
}

/**
 * Moves the clock through the run in steps of `stepMs`, waiting after each step until the receiver has every delivery
 * due by then (`dueBy`): the deliveries go as fast as this machine sends them, each when the clock says it is due.
 */
async function drive(clock: ManualClock, receiver: Receiver, durationMs: number, dueBy: (ms: number) => number, stepMs = 100): Promise<void> {
  for (let at = stepMs; at <= durationMs; at += stepMs) {
    await clock.advanceTo(T0 + at);
    await receiver.waitFor(dueBy(at));
  }
}

/** Those due by `ms` at 200 a second for 10 s: one every 5 ms from 0. */
const at200 = (ms: number) => Math.min(2000, Math.floor(ms / 5) + 1);

describe('send --rate', () => {
  it('200 a second for 10 s: about 2,000 signed deliveries (within 2%), mixed event types, 5% repeats; --json says it', async () => {
    const receiver = await startReceiver(() => 200);
    const load = startLoad(receiver.url, loadOf(200, 10_000), { json: true });
    await drive(load.clock, receiver, 10_000, at200);
    expect(await load.exit).toBe(0);
    const received = receiver.received;
    expect(Math.abs(received.length - 2000)).toBeLessThanOrEqual(40);
    expect(received.filter((request) => !verifies(request))).toEqual([]);
    const repeats = received.filter((request) => request.headers['x-service-attempt'] === '2');
    expect(repeats.length).toBe(100);
    const firsts = new Set(received.filter((r) => r.headers['x-service-attempt'] === '1').map((r) => r.headers['x-service-delivery-id']));
    expect(firsts.size).toBe(received.length - repeats.length);
    for (const repeat of repeats) expect(firsts.has(repeat.headers['x-service-delivery-id'])).toBe(true);
    expect(new Set(received.map((r) => r.headers['x-service-event']))).toEqual(new Set(EVENT_TYPES));
    const document = JSON.parse(load.stdout.text);
    expect(document).toMatchObject({
      url: `${receiver.url}/`,
      rate: 200,
      duration_ms: 10_000,
      due: 2000,
      sent: received.length,
      achieved_rate: 200,
      repeats: 100,
      repeat_share: 0.05,
      missed: 0,
      late_starts: 0,
      answers: { '2xx': 2000, '3xx': 0, '4xx': 0, '5xx': 0 },
      no_answer: { refused: 0, reset: 0, timed_out: 0, broken: 0, local: 0, other: 0 },
      failed: 0,
      failing_since_s: null,
      time_limit_ms: 10_000,
      interrupted: false,
    });
    // A loopback answer in this process can take less than a twentieth of a millisecond: 0 to one decimal.
    expect(document.answer_ms.p50).toBeGreaterThanOrEqual(0);
    expect(document.answer_ms.p99).toBeGreaterThanOrEqual(document.answer_ms.p50);
    expect(document.seconds).toHaveLength(10);
    expect(document.seconds.every((s: { sent: number; ok: number }) => s.sent === 200 && s.ok === 200)).toBe(true);
    await receiver.close();
  });

  it('against a receiver that answers 503 from 5 s on: the errors, and the second they began', async () => {
    // The receiver's time is the delivery's Date, set by the run's clock.
    const receiver = await startReceiver((request) => (Date.parse(String(request.headers.date)) >= T0 + 5000 ? 503 : 200));
    const load = startLoad(receiver.url, loadOf(200, 10_000));
    await drive(load.clock, receiver, 10_000, at200);
    expect(await load.exit).toBe(1);
    const lines = load.stdout.text.split('\n');
    const line = (key: string) => lines.find((l) => l.startsWith(`${key}  `))?.replace(/ {2,}/, '  ');
    expect(line('sent')).toBe('sent  2,000 in 10 s, 200 a second (100 repeats: a delivery sent again, same delivery id, attempt 2)');
    expect(line('answered')).toBe('answered  1,000 2xx, 1,000 5xx');
    expect(line('failing')).toBe('failing  from second 5 (5 s into the run): more than 1% of the deliveries due in it failed');
    expect(line('result')).toBe('result  1,000 of 2,000 failed (anything but a 2xx within 10 s)');
    expect(line('answer time')).toMatch(/^answer time {2}p50 [\d.]+ m?s, p99 [\d.]+ m?s, slowest [\d.]+ m?s$/);
    await receiver.close();
  });

  it('a spike: ten times the rate for its while, said with what was sent in it', async () => {
    const receiver = await startReceiver(() => 204);
    const load = startLoad(receiver.url, loadOf(20, 3000, { spikes: ['10x@1s+1s'], repeatShare: 0 }), { json: true });
    // 20 a second (every 50 ms) for a second, 200 (every 5 ms) for the next, then 20 again: 240.
    const dueBy = (ms: number) => Math.min(240, ms <= 1000 ? ms / 50 + 1 : ms <= 2000 ? 20 + (ms - 1000) / 5 + 1 : 220 + (ms - 2000) / 50 + 1);
    await drive(load.clock, receiver, 3000, dueBy);
    expect(await load.exit).toBe(0);
    const document = JSON.parse(load.stdout.text);
    expect(document.phases).toEqual([
      { from_ms: 0, to_ms: 1000, rate: 20, spike: null, due: 20, sent: 20, achieved_rate: 20 },
      { from_ms: 1000, to_ms: 2000, rate: 200, spike: '10x@1s+1s', due: 200, sent: 200, achieved_rate: 200 },
      { from_ms: 2000, to_ms: 3000, rate: 20, spike: null, due: 20, sent: 20, achieved_rate: 20 },
    ]);
    expect(document.seconds.map((s: { sent: number }) => s.sent)).toEqual([20, 200, 20]);
    expect(receiver.received).toHaveLength(240);
    await receiver.close();
  });

  it('no answer, by kind: time-outs at the limit, refusals', async () => {
    const hanging = await startReceiver(() => 'hold');
    const held = startLoad(hanging.url, loadOf(5, 1000, { repeatShare: 0 }), { timeoutMs: 300 });
    await held.clock.advance(1000);
    expect(await held.exit).toBe(1);
    expect(held.stdout.text).toMatch(/^no answer +5 timed out at 300 ms$/m);
    expect(held.stdout.text).toMatch(/^failing +from second 0 \(0 s into the run\)/m);
    await hanging.close();

    const port = await closedPort();
    const refused = startLoad(`http://127.0.0.1:${port}/hooks`, loadOf(5, 1000, { repeatShare: 0 }), { json: true });
    await refused.clock.advance(1000);
    expect(await refused.exit).toBe(1);
    const document = JSON.parse(refused.stdout.text);
    expect(document).toMatchObject({
      sent: 5,
      answers: { '2xx': 0 },
      no_answer: { refused: 5 },
      failed: 5,
      failing_since_s: 0,
      answer_ms: { p50: null, p99: null },
    });
  });

  it('the cap of open requests: reached and said once, the deliveries due start late as answers come, those never started are counted', async () => {
    const slow = await startReceiver(() => 'hold');
    const load = startLoad(slow.url, loadOf(10, 2000, { maxInFlight: 5, repeatShare: 0 }));
    // Due every 100 ms: five start, and at 500 ms the sixth finds five open.
    await load.clock.advance(1000);
    await slow.waitFor(5);
    expect(load.stderr.text).toBe('whsvc send: 5 requests open at once, the cap (--max-in-flight): deliveries due wait for an answer, and start late\n');
    // Five answers at 1,000 ms: those due at 500 to 900 ms start, 500 to 100 ms late.
    slow.release();
    await slow.waitFor(10);
    await load.clock.advance(1000);
    slow.release();
    expect(await load.exit).toBe(1);
    const report = load.stdout.text;
    expect(report).toMatch(/^sent +10 in 2 s, 5 a second$/m);
    expect(report).toMatch(/^answered +10 2xx$/m);
    expect(report).toMatch(/^result +0 of 10 failed \(anything but a 2xx within 10 s\); 10 due were never sent$/m);
    expect(report).toMatch(/^late starts +4 more than 100 ms after they were due, the latest by 500 ms$/m);
    expect(report).toMatch(/^cap +5 open at once from second 0 \(--max-in-flight\): deliveries due waited for an answer$/m);
    expect(report).toMatch(/^never sent +10 of the 20 due: the run ended while the cap held them back$/m);
    expect(load.stderr.text.match(/the cap/g)).toHaveLength(1);
    await slow.close();
  });

  it('Ctrl-C ends it with the report so far, exit 130, without waiting for the requests still open', async () => {
    const receiver = await startReceiver((request) => (receiver.received.indexOf(request) < 5 ? 200 : 'hold'));
    const load = startInProcess(['send', receiver.url, '--secret-file', secretFile(), '--rate', '50', '--duration', '1h']);
    await receiver.waitFor(8);
    expect(await load.stop('SIGINT')).toBe(130);
    expect(load.stdout()).toMatch(/^result +stopped after [\d.]+ m?s: \d+ open were not waited for; 0 of \d+ failed/m);
    expect(load.stdout()).toMatch(/^answered +5 2xx$/m);
    expect(load.signalListeners()).toBe(0);
    await receiver.close();
  });
});

/** A port of this machine that nothing listens on (bound, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
