import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListen } from '../helpers/cli.js';
import { postDelivery } from '../helpers/delivery.js';

// What only a process shows of the files whsvc writes: a record kept before the answer, whatever kill -9 cuts off.
// Every other file test is in-process (test/integration/files.test.ts).
let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-files-'));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe('listen keeps a delivery before it answers', () => {
  it('the record holds the delivery by the time the sender reads the answer, even when listen is killed (-9) right then', async () => {
    const secret = 'whsec_keep_before_answer';
    const file = join(workDir, 'kept.ndjson');
    const listener = await startListen(['--secret', secret, '--record', file]);
    // A large body (near the most listen takes, 1 MiB): writing its record takes long enough that an answer given first
    // would be read before it is kept.
    const body = JSON.stringify({ id: 'inv_big', event: 'invoice.paid', data: 'x'.repeat(1_000_000) });
    const answer = await postDelivery(`${listener.url}/hooks`, secret, 'dlv_kept_1', { body });
    listener.child.kill('SIGKILL');
    expect(answer.status).toBe(200);
    const text = readFileSync(file, 'utf8');
    await listener.exit;
    expect(text.endsWith('\n')).toBe(true);
    const record = JSON.parse(text);
    expect(record).toMatchObject({ delivery_id: 'dlv_kept_1', answered: 200 });
    expect(record.body).toBe(body);
  });
});
