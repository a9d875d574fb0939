import { once } from 'node:events';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startWhsvc } from '../helpers/cli.js';
import { postWebhook } from '../helpers/http.js';
import { type CreateAnswer, declare, lostAnswersSetup } from '../helpers/lost-answers.js';

// What only processes show of a create whose answer never reaches whsvc (test/helpers/lost-answers.ts): apply killed
// (-9) at chosen points, and updates of one webhook run by processes side by side, taking turns through the lock in
// their config dir. A create answered 500, 503 or reset: test/integration/lost-answers.test.ts.

const { front, base, token, work, userEnv, webhooks } = lostAnswersSetup();

describe('a create whose answer is lost', () => {
  it('apply killed at chosen points over several runs, then run again: each declared webhook has one non-empty 0600 secret file, or is named by id', async () => {
    const env = userEnv();
    const secrets = join(work(), 'secrets-killed');
    const file = join(work(), 'killed.yaml');
    const urls = Array.from({ length: 5 }, (_, i) => `https://killed-${i + 1}.example.com/hooks`);
    declare(file, urls);
    // Each run is killed (SIGKILL) where the test says: the second create made but never answered; the first create
    // answered whole (the secret maybe written, maybe not); the first create answered by half.
    const kills: Array<[(n: number) => CreateAnswer, 'acted' | 'answered']> = [
      [(n) => (n === 2 ? 'hold' : 'pass'), 'acted'],
      [() => 'pass', 'answered'],
      [() => 'half', 'acted'],
    ];
    for (const [how, point] of kills) {
      front().answerCreates(how);
      const apply = startWhsvc(['webhooks', 'apply', '-f', file, '--secret-dir', secrets], { env });
      await Promise.race([once(front().events, point), apply.exit.then((code) => Promise.reject(new Error(`apply exited ${code}: ${apply.stderr()}`)))]);
      expect(await apply.stop('SIGKILL')).toBeNull();
    }
    front().answerCreates(() => 'pass');
    const last = await runCli(['webhooks', 'apply', '-f', file, '--secret-dir', secrets], { env });
    const account = await webhooks();
    const named = new Set(
      /^whsvc: \d+ webhooks? an apply created into .*? (?:has|have) no signing secret there \(its file missing or empty\): (.*); /m
        .exec(last.stderr)?.[1]
        ?.split(', ') ?? [],
    );
    for (const url of urls) {
      const made = account.filter((webhook) => webhook.url === url);
      expect(made, url).toHaveLength(1);
      const path = join(secrets, `${made[0]!.id}.secret`);
      const stats = statSync(path, { throwIfNoEntry: false });
      if (named.has(made[0]!.id)) expect(stats?.size ?? 0, `${path} is named, and is there`).toBe(0);
      else {
        expect(stats?.size ?? 0, `${url} (${made[0]!.id}) has neither a secret file nor its name in: ${last.stderr}`).toBeGreaterThan(0);
        expect(stats!.mode & 0o777).toBe(0o600);
      }
    }
    // Made and never answered whole: the second create of the first run, the one of the third; so the run fails.
    const idOf = (url: string) => account.find((webhook) => webhook.url === url)!.id;
    expect([...named].sort()).toEqual(expect.arrayContaining([idOf(urls[1]!), idOf(urls[3]!)]));
    expect(last.code, last.stderr).toBe(1);
    // No empty file anywhere, and nothing but secret files, the journal of the creates named and, from a kill
    // mid-write, a hidden temporary.
    for (const name of readdirSync(secrets)) {
      expect(name).toMatch(/^(wh_\w+\.secret|\.whsvc-apply-journal|\.(wh_\w+\.secret|\.whsvc-apply-journal)\.whsvc-\d+-[0-9a-z]+\.tmp)$/);
      if (!name.startsWith('.')) expect(statSync(join(secrets, name)).size).toBeGreaterThan(0);
    }
  });
});

describe('updates side by side', () => {
  it('10 processes adding and removing events of two webhooks at once, on one machine: no change is lost', async () => {
    const configDir = mkdtempSync(join(work(), 'config-race-'));
    const env = userEnv(configDir);
    const start = ['invoice.paid', 'product.updated'];
    const ids = [
      (await postWebhook(base(), token(), 'https://race-a.example.com/hooks', start)).id,
      (await postWebhook(base(), token(), 'https://race-b.example.com/hooks', start)).id,
    ];
    // In any order one after the other, they leave the same list (product.updated is never removed: none empties it).
    const changes = [
      ['--add-events', 'inventory.changed'],
      ['--add-events', 'sales_order.created'],
      ['--add-events', 'production_order.completed'],
      ['--add-events', 'product.updated'],
      ['--remove-events', 'invoice.paid'],
    ];
    // All ten read the catalog first; its answers are held until all have asked, so their reads of the webhook meet.
    front().gatherCatalogRequests(ids.length * changes.length);
    const runs = await Promise.all(
      ids.flatMap((id) => changes.map((change) => runCli(['webhooks', 'update', id, ...change, '--json'], { env, timeoutMs: 120_000 }))),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    for (const id of ids) {
      const webhook = (await webhooks()).find((w) => w.id === id)!;
      expect([...webhook.events].sort()).toEqual(['inventory.changed', 'product.updated', 'production_order.completed', 'sales_order.created']);
    }
  });
});
