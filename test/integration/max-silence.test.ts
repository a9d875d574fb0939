import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { postDelivery } from '../helpers/delivery.js';
import { runInProcess, startInProcess, startListenInProcess, startSandboxInProcess, startTailInProcess } from '../helpers/in-process.js';

// --max-silence: a long-running listen or tail that hears nothing exits 6, so that a supervisor starts it again.

let configDir: string;

beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-silence-'));
});

afterAll(() => rmSync(configDir, { recursive: true, force: true }));

// Each test waits out a limit of its own, on a listen or a sandbox of its own: they wait together.
describe.concurrent('--max-silence', () => {
  it('listen: a request resets the watch; then nothing for the limit is exit 6, said in one line', async () => {
    const listener = await startListenInProcess(['--secret', 'whsec_silence', '--max-silence', '1s']);
    try {
      const answer = await postDelivery(listener.url, 'whsec_silence', 'dlv_silence1');
      expect(answer.status).toBe(200);
      expect(await listener.exit).toBe(6);
      expect(listener.stderr()).toMatch(/\nwhsvc listen: no request for 1 s \(--max-silence\): stopping, exit 6\n/);
      expect(listener.stdout()).toContain('dlv_silence1');
    } finally {
      await listener.stop();
    }
  });

  it('deliveries tail: polls answered keep it going; a service gone for the limit is exit 6, said in one line', async () => {
    const sandbox = await startSandboxInProcess(['--quiet']);
    const tail = await startTailInProcess(['--interval', '200ms', '--max-silence', '1s'], { env: sandboxEnv(sandbox.info, configDir) });
    try {
      expect(await sandbox.stop()).toBe(0);
      expect(await tail.exit).toBe(6);
      expect(tail.stderr()).toMatch(/\nwhsvc: no poll of the delivery log answered for 1 s \(--max-silence\): stopping, exit 6\n/);
    } finally {
      await Promise.all([tail.stop(), sandbox.stop()]);
    }
  });

  it('deliveries tail: a limit shorter than two polls is a usage error before anything is asked (it would stop a healthy tail)', async () => {
    const result = await runInProcess(['deliveries', 'tail', '--max-silence', '3s'], {
      env: { WHSVC_CONFIG_DIR: configDir, WHSVC_BASE_URL: 'http://127.0.0.1:9', WHSVC_CLIENT_ID: 'x', WHSVC_CLIENT_SECRET: 'y', CI: 'true' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^whsvc: --max-silence 3s is shorter than two polls \(--interval 2s\): a tail that hears the service would stop\n/);
  });
});

// Fakes the clock of the whole process for a moment: never beside the tests above, which wait on real sockets.
describe('--max-silence on a port in use', () => {
  it('listen on a port in use: the error and its exit code at once; no watch left to fire, no signal left held', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    // listen's timers on a clock of the test's: the hour of --max-silence can be made to pass at once.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const listener = startInProcess(['listen', '--port', String(port), '--max-silence', '1h']);
      expect(await listener.exit).toBe(1);
      const said = listener.stderr();
      expect(said).toBe(`whsvc: port ${port} on 127.0.0.1 is already in use\nhint: pick another with --port N, or --port 0 for any free port\n`);
      // The marker: past the hour, any watch still armed has fired (and said its line).
      vi.advanceTimersByTime(2 * 3_600_000);
      expect(listener.stderr()).toBe(said);
      expect(listener.signalListeners()).toBe(0);
    } finally {
      vi.useRealTimers();
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
