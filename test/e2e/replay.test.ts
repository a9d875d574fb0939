import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListen } from '../helpers/cli.js';
import { postDelivery } from '../helpers/delivery.js';
import { untilRefused } from '../helpers/http.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// What only a process shows of listen --record: a real Ctrl-C while an answer is under way. The process must not end
// before that answer is given and recorded (in-process, the test's process would answer it whatever listen did). The
// rest of the record and replay loop is in test/integration/replay.test.ts.

let workDir: string;
let app: Receiver;

beforeAll(async () => {
  app = await startReceiver();
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-replay-'));
});

afterAll(async () => {
  await app?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('listen --record at the end', () => {
  it('Ctrl-C while an answer waits (its forward, then --delay): the answer is given and recorded, then exit 130, no error', async () => {
    const file = join(workDir, 'delayed.ndjson');
    // The app holds the forward until the test lets it go: the request is under way in listen, its answer to come after
    // the app's and the --delay after it.
    app.respondWith = (request) => (request.path === '/held' ? 'hold' : 200);
    try {
      const listener = await startListen(['--secret', 'whsec_held', '--record', file, '--forward-to', `${app.url}/held`, '--delay', '200ms']);
      const answered = postDelivery(`${listener.url}/slow`, 'whsec_held', 'dlv_held');
      await app.waitFor(1, 20_000, '/held');
      listener.child.kill('SIGINT');
      // Stopped: it takes no new connection; the request under way goes on once the app answers.
      await untilRefused(listener.url);
      app.release();
      expect((await answered).status).toBe(200);
      expect(await listener.exit).toBe(130);
      expect(listener.stderr()).not.toMatch(/EBADF|Error:/);
      expect(JSON.parse(readFileSync(file, 'utf8').trim())).toMatchObject({ path: '/slow', answered: 200 });
    } finally {
      app.respondWith = () => 200;
      app.release();
    }
  });
});
