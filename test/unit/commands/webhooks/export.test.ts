import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../../src/commands/webhooks/export.js';
import { fakeDeps, finishFakeDeps, jsonReply, mockToken, pathOnly, rejectionOf } from '../../../helpers/fake-deps.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-export-unit-'));
});
afterEach(async () => {
  await finishFakeDeps();
  rmSync(dir, { recursive: true, force: true });
});

const hook = (i: number) => ({ id: `wh_${i}`, url: `https://hooks${i}.example.com/in`, events: ['invoice.paid'], active: true });

describe('webhooks export', () => {
  it('a read that fails part-way writes nothing: no part of the account, which apply --prune would take as "delete the rest"', async () => {
    for (const output of [undefined, join(dir, 'webhooks.yaml')]) {
      const fake = fakeDeps();
      mockToken(fake.mock);
      fake.mock
        .intercept({ path: (p) => pathOnly(p) === '/v1/webhooks', method: 'GET' })
        .reply(() => jsonReply(200, { data: [hook(1), hook(2)], has_more: true, next_cursor: 'c_2' }));
      fake.mock
        .intercept({ path: (p) => pathOnly(p) === '/v1/webhooks', method: 'GET' })
        .reply(() => jsonReply(400, { error: { code: 'bad_cursor', message: 'the cursor expired' } }));
      const error = await rejectionOf(run({ output, force: false }, fake.deps));
      expect(error.message).toContain('the cursor expired');
      expect(fake.stdout.text).toBe('');
      expect(readdirSync(dir)).toEqual([]);
      expect(existsSync(join(dir, 'webhooks.yaml'))).toBe(false);
    }
  });
});
