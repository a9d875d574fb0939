import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { declare, lostAnswersSetup } from '../helpers/lost-answers.js';

// A create whose answer never reaches whsvc (test/helpers/lost-answers.ts: the sandbox behind a front of the test's own
// that answers a create it passed on with an error or a reset), whsvc in-process. Apply killed (-9) mid-create, and
// updates run by processes side by side: test/e2e/lost-answers.test.ts.

const { front, work, userEnv, withUrl } = lostAnswersSetup();

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('a create whose answer is lost', () => {
  it('acted on, then answered 500, 503 (Retry-After: 0) or reset: one webhook, exit 1, a "may exist" line; the next apply names it by id', async () => {
    const env = userEnv();
    for (const answer of ['error-500', 'error-503', 'reset'] as const) {
      // A directory each: its journal holds the creates applied into it, and so names what each lost.
      const secrets = join(work(), `secrets-${answer}`);
      front().answerCreates(() => answer);
      const url = `https://create-${answer}.example.com/hooks`;
      const secretFile = join(work(), `create-${answer}.secret`);
      const created = await runInProcess(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--secret-file', secretFile], { env });
      expect(created.code, created.stderr).toBe(1);
      expect(created.stderr).toMatch(new RegExp(`^whsvc: the create request .*: the webhook for ${escaped(url)} may exist, without its signing secret`, 'm'));
      expect(created.stderr).toMatch(new RegExp(`^hint: check with \`whsvc webhooks list\`: if a webhook for ${escaped(url)} is there, delete it`, 'm'));
      expect(existsSync(secretFile)).toBe(false);
      expect(await withUrl(url)).toHaveLength(1);

      const file = join(work(), `apply-${answer}.yaml`);
      const applyUrl = `https://apply-${answer}.example.com/hooks`;
      declare(file, [applyUrl]);
      const applied = await runInProcess(['webhooks', 'apply', '-f', file, '--secret-dir', secrets], { env });
      expect(applied.code, applied.stderr).toBe(1);
      expect(applied.stderr).toMatch(
        new RegExp(`^whsvc: the create request .*: the webhook for ${escaped(applyUrl)} may exist, without its signing secret`, 'm'),
      );
      const made = await withUrl(applyUrl);
      expect(made).toHaveLength(1);

      // --dry-run reports it, and only reports: exit 0.
      const review = await runInProcess(['webhooks', 'apply', '-f', file, '--secret-dir', secrets, '--dry-run'], { env });
      expect(review.code, review.stderr).toBe(0);
      expect(review.stderr).toContain(`! 1 webhook an apply created into ${secrets} has no signing secret there (its file missing or empty): ${made[0]!.id}; `);
      const reviewJson = await runInProcess(['webhooks', 'apply', '-f', file, '--secret-dir', secrets, '--dry-run', '--json'], { env });
      expect(reviewJson.code, reviewJson.stderr).toBe(0);
      expect(JSON.parse(reviewJson.stdout).without_secret_file).toEqual([{ id: made[0]!.id, url: applyUrl }]);

      front().answerCreates(() => 'pass');
      const again = await runInProcess(['webhooks', 'apply', '-f', file, '--secret-dir', secrets], { env });
      expect(again.code, again.stderr).toBe(1);
      expect(again.stderr).toContain(
        `whsvc: 1 webhook an apply created into ${secrets} has no signing secret there (its file missing or empty): ${made[0]!.id}; `,
      );
      expect(again.stderr).toContain(
        `hint: a create whose answer was lost leaves no secret, and the service gives one only in that answer: if you kept it elsewhere, put it in ${join(secrets, '<id>.secret')}; else delete it (\`whsvc webhooks delete ${made[0]!.id} --yes\`) and apply again`,
      );
      expect(await withUrl(applyUrl)).toHaveLength(1);
    }
  });
});
