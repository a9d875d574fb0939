import { appendFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Webhook } from '../../../../src/api/shapes.js';
import { journalPath, RotationJournal } from '../../../../src/commands/webhooks/rotate/journal.js';
import { lostTwins } from '../../../../src/commands/webhooks/rotate/lost-twin.js';
import { dueDeliveries, type OldLog, resendDue } from '../../../../src/commands/webhooks/rotate/old-deliveries.js';
import { tryProof } from '../../../../src/commands/webhooks/rotate/proof.js';
import { leftVerb, leftWords, unprovenText } from '../../../../src/commands/webhooks/rotate/words.js';
import { keepTrying } from '../../../../src/commands/webhooks/rotate/tries.js';
import { CliError } from '../../../../src/cli/errors.js';
import { FileError } from '../../../../src/files/user-file.js';
import { fakeDeps, finishFakeDeps, json, mockToken, T0 } from '../../../helpers/fake-deps.js';
import { instantWaitClock } from '../../../helpers/manual-clock.js';

// rotate-secret's parts that the sandbox never shows: a journal a kill cut or a user wrote, a service that answers a
// test send `pending` or says nothing of when a retry is due, and the waits of --wait. The whole command against the
// sandbox is in test/integration/rotate-secret.test.ts.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-rotate-'));
});
afterEach(async () => {
  await finishFakeDeps();
  rmSync(dir, { recursive: true, force: true });
});

/** The old webhook's log as a rotation reads it: failed records counted from a minute before T0; those settled kept. */
function oldLog(more: Partial<OldLog> = {}): OldLog & { settled: string[] } {
  const settled: string[] = [];
  return { webhookId: 'wh_old', notDue: () => settled, since: T0 - 60_000, settle: (records) => settled.push(...records), ...more, settled };
}

