import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClock } from '../../../src/api/client.js';
import { run as show } from '../../../src/commands/deliveries/show.js';
import { clockTime, statusWords } from '../../../src/render/words.js';
import { T0, fakeDeps, finishFakeDeps, json, mockToken } from '../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(ms).toISOString();

describe("ServiceClock: the service's now, from its Date header", () => {
  it("is this machine's clock until the service answers, and after an answer without a date", () => {
    let local = T0;
    const clock = new ServiceClock(() => local);
    expect(clock.known).toBe(false);
    expect(clock.now()).toBe(T0);
    clock.note(undefined, local);
    expect(clock.known).toBe(true);
    local += 1000;
    expect(clock.now()).toBe(T0 + 1000);
  });

  it("follows a service whose clock is days ahead (a moved sandbox), and moves on with this machine's", () => {
    let local = T0;
    const clock = new ServiceClock(() => local);
    clock.note(new Date(T0 + 3 * DAY).toUTCString(), T0);
    // A Date header counts whole seconds: the middle of its second is the guess.
    expect(clock.now()).toBe(T0 + 3 * DAY + 500);
    local += 10_000;
    expect(clock.now()).toBe(T0 + 3 * DAY + 10_500);
  });

  it('reads an offset under two seconds, within what a Date header can tell, as none', () => {
    const clock = new ServiceClock(() => T0);
    clock.note(new Date(T0 - 1000).toUTCString(), T0);
    expect(clock.now()).toBe(T0);
    clock.note('not a date', T0);
    expect(clock.now()).toBe(T0);
  });
});

describe('statusWords and clockTime: one way to say a state and a time of day', () => {
  it('a failed delivery with its retry scheduled says when; any other status is its word alone', () => {
    const due = at(T0 + 90_000);
    const time = new Date(T0 + 90_000).toTimeString().slice(0, 8);
    expect(statusWords('failed', due, T0)).toBe(`failed · retry due ${time}`);
    expect(statusWords('failed', null, T0)).toBe('failed');
    // A table's column: the time left out, so that it fits beside a whole id.
    expect(statusWords('failed', due)).toBe('failed · retry due');
    expect(statusWords('delivered', due, T0)).toBe('delivered');
    expect(statusWords('pending', undefined, T0)).toBe('pending');
  });

  it('a time of another day than now carries its date', () => {
    const later = new Date(T0 + 2 * DAY);
    const date = `${later.getFullYear()}-${String(later.getMonth() + 1).padStart(2, '0')}-${String(later.getDate()).padStart(2, '0')}`;
    expect(clockTime(at(T0 + 2 * DAY), T0)).toBe(`${date} ${later.toTimeString().slice(0, 8)}`);
    expect(clockTime('garbage', T0)).toBe('--:--:--');
  });
});

describe("relative times count from the service's now", () => {
  it('deliveries show: an attempt made 2 hours before the service\'s now reads "2 hours ago", whatever this machine\'s clock says', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const serviceNow = T0 + 3 * DAY;
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_1', method: 'GET' }).reply(
      json(
        200,
        {
          id: 'dlv_1',
          webhook_id: 'wh_1',
          event: 'invoice.paid',
          status: 'failed',
          response_code: 500,
          attempts: 1,
          created_at: at(serviceNow - 2 * HOUR),
          next_attempt_at: at(serviceNow + 60_000),
        },
        { date: new Date(serviceNow).toUTCString() },
      ),
    );
    expect(await show({ id: 'dlv_1' }, fake.deps)).toBe(0);
    expect(fake.stdout.text).toMatch(/^created\s+2 hours ago \(/m);
    expect(fake.stdout.text).toMatch(new RegExp(`^status\\s+failed · retry due ${new Date(serviceNow + 60_000).toTimeString().slice(0, 8)}$`, 'm'));
  });
});
