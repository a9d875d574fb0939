import fs, { linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { CliError } from '../../../../src/cli/errors.js';
import { run, type ApplyOptions } from '../../../../src/commands/webhooks/apply.js';
import { checkJournal, Journal, secretFileName } from '../../../../src/commands/webhooks/apply/secret-dir.js';
import { resetError } from '../../../helpers/undici-transport.js';
import { fakeDeps, finishFakeDeps, jsonReply, mockCatalog, mockToken, rejectionOf, type FakeDeps } from '../../../helpers/fake-deps.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-apply-'));
});
afterEach(async () => {
  await finishFakeDeps();
  rmSync(dir, { recursive: true, force: true });
});

const SECRET = (n: number) => `whsec_unit_secret_${n}_0123456789abcdef`;

/** A declaration file in the test's directory. */
function file(webhooks: unknown[], name = 'hooks.json'): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ webhooks }));
  return path;
}

/** The account's webhooks, as one page. */
function mockList(fake: FakeDeps, webhooks: unknown[]): void {
  fake.mock.intercept({ path: '/v1/webhooks?limit=200', method: 'GET' }).reply(200, JSON.stringify({ data: webhooks, has_more: false, next_cursor: null }));
}

/** POST /v1/webhooks answered with a new webhook each time (or `status`), `times` times; returns the bodies sent. */
function mockCreates(fake: FakeDeps, times: number): Array<Record<string, unknown>> {
  const bodies: Array<Record<string, unknown>> = [];
  fake.mock
    .intercept({ path: '/v1/webhooks', method: 'POST' })
    .reply((req) => {
      const body = JSON.parse(String(req.body)) as Record<string, unknown>;
      bodies.push(body);
      const n = bodies.length;
      return jsonReply(201, {
        id: `wh_new${n}`,
        url: body.url,
        events: body.events,
        active: body.active ?? true,
        signing_secret: SECRET(n),
        created_at: '2025-01-15T12:00:00Z',
      });
    })
    .times(times);
  return bodies;
}

const options = (o: Partial<ApplyOptions> & { file: string }): ApplyOptions => ({ dryRun: false, prune: false, ...o });
const existing = (id: string, url: string, events: string[], active = true) => ({ id, url, events, active, created_at: '2025-01-01T00:00:00Z' });