/** What `act` threw (the test fails when it throws nothing). */
function thrown(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

const IDS = { twin: 'wh_twin', old: 'wh_old' };
/** A journal opened without its lock: these tests open one again while the first is open. */
const UNHELD = { hold: false };
const MOVED = { service: 'http://127.0.0.1:4010', old: 'wh_old', url: 'https://example.com/hooks', events: ['invoice.paid'] };

describe('the rotate-secret journal', () => {
  it('keeps each line whole beside the secret file (0600), and reads back where the rotation stands', () => {
    const secretFile = join(dir, 'new.secret');
    expect(RotationJournal.open(secretFile, UNHELD).rotation).toBeUndefined();
    const journal = RotationJournal.open(secretFile, UNHELD);
    journal.start(MOVED);
    journal.write({ create: { others: ['wh_other'] } });
    expect(journal.rotation).toMatchObject({ createOpen: { others: ['wh_other'] }, twin: undefined });
    journal.write({ twin: 'wh_twin' });
    journal.write({ proof: 'dlv_proof' });
    journal.write({ switch: true });
    journal.write({ resumed_at: '2025-01-15T12:00:00.000Z' });
    journal.close();
    expect(journalPath(secretFile)).toBe(join(dir, '.new.secret.whsvc-rotate'));
    expect(statSync(journalPath(secretFile)).mode & 0o777).toBe(0o600);
    expect(RotationJournal.open(secretFile, UNHELD).rotation).toEqual({
      ...MOVED,
      createOpen: undefined,
      created: { others: ['wh_other'] },
      twin: 'wh_twin',
      proof: 'dlv_proof',
      switched: true,
      resumedAt: '2025-01-15T12:00:00.000Z',
      deleting: false,
      done: false,
    });
  });

  it('a last line a kill cut short is no line, and the next line is written whole after it', () => {
    const secretFile = join(dir, 'new.secret');
    const journal = RotationJournal.open(secretFile, UNHELD);
    journal.start(MOVED);
    journal.close();
    appendFileSync(journalPath(secretFile), '{"whsvc_rotate":1,"cre');
    const reopened = RotationJournal.open(secretFile, UNHELD);
    expect(reopened.rotation).toEqual({ ...MOVED, switched: false, deleting: false, done: false });
    reopened.write({ create: { others: [] } });
    reopened.close();
    expect(readFileSync(journalPath(secretFile), 'utf8').split('\n')).toEqual([
      expect.stringContaining('"start"'),
      '{"whsvc_rotate":1,"create":{"others":[]}}',
      '',
    ]);
  });

  it('a last line whole but for its newline (an editor dropped it) is a line, as a record file takes it: read, and given its newline', () => {
    const secretFile = join(dir, 'new.secret');
    const journal = RotationJournal.open(secretFile, UNHELD);
    journal.start(MOVED);
    journal.close();
    appendFileSync(journalPath(secretFile), '{"whsvc_rotate":1,"create":{"others":[]}}');
    const reopened = RotationJournal.open(secretFile, UNHELD);
    expect(reopened.rotation).toMatchObject({ createOpen: { others: [] } });
    reopened.write({ twin: 'wh_twin' });
    reopened.close();
    expect(readFileSync(journalPath(secretFile), 'utf8').split('\n')).toEqual([
      expect.stringContaining('"start"'),
      '{"whsvc_rotate":1,"create":{"others":[]}}',
      '{"whsvc_rotate":1,"twin":"wh_twin"}',
      '',
    ]);
  });

  it('a file there that whsvc did not write is refused, and left as it was', () => {
    const secretFile = join(dir, 'new.secret');
    writeFileSync(journalPath(secretFile), 'my notes\n');
    const refusal = (() => {
      try {
        RotationJournal.open(secretFile, UNHELD);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(FileError);
    expect((refusal as FileError).refused).toBe(true);
    expect((refusal as FileError).message).toContain("is not a journal whsvc wrote (its lines are not rotate-secret's): left as it was");
    expect(readFileSync(journalPath(secretFile), 'utf8')).toBe('my notes\n');
  });

  it('is held by one run at a time: another is refused before it reads; released, or left by a run that died, it is taken', () => {
    const secretFile = join(dir, 'new.secret');
    const first = RotationJournal.open(secretFile, { hold: true });
    const refusal = thrown(() => RotationJournal.open(secretFile, { hold: true }));
    expect(refusal).toBeInstanceOf(CliError);
    expect(refusal).toMatchObject({
      exitCode: 2,
      message: `another whsvc (process ${process.pid}) is rotating with --secret-file ${secretFile}: its journal is in use`,
    });
    first.release();
    RotationJournal.open(secretFile, { hold: true }).release();
    // A run killed while it held the journal (its process gone) leaves the lock behind.
    writeFileSync(`${journalPath(secretFile)}.lock`, JSON.stringify({ pid: 999_999_999, host: hostname(), nonce: 'dead' }));
    const after = RotationJournal.open(secretFile, { hold: true });
    after.release();
    expect(existsSync(`${journalPath(secretFile)}.lock`)).toBe(false);
  });

  it('a new rotation removes only the journal it read: one put in its place meanwhile is left, and the run stops', () => {
    const secretFile = join(dir, 'new.secret');
    const finished = RotationJournal.open(secretFile, UNHELD);
    finished.start(MOVED);
    finished.write({ done: true });
    finished.close();
    const journal = RotationJournal.open(secretFile, UNHELD);
    expect(journal.rotation?.done).toBe(true);
    // Another run's journal takes the path meanwhile.
    const theirs = `${journalPath(secretFile)}.theirs`;
    writeFileSync(theirs, `{"whsvc_rotate":1,"start":${JSON.stringify({ ...MOVED, old: 'wh_theirs' })}}\n`, { mode: 0o600 });
    renameSync(theirs, journalPath(secretFile));
    expect(thrown(() => journal.start({ ...MOVED, old: 'wh_mine' }))).toMatchObject({
      message: `the rotate-secret journal ${journalPath(secretFile)} was replaced since it was read: left as it is`,
    });
    expect(RotationJournal.open(secretFile, UNHELD).rotation?.old).toBe('wh_theirs');
  });
});

describe('rotate-secret against a service unlike the sandbox', () => {
  it('a test send answered pending is looked at again until it is settled', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const attempt = { id: 'dlv_t', webhook_id: 'wh_twin', event: 'invoice.paid', response_code: null, created_at: new Date(T0).toISOString() };
    fake.mock.intercept({ path: '/v1/webhooks/wh_twin/test', method: 'POST' }).reply(json(200, { ...attempt, status: 'pending' }));
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_t', method: 'GET' }).reply(json(200, { ...attempt, status: 'pending', attempts: 1 }));
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_t', method: 'GET' })
      .reply(json(200, { ...attempt, status: 'delivered', response_code: 204, attempts: 1 }));
    const journal = RotationJournal.open(join(dir, 'new.secret'), UNHELD);
    journal.start(MOVED);
    const { clock, sleeps } = instantWaitClock();
    const proof = await tryProof(fake.deps, journal, IDS, 'invoice.paid', clock);
    journal.close();
    expect(proof).toMatchObject({ verdict: 'taken', twin: { status: 'delivered', answer: 'answered 204' }, old: undefined });
    expect(sleeps).toEqual([1_000, 1_000]);
    expect(journal.rotation?.proof).toBe('dlv_t');
  });

  it("a service whose test send does not reach a paused webhook, while the old webhook's is answered: said so, by what it answers", async () => {
    const at = new Date(T0).toISOString();
    const attempt = (id: string, webhook: string, more: Record<string, unknown>) => ({
      id,
      webhook_id: webhook,
      event: 'invoice.paid',
      created_at: at,
      ...more,
    });
    // How such a service may answer the test send to the paused twin: held pending for ever, recorded failed with no
    // answer and no reason, or refused.
    const twinAnswers: Record<string, { answer: string; status: string; mock: (fake: ReturnType<typeof fakeDeps>) => void }> = {
      held: {
        answer: 'still pending after 15 s',
        status: 'pending',
        mock: (fake) => {
          const pending = attempt('dlv_t', 'wh_twin', { status: 'pending', response_code: null });
          fake.mock.intercept({ path: '/v1/webhooks/wh_twin/test', method: 'POST' }).reply(json(200, pending));
          fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_t', method: 'GET' }).reply(json(200, pending)).times(15);
        },
      },
      'not sent': {
        answer: 'recorded failed, with no answer and no reason',
        status: 'failed',
        mock: (fake) => {
          const failed = attempt('dlv_t', 'wh_twin', { status: 'failed', response_code: 0 });
          fake.mock.intercept({ path: '/v1/webhooks/wh_twin/test', method: 'POST' }).reply(json(200, failed));
          fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_t', method: 'GET' }).reply(json(200, { ...failed, attempts: 1 }));
        },
      },
      refused: {
        answer: 'the service refused to send it (HTTP 409: the webhook is inactive)',
        status: 'not_made',
        mock: (fake) => {
          const refusal = { error: { code: 'webhook_inactive', message: 'the webhook is inactive' } };
          fake.mock.intercept({ path: '/v1/webhooks/wh_twin/test', method: 'POST' }).reply(json(409, refusal));
        },
      },
    };
    for (const [name, twin] of Object.entries(twinAnswers)) {
      const fake = fakeDeps();
      mockToken(fake.mock);
      twin.mock(fake);
      const delivered = attempt('dlv_o', 'wh_old', { status: 'delivered', response_code: 200 });
      fake.mock.intercept({ path: '/v1/webhooks/wh_old/test', method: 'POST' }).reply(json(200, delivered));
      const journal = RotationJournal.open(join(dir, `${name}.secret`), UNHELD);
      journal.start(MOVED);
      const proof = await tryProof(fake.deps, journal, IDS, 'invoice.paid', instantWaitClock().clock);
      journal.close();
      expect(proof, name).toMatchObject({
        verdict: 'not_sent',
        twin: { status: twin.status, answer: twin.answer, unsent: true },
        old: { answer: 'answered 200' },
      });
      expect(unprovenText(proof, 'https://example.com/hooks')).toBe(
        `the service did not send its test delivery to the paused twin wh_twin (${name === 'refused' ? '' : 'dlv_t: '}${twin.answer}), ` +
          'and the one to wh_old, at the same URL, was answered (dlv_o: answered 200): its test send does not reach a paused webhook ' +
          '(the interface does not promise it; the sandbox does it), so nothing can show before the switch that the receiver takes the new secret',
      );
      await finishFakeDeps();
    }
  });

  it("the old webhook's attempts under way are waited for, never sent again beside them; one that fails meanwhile is sent", async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const at = new Date(T0).toISOString();
    const page = (data: unknown[]) => json(200, { data, has_more: false, next_cursor: null });
    const attempt = (id: string, status: string, code: number | null) => ({
      id,
      event: 'invoice.paid',
      status,
      response_code: code,
      attempts: 1,
      created_at: at,
      payload: { id: `inv_${id}` },
    });
    const list = (status: string) => fake.mock.intercept({ path: `/v1/webhooks/wh_old/deliveries?status=${status}&limit=200`, method: 'GET' });
    list('pending').reply(page([attempt('dlv_a', 'pending', null), attempt('dlv_b', 'pending', null)]));
    list('failed').reply(page([]));
    const get = (id: string) => fake.mock.intercept({ path: `/v1/webhooks/webhook-deliveries/${id}`, method: 'GET' });
    get('dlv_a').reply(json(200, attempt('dlv_a', 'pending', null)));
    get('dlv_a').reply(json(200, attempt('dlv_a', 'delivered', 200)));
    get('dlv_b').reply(json(200, { ...attempt('dlv_b', 'failed', 503), next_attempt_at: at }));
    // Only the one that failed is sent again.
    fake.mock
      .intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_b/retry', method: 'POST' })
      .reply(json(200, { id: 'dlv_b2', delivery_id: 'dlv_b', event: 'invoice.paid', status: 'delivered', response_code: 200, attempts: 2, created_at: at }));
    list('pending').reply(page([]));
    list('failed').reply(page([]));
    const { clock, sleeps } = instantWaitClock();
    const { resent, left } = await resendDue(fake.deps, oldLog(), clock);
    expect(resent).toEqual([{ delivery_id: 'dlv_b', event: 'invoice.paid', outcome: 'delivered' }]);
    expect(left).toEqual([]);
    expect(sleeps).toEqual([1_000, 1_000, 1_000]);
  });

  it('an attempt of the old webhook still under way after 15 s is left, not sent again: the old webhook stays', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const pending = {
      id: 'dlv_a',
      delivery_id: 'dlv_a',
      event: 'invoice.paid',
      status: 'pending',
      response_code: null,
      attempts: 1,
      created_at: new Date(T0).toISOString(),
    };
    fake.mock
      .intercept({ path: '/v1/webhooks/wh_old/deliveries?status=pending&limit=200', method: 'GET' })
      .reply(json(200, { data: [pending], has_more: false, next_cursor: null }));
    fake.mock
      .intercept({ path: '/v1/webhooks/wh_old/deliveries?status=failed&limit=200', method: 'GET' })
      .reply(json(200, { data: [], has_more: false, next_cursor: null }));
    fake.mock.intercept({ path: '/v1/webhooks/webhook-deliveries/dlv_a', method: 'GET' }).reply(json(200, pending)).times(15);
    const { resent, left } = await resendDue(fake.deps, oldLog(), instantWaitClock().clock);
    expect(resent).toEqual([]);
    expect(left).toEqual([{ delivery_id: 'dlv_a', event: 'invoice.paid', outcome: 'pending', reason: 'still pending after 15 s' }]);
    // Not "did not get through": it may yet.
    expect(`${leftVerb(left)}: ${leftWords(left)}`).toBe('is not delivered yet: dlv_a (still pending after 15 s)');
  });

  it('a service that does not say when a retry is due: a failed delivery made since the twin is due, once, by its newest attempt; an older one is not', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const at = new Date(T0).toISOString();
    const before = new Date(T0 - 60_000).toISOString();
    const failed = { event: 'invoice.paid', status: 'failed', response_code: 503 };
    const page = (data: unknown[]) => json(200, { data, has_more: false, next_cursor: null });
    fake.mock.intercept({ path: '/v1/webhooks/wh_old/deliveries?status=pending&limit=200', method: 'GET' }).reply(page([]));
    fake.mock.intercept({ path: '/v1/webhooks/wh_old/deliveries?status=failed&limit=200', method: 'GET' }).reply(
      page([
        { ...failed, id: 'dlv_b2', delivery_id: 'dlv_b', attempts: 2, created_at: at },
        { ...failed, id: 'dlv_b', delivery_id: 'dlv_b', attempts: 1, created_at: at },
        { ...failed, id: 'dlv_a', attempts: 1, created_at: at, payload: { id: 'inv_a' } },
        // Failed before the rotation began: the service retried it, or gave up on it.
        { ...failed, id: 'dlv_c', attempts: 1, created_at: before, payload: { id: 'inv_c' } },
        { ...failed, id: 'dlv_d', delivery_id: 'dlv_d', attempts: 1, created_at: before },
      ]),
    );
    expect(await dueDeliveries(fake.deps.api, oldLog({ since: T0 - 2_000 }))).toEqual([
      { attempt: expect.objectContaining({ id: 'dlv_b2' }), records: ['dlv_b2', 'dlv_b'] },
      { attempt: expect.objectContaining({ id: 'dlv_a' }), records: ['dlv_a'] },
    ]);
  });

  it('a log without delivery ids: the failed records of one delivery (one event, one payload) are sent again once, by the newest', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const at = (seconds: number) => new Date(T0 + seconds * 1_000).toISOString();
    const failed = (id: string, seconds: number) => ({ id, event: 'invoice.paid', status: 'failed', response_code: 503, created_at: at(seconds) });
    const page = (data: unknown[]) => json(200, { data, has_more: false, next_cursor: null });
    fake.mock.intercept({ path: '/v1/webhooks/wh_old/deliveries?status=pending&limit=200', method: 'GET' }).reply(page([]));
    // Three attempts of one event, and one of another event of the same invoice: the list gives no payload.
    fake.mock
      .intercept({ path: '/v1/webhooks/wh_old/deliveries?status=failed&limit=200', method: 'GET' })
      .reply(page([failed('dlv_3', 30), failed('dlv_x', 25), failed('dlv_2', 20), failed('dlv_1', 10)]));
    const payloads: Record<string, unknown> = {
      dlv_1: { id: 'inv_1', amount: 100 },
      dlv_2: { amount: 100, id: 'inv_1' },
      dlv_3: { id: 'inv_1', amount: 100 },
      dlv_x: { id: 'inv_1', amount: 200 },
    };
    for (const [id, payload] of Object.entries(payloads)) {
      fake.mock.intercept({ path: `/v1/webhooks/webhook-deliveries/${id}`, method: 'GET' }).reply(json(200, { ...failed(id, 0), payload }));
    }
    expect((await dueDeliveries(fake.deps.api, oldLog())).map(({ attempt, records }) => [attempt.id, records])).toEqual([
      ['dlv_3', ['dlv_3', 'dlv_2', 'dlv_1']],
      ['dlv_x', ['dlv_x']],
    ]);
  });

  it('a delivery that got through (delivered, or answered 409: delivered already) is settled: never sent again, though its record stays failed', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const at = new Date(T0).toISOString();
    const failed = (id: string) => ({ id, event: 'invoice.paid', status: 'failed', response_code: 503, created_at: at, payload: { id: `inv_${id}` } });
    const page = (data: unknown[]) => json(200, { data, has_more: false, next_cursor: null });
    const list = (status: string) => fake.mock.intercept({ path: `/v1/webhooks/wh_old/deliveries?status=${status}&limit=200`, method: 'GET' });
    const retry = (id: string) => fake.mock.intercept({ path: `/v1/webhooks/webhook-deliveries/${id}/retry`, method: 'POST' });
    // Each pass lists the same failed records: a service that keeps the record of a failed attempt as it was.
    for (let pass = 0; pass < 2; pass += 1) {
      list('pending').reply(page([]));
      list('failed').reply(page([failed('dlv_a'), failed('dlv_b')]));
    }
    retry('dlv_a').reply(json(409, { error: { code: 'conflict', message: 'delivered already' } }));
    retry('dlv_b').reply(json(200, { ...failed('dlv_b2'), status: 'delivered', response_code: 200 }));
    const log = oldLog();
    const { resent, left } = await resendDue(fake.deps, log, instantWaitClock().clock);
    expect(left).toEqual([]);
    expect(resent.map(({ delivery_id, outcome }) => [delivery_id, outcome]).sort()).toEqual([
      ['dlv_a', 'already_delivered'],
      ['dlv_b', 'delivered'],
    ]);
    expect([...log.settled].sort()).toEqual(['dlv_a', 'dlv_b']);
  });
});

