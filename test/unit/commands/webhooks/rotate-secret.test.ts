import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPath, RotationJournal } from '../../../../src/commands/webhooks/rotate/journal.js';
import { dueDeliveries } from '../../../../src/commands/webhooks/rotate/old-deliveries.js';
import { tryProof } from '../../../../src/commands/webhooks/rotate/proof.js';
import { keepTrying } from '../../../../src/commands/webhooks/rotate/tries.js';
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

const MOVED = { service: 'http://127.0.0.1:4010', old: 'wh_old', url: 'https://example.com/hooks', events: ['invoice.paid'] };

describe('the rotate-secret journal', () => {
  it('keeps each line whole beside the secret file (0600), and reads back where the rotation stands', () => {
    const secretFile = join(dir, 'new.secret');
    expect(RotationJournal.open(secretFile).rotation).toBeUndefined();
    const journal = RotationJournal.open(secretFile);
    journal.start(MOVED);
    journal.write({ create: { others: ['wh_other'] } });
    expect(journal.rotation).toMatchObject({ createOpen: ['wh_other'], twin: undefined });
    journal.write({ twin: 'wh_twin' });
    journal.write({ proof: 'dlv_proof' });
    journal.write({ switch: true });
    journal.write({ resumed_at: '2025-01-15T12:00:00.000Z' });
    journal.close();
    expect(journalPath(secretFile)).toBe(join(dir, '.new.secret.whsvc-rotate'));
    expect(statSync(journalPath(secretFile)).mode & 0o777).toBe(0o600);
    expect(RotationJournal.open(secretFile).rotation).toEqual({
      ...MOVED,
      createOpen: undefined,
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
    const journal = RotationJournal.open(secretFile);
    journal.start(MOVED);
    journal.close();
    appendFileSync(journalPath(secretFile), '{"whsvc_rotate":1,"cre');
    const reopened = RotationJournal.open(secretFile);
    expect(reopened.rotation).toEqual({ ...MOVED, switched: false, deleting: false, done: false });
    reopened.write({ create: { others: [] } });
    reopened.close();
    expect(readFileSync(journalPath(secretFile), 'utf8').split('\n')).toEqual([
      expect.stringContaining('"start"'),
      '{"whsvc_rotate":1,"create":{"others":[]}}',
      '',
    ]);
  });

  it('a file there that whsvc did not write is refused, and left as it was', () => {
    const secretFile = join(dir, 'new.secret');
    writeFileSync(journalPath(secretFile), 'my notes\n');
    const refusal = (() => {
      try {
        RotationJournal.open(secretFile);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(FileError);
    expect((refusal as FileError).refused).toBe(true);
    expect((refusal as FileError).message).toContain("is not a journal whsvc wrote (its lines are not rotate-secret's): left as it was");
    expect(readFileSync(journalPath(secretFile), 'utf8')).toBe('my notes\n');
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
    const journal = RotationJournal.open(join(dir, 'new.secret'));
    journal.start(MOVED);
    const { clock, sleeps } = instantWaitClock();
    const proof = await tryProof(fake.deps, journal, 'wh_twin', 'invoice.paid', clock);
    journal.close();
    expect(proof.status).toBe('delivered');
    expect(sleeps).toEqual([1_000, 1_000]);
    expect(journal.rotation?.proof).toBe('dlv_t');
  });

  it('a service that does not say when a retry is due: every failed delivery counts as due, once, by its newest attempt', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const at = new Date(T0).toISOString();
    const page = (data: unknown[]) => json(200, { data, has_more: false, next_cursor: null });
    fake.mock.intercept({ path: '/v1/webhooks/wh_old/deliveries?status=pending&limit=200', method: 'GET' }).reply(page([]));
    fake.mock.intercept({ path: '/v1/webhooks/wh_old/deliveries?status=failed&limit=200', method: 'GET' }).reply(
      page([
        { id: 'dlv_b2', delivery_id: 'dlv_b', event: 'invoice.paid', status: 'failed', response_code: 503, attempts: 2, created_at: at },
        { id: 'dlv_b', delivery_id: 'dlv_b', event: 'invoice.paid', status: 'failed', response_code: 503, attempts: 1, created_at: at },
        { id: 'dlv_a', event: 'invoice.paid', status: 'failed', response_code: 0, attempts: 1, created_at: at },
      ]),
    );
    expect((await dueDeliveries(fake.deps.api, 'wh_old')).map((attempt) => attempt.id)).toEqual(['dlv_b2', 'dlv_a']);
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
