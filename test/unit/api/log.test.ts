import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { MAX_EMPTY_PAGES, MAX_PAGES, PageWalk } from '../../../src/api/log.js';
import { run as api } from '../../../src/commands/api/api.js';
import { run as deliveriesList } from '../../../src/commands/deliveries/list.js';
import { run as recover } from '../../../src/commands/deliveries/recover.js';
import { run as tail } from '../../../src/commands/deliveries/tail.js';
import { run as apply } from '../../../src/commands/webhooks/apply.js';
import { run as health } from '../../../src/commands/webhooks/health.js';
import { run as webhooksList } from '../../../src/commands/webhooks/list.js';
import { CATALOG, T0, fakeDeps, finishFakeDeps, jsonReply, mockToken, pathOnly, queryOf, rejectionOf, type FakeDeps } from '../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const LIST = 'the log of webhook wh_1';
const more = (next: string, data: unknown[] = [{}]) => ({ data, has_more: true, next_cursor: next });

describe('PageWalk: the guard of every walk through pages', () => {
  it('the next page while there is one; none at the end', () => {
    const walk = new PageWalk(LIST);
    expect(walk.next(more('c1'))).toBe('c1');
    expect(walk.next(more('c2'))).toBe('c2');
    expect(walk.next({ data: [], has_more: false, next_cursor: 'c3' })).toBeUndefined();
  });

  it.each([
    ['null', null],
    ['empty', ''],
    ['missing', undefined],
  ])('a page that says more follow but gives no cursor (%s) is an error, not a walk that stops short', (_, cursor) => {
    const page = cursor === undefined ? { data: [], has_more: true } : { data: [], has_more: true, next_cursor: cursor };
    expect(() => new PageWalk(LIST).next(page as { data: unknown[]; has_more: boolean; next_cursor: string | null })).toThrow(
      expect.objectContaining({ code: 'unexpected_answer', message: expect.stringContaining(`said more pages of ${LIST} follow but gave no cursor`) }),
    );
  });

  it.each([
    ['the cursor asked for (A → A)', ['c1', 'c1']],
    ['two pages (A → B → A)', ['c1', 'c2', 'c1']],
    ['three pages (A → B → C → A)', ['c1', 'c2', 'c3', 'c1']],
    ['a cycle below the start (A → B → C → B)', ['c1', 'c2', 'c3', 'c2']],
  ])('a cursor given before, %s, is an error at once, not a walk that never ends', (_, cursors) => {
    const walk = new PageWalk(LIST);
    const last = cursors.pop()!;
    for (const cursor of cursors) expect(walk.next(more(cursor))).toBe(cursor);
    expect(() => walk.next(more(last))).toThrow(
      expect.objectContaining({
        code: 'unexpected_answer',
        message: expect.stringMatching(/^the service's pages of the log of webhook wh_1 go round in a circle.*never end/),
      }),
    );
  });

  it.each([
    ['a number', 7],
    ['an object', { c: 1 }],
    ['true', true],
  ])('a next_cursor that is %s is an error, not a crash', (_, cursor) => {
    expect(() =>
      new PageWalk(LIST).next({ data: [], has_more: true, next_cursor: cursor } as unknown as { data: unknown[]; has_more: boolean; next_cursor: string }),
    ).toThrow(expect.objectContaining({ code: 'unexpected_answer', message: expect.stringContaining(`next_cursor of ${LIST} that is not a string`) }));
  });

  it('the cursor a walk starts at (--cursor) counts as given', () => {
    const walk = new PageWalk(LIST, 'c0');
    expect(walk.next(more('c1'))).toBe('c1');
    expect(() => walk.next(more('c0'))).toThrow(ApiError);
  });

  it(`a list of fresh cursors without end stops after MAX_PAGES (${MAX_PAGES}) pages`, () => {
    const walk = new PageWalk(LIST);
    for (let page = 1; page < MAX_PAGES; page++) expect(walk.next(more(`c${page}`))).toBe(`c${page}`);
    expect(() => walk.next(more('one more'))).toThrow(
      expect.objectContaining({ code: 'unexpected_answer', message: expect.stringContaining('100,000 pages') }),
    );
  });

  it(`${MAX_EMPTY_PAGES} empty pages in a row, each saying more follow, stop the walk with an error naming the list`, () => {
    const walk = new PageWalk(LIST);
    expect(walk.next(more('c1'))).toBe('c1');
    for (let page = 2; page <= MAX_EMPTY_PAGES; page++) expect(walk.next(more(`c${page}`, []))).toBe(`c${page}`);
    expect(() => walk.next(more('one more', []))).toThrow(
      expect.objectContaining({
        code: 'unexpected_answer',
        message: `the service gave ${MAX_EMPTY_PAGES} empty pages of ${LIST} in a row (pages 2 to ${MAX_EMPTY_PAGES + 1}), each saying more follow: whsvc stops rather than read without end`,
      }),
    );
  });

  it('a page with an item between empty ones starts the count again; an empty last page ends the walk as any last page', () => {
    const walk = new PageWalk(LIST);
    let page = 0;
    for (let round = 0; round < 3; round++) {
      for (let i = 1; i < MAX_EMPTY_PAGES; i++) expect(walk.next(more(`c${++page}`, []))).toBe(`c${page}`);
      expect(walk.next(more(`c${++page}`))).toBe(`c${page}`);
    }
    expect(walk.next({ data: [], has_more: false, next_cursor: null })).toBeUndefined();
  });
});

const ago = (minutes: number) => new Date(T0 - minutes * 60_000).toISOString();

/**
 * A service whose lists loop: the first page of any list points to c1, c1 to c2, …, and c<length> back to c1.
 * Every list page holds one item; a webhook and the catalog are answered. Returns the cursors each list was asked at.
 * A walker that goes round 20 times is let out (the list ends), so that a guard that fails is a test that fails, not one
 * that never ends.
 */
function loopingService(fake: FakeDeps, length: number): Map<string, string[]> {
  mockToken(fake.mock);
  const asked = new Map<string, string[]>();
  const webhook = (id: string) => ({ id, url: `https://${id}.example.com/in`, events: ['invoice.paid'], active: true, created_at: ago(60) });
  fake.mock
    .intercept({ path: () => true, method: 'GET' })
    .reply((request) => {
      const path = pathOnly(request.path);
      if (path === '/v1/webhooks/webhook-events') return jsonReply(200, CATALOG);
      if (/^\/v1\/webhooks\/wh_\w+$/.test(path)) return jsonReply(200, webhook(path.split('/').pop()!));
      const cursor = queryOf(request.path).get('cursor');
      asked.set(path, [...(asked.get(path) ?? []), cursor ?? '(first)']);
      const at = cursor === null ? 0 : Number(cursor.slice(1));
      const item = path.endsWith('/deliveries')
        ? { id: `dlv_${at}`, delivery_id: `dlv_${at}`, event: 'invoice.paid', status: 'failed', response_code: 500, attempts: 1, created_at: ago(1) }
        : webhook(`wh_${at}`);
      const letOut = asked.get(path)!.length > 20 * length;
      return jsonReply(200, { data: [item], ...(letOut ? { has_more: false, next_cursor: null } : { has_more: true, next_cursor: `c${(at % length) + 1}` }) });
    })
    .persist();
  return asked;
}

const withDeclaration = (run: (file: string) => Promise<unknown>) => async () => {
  const dir = mkdtempSync(join(tmpdir(), 'whsvc-walk-'));
  try {
    const file = join(dir, 'hooks.json');
    writeFileSync(file, JSON.stringify({ webhooks: [{ url: 'https://h1.example.com/in', events: ['invoice.paid'] }] }));
    return await run(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const HOUR = { ago: 3_600_000 };
const never = new Promise<void>(() => {});

/** Each command that walks a list, and the run that walks it. */
const WALKERS: Array<[string, (fake: FakeDeps) => Promise<unknown>]> = [
  ['api --paginate', (fake) => api({ path: '/v1/webhooks', fields: [], headers: [], paginate: true }, fake.deps)],
  ['webhooks list --all', (fake) => webhooksList({ all: true }, fake.deps)],
  ['deliveries list --all', (fake) => deliveriesList({ webhookId: 'wh_1', all: true }, fake.deps)],
  ['webhooks health (the account)', (fake) => health({ ids: [] }, fake.deps)],
  ['webhooks health wh_1 (its log)', (fake) => health({ ids: ['wh_1'], since: HOUR }, fake.deps)],
  ['deliveries recover (the account)', (fake) => recover({ status: 'failed', webhooks: [], events: [], dryRun: true, yes: true, concurrency: 1 }, fake.deps)],
  [
    'deliveries recover --webhook wh_1 (its log)',
    (fake) => recover({ status: 'failed', webhooks: ['wh_1'], events: [], since: HOUR, dryRun: true, yes: true, concurrency: 1 }, fake.deps),
  ],
  ['deliveries tail (the account)', (fake) => tail({ intervalMs: 1000, platformName: 'Service' }, { ...fake.deps, stopSignal: never })],
  [
    "deliveries tail --since 1h (catching up on a webhook's log)",
    (fake) => tail({ intervalMs: 1000, platformName: 'Service', webhookIds: ['wh_1'], since: HOUR }, { ...fake.deps, stopSignal: never }),
  ],
  ['webhooks apply (its read of the account)', (fake) => withDeclaration((file) => apply({ file, dryRun: true, prune: false }, fake.deps))()],
];

describe('every walker stops on a cursor cycle, with the one error of the guard', () => {
  for (const length of [2, 3]) {
    it.each(WALKERS)(`%s: a cycle of ${length} pages`, async (_, walk) => {
      const fake = fakeDeps({ json: true });
      const asked = loopingService(fake, length);
      const error = await rejectionOf(walk(fake));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'unexpected_answer', message: expect.stringContaining('go round in a circle') });
      // Each page of the cycle at most once: the cursor given again is not asked for.
      for (const [path, cursors] of asked) {
        const followed = cursors.filter((cursor) => cursor !== '(first)');
        expect(new Set(followed).size, `${path}: ${cursors.join(' ')}`).toBe(followed.length);
        expect(followed.length).toBeLessThanOrEqual(length);
      }
    });
  }
});

/**
 * A service whose lists never end and hold nothing: every page of any list is empty, says more follow, and gives a
 * fresh cursor. A webhook and the catalog are answered. Returns the cursors each list was asked at; a walker that
 * reads 20 times the run the guard allows is let out (the list ends), so that a guard that fails is a test that fails.
 */
function emptyEndlessService(fake: FakeDeps): Map<string, string[]> {
  mockToken(fake.mock);
  const asked = new Map<string, string[]>();
  fake.mock
    .intercept({ path: () => true, method: 'GET' })
    .reply((request) => {
      const path = pathOnly(request.path);
      if (path === '/v1/webhooks/webhook-events') return jsonReply(200, CATALOG);
      if (/^\/v1\/webhooks\/wh_\w+$/.test(path)) {
        return jsonReply(200, { id: 'wh_1', url: 'https://wh_1.example.com/in', events: ['invoice.paid'], active: true, created_at: ago(60) });
      }
      const cursors = [...(asked.get(path) ?? []), queryOf(request.path).get('cursor') ?? '(first)'];
      asked.set(path, cursors);
      const letOut = cursors.length > 20 * MAX_EMPTY_PAGES;
      return jsonReply(200, { data: [], has_more: !letOut, next_cursor: letOut ? null : `c${cursors.length}` });
    })
    .persist();
  return asked;
}

describe(`every walker stops after ${MAX_EMPTY_PAGES} empty pages in a row that say more follow, with the one error of the guard`, () => {
  it.each(WALKERS)('%s', async (_, walk) => {
    const fake = fakeDeps({ json: true });
    const asked = emptyEndlessService(fake);
    const error = await rejectionOf(walk(fake));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'unexpected_answer', message: expect.stringContaining(`gave ${MAX_EMPTY_PAGES} empty pages of`) });
    for (const [path, cursors] of asked) expect(cursors.length, path).toBeLessThanOrEqual(MAX_EMPTY_PAGES);
  });
});