describe('--wait', () => {
  it('tries once without a wait; with one, again after pauses that double up to 15 s, the last when the wait ends', async () => {
    const { clock, sleeps } = instantWaitClock();
    let tries = 0;
    const never = () => Promise.resolve(++tries);
    expect(
      await keepTrying(
        clock,
        0,
        never,
        () => false,
        () => {},
      ),
    ).toBe(1);
    expect(sleeps).toEqual([]);
    tries = 0;
    const lefts: number[] = [];
    expect(
      await keepTrying(
        clock,
        60_000,
        never,
        () => false,
        (_, left) => lefts.push(left),
      ),
    ).toBe(8);
    expect(sleeps).toEqual([2_000, 4_000, 8_000, 15_000, 15_000, 15_000, 1_000]);
    expect(lefts).toEqual([60_000, 58_000, 54_000, 46_000, 31_000, 16_000, 1_000]);
    tries = 0;
    expect(
      await keepTrying(
        clock,
        60_000,
        never,
        (tried) => tried === 3,
        () => {},
      ),
    ).toBe(3);
  });
});

describe('a create whose answer was lost', () => {
  it('is known by evidence: paused, with the events it asked for, made since it was sent, not there before; of those named, the ones kept stay', () => {
    const at = new Date(T0).toISOString();
    const webhook = (id: string, more: Partial<Webhook> = {}): Webhook => ({
      id,
      url: 'https://example.com/hooks',
      events: ['sales_order.created', 'invoice.paid'],
      active: false,
      created_at: new Date(T0 + 1_000).toISOString(),
      ...more,
    });
    const sent = { others: ['wh_before'], events: ['invoice.paid', 'sales_order.created'], at };
    const atUrl = [
      webhook('wh_twin'),
      webhook('wh_before'),
      webhook('wh_active', { active: true }),
      webhook('wh_events', { events: ['invoice.paid'] }),
      webhook('wh_older', { created_at: new Date(T0 - 60_000).toISOString() }),
      // The service's time as whsvc reckons it may be seconds off: a webhook made a moment "before" is still taken.
      webhook('wh_moment', { created_at: new Date(T0 - 3_000).toISOString() }),
    ];
    const old = webhook('wh_old', { active: true, created_at: new Date(T0 - 120_000).toISOString() });
    expect(lostTwins(sent, atUrl, old).map((one) => one.id)).toEqual(['wh_twin', 'wh_moment']);
    // Named, and one of them deleted since: the others are the user's.
    expect(lostTwins({ ...sent, named: ['wh_twin', 'wh_moment'] }, atUrl.slice(1), old).map((one) => one.id)).toEqual([]);
    expect(lostTwins({ ...sent, named: ['wh_twin', 'wh_moment'] }, atUrl, old).map((one) => one.id)).toEqual(['wh_twin', 'wh_moment']);
    // A create journaled without its time (an earlier whsvc): never one made before the old webhook.
    const untimed = { others: ['wh_before'], events: sent.events };
    expect(lostTwins(untimed, [...atUrl, webhook('wh_ancient', { created_at: new Date(T0 - 180_000).toISOString() })], old).map((one) => one.id)).toEqual([
      'wh_twin',
      'wh_older',
      'wh_moment',
    ]);
  });
});