describe('webhooks apply', () => {
  it('creates what the file declares; each secret in <dir>/<id>.secret, 0600, and in no output', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, []);
    const bodies = mockCreates(fake, 2);
    const path = file([
      { url: 'https://a.example/h', events: ['invoice.paid'] },
      { url: 'https://b.example/h', events: ['product.updated'], active: false },
    ]);
    const secrets = join(dir, 'secrets');
    expect(await run(options({ file: path, secretDir: secrets }), fake.deps)).toBe(0);
    expect(bodies).toEqual([
      { url: 'https://a.example/h', events: ['invoice.paid'] },
      { url: 'https://b.example/h', events: ['product.updated'], active: false },
    ]);
    expect(statSync(secrets).mode & 0o777).toBe(0o700);
    expect(readdirSync(secrets).sort()).toEqual(['wh_new1.secret', 'wh_new2.secret']);
    for (const n of [1, 2]) {
      const secretFile = join(secrets, `wh_new${n}.secret`);
      expect(readFileSync(secretFile, 'utf8')).toBe(SECRET(n));
      expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    }
    expect(fake.stdout.text).toContain(`✓ created  wh_new1  https://a.example/h  (signing secret in ${join(secrets, 'wh_new1.secret')}, mode 0600)`);
    expect(fake.stdout.text).toContain('Done: 2 created, 0 updated, 0 deleted, 0 unchanged.');
    expect(fake.stdout.text + fake.stderr.text).not.toContain('whsec_');
  });

  it('--json: the plan and the outcome, each secret named by its file, never given', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [existing('wh_old', 'https://old.example/h', ['invoice.paid']), existing('wh_b', 'https://b.example/h', ['invoice.paid'])]);
    mockCreates(fake, 1);
    fake.mock
      .intercept({ path: '/v1/webhooks/wh_b', method: 'PATCH' })
      .reply((req) => jsonReply(200, { ...existing('wh_b', 'https://b.example/h', ['invoice.paid']), ...JSON.parse(String(req.body)) }));
    fake.mock.intercept({ path: '/v1/webhooks/wh_old', method: 'DELETE' }).reply(204, '');
    writeFileSync(join(dir, 'wh_b.secret'), `${SECRET(0)}\n`, { mode: 0o600 });
    const path = file([
      { url: 'https://a.example/h', events: ['invoice.paid'] },
      { url: 'https://b.example/h', events: ['invoice.paid', 'sales_order.created'] },
    ]);
    await run(options({ file: path, prune: true, yes: true, secretDir: dir }), fake.deps);
    const document = JSON.parse(fake.stdout.text);
    expect(document).toEqual({
      file: path,
      dry_run: false,
      prune: true,
      changed: true,
      plan: {
        create: [{ url: 'https://a.example/h', events: ['invoice.paid'], active: true }],
        update: [{ id: 'wh_b', url: 'https://b.example/h', changes: { events: { from: ['invoice.paid'], to: ['invoice.paid', 'sales_order.created'] } } }],
        delete: [{ id: 'wh_old', url: 'https://old.example/h' }],
        unchanged: [],
        not_in_file: [],
      },
      outcome: {
        created: [{ id: 'wh_new1', url: 'https://a.example/h', signing_secret_file: join(dir, 'wh_new1.secret') }],
        updated: [{ id: 'wh_b', url: 'https://b.example/h' }],
        deleted: [{ id: 'wh_old', url: 'https://old.example/h', removed_secret_file: null }],
        not_done: [],
        error: null,
        interrupted: false,
      },
      without_secret_file: [],
    });
    expect(fake.stdout.text).not.toContain('whsec_');
  });

  it('an update sends only the fields that change', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [existing('wh_b', 'https://b.example/h', ['invoice.paid'])]);
    let sent: unknown;
    fake.mock.intercept({ path: '/v1/webhooks/wh_b', method: 'PATCH' }).reply((req) => {
      sent = JSON.parse(String(req.body));
      return jsonReply(200, existing('wh_b', 'https://b.example/h', ['invoice.paid']));
    });
    await run(options({ file: file([{ url: 'https://b.example/h', events: ['invoice.paid'], active: false }]) }), fake.deps);
    expect(sent).toEqual({ active: false });
    expect(fake.stdout.text).toContain('active true → false');
  });

  it('--dry-run prints the plan and sends nothing but the reads that make it', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [existing('wh_x', 'https://x.example/h', ['invoice.paid'])]);
    const code = await run(options({ file: file([{ url: 'https://a.example/h', events: ['invoice.paid'] }]), prune: true, dryRun: true }), fake.deps);
    expect(code).toBe(0);
    expect(fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual(['POST /v1/oauth/token', 'GET /v1/webhooks/webhook-events', 'GET /v1/webhooks']);
    expect(fake.stdout.text).toMatch(/\+ create +https:\/\/a\.example\/h +\(new\) +invoice\.paid/);
    expect(fake.stdout.text).toMatch(/- delete +https:\/\/x\.example\/h +wh_x/);
    expect(fake.stderr.text).toBe('Dry run: nothing was sent.\n');
  });

  it('nothing to change says so, and sends nothing', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [existing('wh_a', 'https://a.example/h', ['invoice.paid'])]);
    expect(await run(options({ file: file([{ url: 'https://a.example/h', events: ['invoice.paid'] }]) }), fake.deps)).toBe(0);
    expect(fake.stdout.text).toBe(`No changes: the account's webhooks are as ${join(dir, 'hooks.json')} declares them (1 unchanged).\n`);
  });

  it('creating without --secret-dir is a usage error before anything changes', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, []);
    const error = await rejectionOf(run(options({ file: file([{ url: 'https://a.example/h', events: ['invoice.paid'] }]) }), fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('--secret-dir DIR is where they go');
    expect(fake.requests.some((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toBe(false);
  });

  it('an event type the catalog lacks is a usage error naming the entry, with a suggestion, before the account is read', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const error = await rejectionOf(run(options({ file: file([{ url: 'https://a.example/h', events: ['invoice.payed'] }]) }), fake.deps));
    expect(error).toMatchObject({ exitCode: 2 });
    expect(error.message).toContain('webhooks[0].events (https://a.example/h): "invoice.payed" is not an event type of the service');
    expect(error.message).toContain('did you mean invoice.paid?');
  });

  it('a failure part-way: what was done is kept and said, what was not is listed, and the error keeps its class', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [existing('wh_x', 'https://x.example/h', ['invoice.paid'])]);
    mockCreates(fake, 1);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(403, '{"error":{"code":"insufficient_scope","message":"needs webhooks:write"}}');
    const path = file([
      { url: 'https://a.example/h', events: ['invoice.paid'] },
      { url: 'https://b.example/h', events: ['invoice.paid'] },
    ]);
    const error = await rejectionOf(run(options({ file: path, prune: true, yes: true, secretDir: dir }), fake.deps));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(403);
    expect(fake.stdout.text).toContain('✓ created  wh_new1');
    expect(fake.stdout.text).not.toContain('Done:');
    expect(fake.stderr.text).toContain('stopped after 1 of 3 changes; not done: create https://b.example/h, delete wh_x');
    expect(fake.stderr.text).toContain('the same apply, run again, finishes the job');
    expect(readFileSync(join(dir, 'wh_new1.secret'), 'utf8')).toBe(SECRET(1));
  });

  it('a secret that cannot be written: the webhook is deleted again, and the error says so', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, []);
    mockCreates(fake, 1);
    let deleted = false;
    fake.mock.intercept({ path: '/v1/webhooks/wh_new1', method: 'DELETE' }).reply(() => {
      deleted = true;
      return { statusCode: 204, data: '' };
    });
    // A directory where the secret's file would go: the writer refuses it.
    mkdirSync(join(dir, 'wh_new1.secret'));
    const error = await rejectionOf(run(options({ file: file([{ url: 'https://a.example/h', events: ['invoice.paid'] }]), secretDir: dir }), fake.deps));
    expect(deleted).toBe(true);
    expect(error.message).toContain('webhook wh_new1 was deleted again, so nothing was created');
    expect(fake.stderr.text).toContain('not done: create https://a.example/h');
  });

  it('--prune deletes only once asked: without --yes and no terminal, a usage error before any change; on a terminal, a question whose no changes nothing', async () => {
    for (const canPrompt of [false, true]) {
      const fake = fakeDeps({ canPrompt, answers: canPrompt ? [{ kind: 'confirm', message: /deletes 1 webhook the file does not name/, answer: false }] : [] });
      mockToken(fake.mock);
      mockCatalog(fake.mock);
      mockList(fake, [existing('wh_x', 'https://x.example/h', ['invoice.paid'])]);
      const error = await rejectionOf(run(options({ file: file([]), prune: true }), fake.deps));
      expect(error).toBeInstanceOf(CliError);
      expect(error.exitCode).toBe(canPrompt ? 1 : 2);
      expect(error.message).toMatch(canPrompt ? /^nothing was changed$/ : /pass --yes to delete them/);
      expect(fake.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
      fake.prompter.assertDone();
    }
  });

  it('a webhook already gone when it is to be deleted counts as deleted', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [existing('wh_x', 'https://x.example/h', ['invoice.paid'])]);
    fake.mock.intercept({ path: '/v1/webhooks/wh_x', method: 'DELETE' }).reply(404, '{"error":{"code":"not_found","message":"gone"}}');
    expect(await run(options({ file: file([]), prune: true, yes: true }), fake.deps)).toBe(0);
    expect(fake.stdout.text).toContain('Done: 0 created, 0 updated, 1 deleted, 0 unchanged.');
  });

  /** An account of one webhook, wh_x, that a --prune of an empty file deletes. */
  const accountOfWhXToPrune = () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [existing('wh_x', 'https://x.example/h', ['invoice.paid'])]);
    fake.mock.intercept({ path: '/v1/webhooks/wh_x', method: 'DELETE' }).reply(204, '');
    return fake;
  };

  it.each([
    ['a symlink', 'is a symbolic link, not a regular file', (target: string, path: string) => symlinkSync(target, path)],
    ['a hard link', 'has other hard links: it would change another file too', (target: string, path: string) => linkSync(target, path)],
  ])(
    "--prune: a deleted webhook's secret file that is not a regular file of one's own (%s) is left as it is, the plan says so first; the run succeeds",
    async (_, why, make) => {
      const fake = accountOfWhXToPrune();
      const target = join(dir, 'elsewhere.txt');
      const path = join(dir, 'wh_x.secret');
      writeFileSync(target, 'not a secret of apply\n');
      make(target, path);
      expect(await run(options({ file: file([]), prune: true, yes: true, secretDir: dir }), fake.deps)).toBe(0);
      // The plan says what the removal will do: the same test (lstat, a regular file of one's own).
      expect(fake.stdout.text).toContain(`- delete     https://x.example/h  wh_x  its secret file ${path} is left: it ${why}\n`);
      expect(fake.stderr.text).toBe(`! webhook wh_x was deleted, its secret file left: the secret file ${path} ${why}\n`);
      expect(readFileSync(target, 'utf8')).toBe('not a secret of apply\n');
      expect(readFileSync(path, 'utf8')).toBe('not a secret of apply\n');
    },
  );

  it("--prune: a deleted webhook's secret file, even empty, is in the plan as it is removed", async () => {
    const fake = accountOfWhXToPrune();
    const path = join(dir, 'wh_x.secret');
    writeFileSync(path, '');
    expect(await run(options({ file: file([]), prune: true, yes: true, secretDir: dir }), fake.deps)).toBe(0);
    expect(fake.stdout.text).toContain(`- delete     https://x.example/h  wh_x  and its secret file ${path}\n`);
    expect(fake.stdout.text).toContain(`✓ deleted  wh_x  https://x.example/h  (its secret file ${path} removed`);
  });

  it('Ctrl-C: the change under way ends, the rest is listed as not done, exit 130', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [existing('wh_x', 'https://x.example/h', ['invoice.paid']), existing('wh_y', 'https://y.example/h', ['invoice.paid'])]);
    const controller = new AbortController();
    fake.mock.intercept({ path: '/v1/webhooks/wh_x', method: 'DELETE' }).reply(() => {
      controller.abort();
      return { statusCode: 204, data: '' };
    });
    const code = await run(options({ file: file([]), prune: true, yes: true, stop: () => controller.signal }), fake.deps);
    expect(code).toBe(130);
    expect(fake.stderr.text).toContain('interrupted after 1 of 2 changes; not done: delete wh_y');
  });

  it('an id no URL can carry, from a service gone wrong: a failure that says the webhook may be left without its secret, never an unexpected error', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, []);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(() =>
      jsonReply(201, {
        id: '\ud800x',
        url: 'https://a.example/h',
        events: ['invoice.paid'],
        active: true,
        signing_secret: SECRET(1),
        created_at: '2025-01-15T12:00:00Z',
      }),
    );
    const error = await rejectionOf(run(options({ file: file([{ url: 'https://a.example/h', events: ['invoice.paid'] }]), secretDir: dir }), fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toMatch(/^cannot write the signing secret to .*: .*; webhook .* was created and could not be deleted again/);
    expect(readdirSync(dir).filter((name) => name.endsWith('.secret'))).toEqual([]);
  });

  it('a webhook an earlier apply created into the directory, left without its secret file, is named by id, exit 1, with the way out; the plan is carried out all the same; others are not looked at', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, [
      existing('wh_missing', 'https://a.example/h', ['invoice.paid']),
      existing('wh_empty', 'https://b.example/h', ['invoice.paid']),
      existing('wh_kept', 'https://c.example/h', ['invoice.paid']),
      existing('wh_edited', 'https://d.example/h', ['invoice.paid']),
      existing('wh_elsewhere', 'https://f.example/h', ['invoice.paid']),
    ]);
    fake.mock
      .intercept({ path: '/v1/webhooks/wh_edited', method: 'PATCH' })
      .reply(() => jsonReply(200, existing('wh_edited', 'https://d.example/h', ['invoice.paid'])));
    writeFileSync(join(dir, 'wh_empty.secret'), '');
    writeFileSync(join(dir, 'wh_kept.secret'), `${SECRET(3)}\n`);
    // Intents of earlier runs: a, b, d and c made (c's secret written, its clear lost to a kill), e never sent, g cleared;
    // the last line cut short by a kill. f was made by an apply into another directory.
    const intent = (url: string) => `{"whsvc_apply":1,"create":"${url}"}\n`;
    const journal = join(dir, '.whsvc-apply-journal');
    writeFileSync(
      journal,
      ['a', 'b', 'c', 'd', 'e', 'g'].map((host) => intent(`https://${host}.example/h`)).join('') +
        '{"whsvc_apply":1,"cleared":"https://g.example/h"}\n{"whsvc_apply":1,"cre',
      { mode: 0o600 },
    );
    const path = file([
      { url: 'https://a.example/h', events: ['invoice.paid'] },
      { url: 'https://b.example/h', events: ['invoice.paid'] },
      { url: 'https://c.example/h', events: ['invoice.paid'] },
      { url: 'https://d.example/h', events: ['invoice.paid'], active: false },
      { url: 'https://f.example/h', events: ['invoice.paid'] },
    ]);
    const error = await rejectionOf(run(options({ file: path, secretDir: dir }), fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe(
      `3 webhooks an apply created into ${dir} have no signing secret there (its file missing or empty): wh_missing, wh_empty, wh_edited; their deliveries cannot be verified`,
    );
    // The way out that keeps the webhook first; deleting it second.
    expect(error.hint).toMatch(
      /^a create whose answer was lost leaves no secret, .*: if you kept them elsewhere, put each in .*<id>\.secret; else delete each \(`whsvc webhooks delete wh_missing --yes`\) and apply again/,
    );
    expect(fake.stdout.text).toContain('Done: 0 created, 1 updated, 0 deleted, 4 unchanged.');
    // What is left open of the journal: the three named, and nothing of the settled ones.
    expect(readFileSync(journal, 'utf8')).toBe(['a', 'b', 'd'].map((host) => intent(`https://${host}.example/h`)).join(''));
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    // --dry-run says the same, exit 0; without --secret-dir there is nothing to look in.
    for (const dryRun of [true, false]) {
      const again = fakeDeps({ json: true });
      mockToken(again.mock);
      mockCatalog(again.mock);
      mockList(again, [existing('wh_missing', 'https://a.example/h', ['invoice.paid'])]);
      const one = file([{ url: 'https://a.example/h', events: ['invoice.paid'] }]);
      if (dryRun) {
        expect(await run(options({ file: one, secretDir: dir, dryRun }), again.deps)).toBe(0);
        expect(again.stderr.text).toMatch(
          /^! 1 webhook an apply created into .* has no signing secret there \(its file missing or empty\): wh_missing; its deliveries cannot be verified\n {2}a create/,
        );
        expect(JSON.parse(again.stdout.text).without_secret_file).toEqual([{ id: 'wh_missing', url: 'https://a.example/h' }]);
        // Only reported: the journal is as it was.
        expect(readFileSync(journal, 'utf8')).toBe(['a', 'b', 'd'].map((host) => intent(`https://${host}.example/h`)).join(''));
      } else {
        expect(await run(options({ file: one }), again.deps)).toBe(0);
        expect(JSON.parse(again.stdout.text).without_secret_file).toBeNull();
      }
      await finishFakeDeps();
    }
  });

  it('a journal whose intents are all settled is removed; a file there that is not the journal is refused, left as it was', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, []);
    const journal = join(dir, '.whsvc-apply-journal');
    writeFileSync(journal, '{"whsvc_apply":1,"create":"https://gone.example/h"}\n', { mode: 0o600 });
    expect(await run(options({ file: file([]), secretDir: dir }), fake.deps)).toBe(0);
    expect(readdirSync(dir)).toEqual(['hooks.json']);
    await finishFakeDeps();
    const other = fakeDeps();
    mockToken(other.mock);
    mockCatalog(other.mock);
    mockList(other, []);
    writeFileSync(journal, 'my notes\n');
    const error = await rejectionOf(run(options({ file: file([]), secretDir: dir }), other.deps));
    expect(error.message).toMatch(/^--secret-dir journal .* is not a journal whsvc wrote/);
    expect(readFileSync(journal, 'utf8')).toBe('my notes\n');
  });

  it('a journal to remove that became a symlink meanwhile is left, and what it points to: settled, or closed after its run', () => {
    const secretDir = join(dir, 'secrets');
    mkdirSync(secretDir);
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, "not apply's\n", { mode: 0o644 });
    const journal = join(secretDir, '.whsvc-apply-journal');
    const swapForSymlink = () => {
      rmSync(journal);
      symlinkSync(victim, journal);
    };
    const expectLeft = () => {
      expect(lstatSync(journal).isSymbolicLink()).toBe(true);
      expect(readFileSync(victim, 'utf8')).toBe("not apply's\n");
    };
    // Settled: its one intent's create never happened (the account lacks the URL), so the journal goes.
    writeFileSync(journal, '{"whsvc_apply":1,"create":"https://gone.example/h"}\n', { mode: 0o600 });
    const settled = new Journal(secretDir, checkJournal(secretDir, []));
    swapForSymlink();
    expect(() => settled.settle()).toThrow(/journal .* is a symbolic link, not a regular file/);
    expectLeft();
    // A run's journal, every intent cleared: removed at its close, unless it is no longer the file written.
    rmSync(journal);
    const run = new Journal(secretDir, checkJournal(secretDir, []));
    run.intend('https://a.example/h');
    run.clear('https://a.example/h');
    swapForSymlink();
    run.close();
    expectLeft();
  });

  it("a run's journal is the file it wrote: one put in its place the moment after it was made is left at the close", () => {
    const secretDir = join(dir, 'secrets');
    mkdirSync(secretDir);
    const journal = join(secretDir, '.whsvc-apply-journal');
    const theirs = '{"whsvc_apply":1,"create":"https://theirs.example/h"}\n';
    // The journal made, then at once moved away and another file put at its path, before anything else is done.
    const realOpenSync = fs.openSync;
    const open = vi.spyOn(fs, 'openSync').mockImplementation((...args: Parameters<typeof fs.openSync>) => {
      const fd = realOpenSync(...args);
      if (args[0] === journal) {
        open.mockRestore();
        syncBuiltinESMExports();
        renameSync(journal, join(dir, 'moved-journal'));
        writeFileSync(journal, theirs, { mode: 0o600 });
      }
      return fd;
    });
    syncBuiltinESMExports();
    try {
      const run = new Journal(secretDir, checkJournal(secretDir, []));
      run.intend('https://a.example/h');
      run.clear('https://a.example/h');
      run.close();
    } finally {
      open.mockRestore();
      syncBuiltinESMExports();
    }
    expect(readdirSync(secretDir)).toEqual(['.whsvc-apply-journal']);
    expect(readFileSync(journal, 'utf8')).toBe(theirs);
    expect(readFileSync(join(dir, 'moved-journal'), 'utf8')).toBe(
      '{"whsvc_apply":1,"create":"https://a.example/h"}\n{"whsvc_apply":1,"cleared":"https://a.example/h"}\n',
    );
  });

  it.each([
    ['answered 500', (fake: FakeDeps) => fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(500, '{"error":{"message":"upstream failed"}}')],
    [
      'answered 503 with Retry-After',
      (fake: FakeDeps) => fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(503, '', { headers: { 'retry-after': '0' } }),
    ],
    ['reset', (fake: FakeDeps) => fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).replyWithError(resetError())],
  ])('a create %s: sent once, the webhook may exist, said with how to check; the run stops there', async (_case, answer) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockList(fake, []);
    answer(fake);
    const error = await rejectionOf(run(options({ file: file([{ url: 'https://a.example/h', events: ['invoice.paid'] }]), secretDir: dir }), fake.deps));
    expect(error.message).toMatch(/: the webhook for https:\/\/a\.example\/h may exist, without its signing secret$/);
    expect(error.hint).toMatch(/^check with `whsvc webhooks list`: if a webhook for https:\/\/a\.example\/h is there, delete it .* and apply again/);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toHaveLength(1);
    expect(fake.stderr.text).toContain('stopped after 0 of 1 change; not done: create https://a.example/h');
    // The create's intent stays open in the journal: the next apply into this directory names what it made.
    expect(readdirSync(dir).sort()).toEqual(['.whsvc-apply-journal', 'hooks.json']);
    expect(readFileSync(join(dir, '.whsvc-apply-journal'), 'utf8')).toBe('{"whsvc_apply":1,"create":"https://a.example/h"}\n');
  });

  it('a secret file is named after the webhook, and never leaves its directory', () => {
    expect(secretFileName('wh_1a2b')).toBe('wh_1a2b.secret');
    expect(secretFileName('../../etc/x')).toBe('%2E.%2F..%2Fetc%2Fx.secret');
    expect(secretFileName('.hidden')).toBe('%2Ehidden.secret');
  });
});
