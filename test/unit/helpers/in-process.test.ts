import { describe, expect, it } from 'vitest';
import { startInProcess, stopLeftoversInProcess } from '../../helpers/in-process.js';

// The integration files share a worker: what one leaves going must not go on into the next (test/in-process-setup.ts).

describe('stopLeftoversInProcess', () => {
  it('stops each run still going in-process, as SIGTERM does, and leaves alone those that ended', async () => {
    const ended = startInProcess(['--version']);
    expect(await ended.exit).toBe(0);
    const listen = startInProcess(['listen', '--port', '0', '--secret', 'whsec_left_over']);
    await listen.until(() => listen.stderr().includes('ready at'), "listen's ready line");
    await stopLeftoversInProcess();
    // Ended by then: its exit comes before the value raced against it.
    expect(await Promise.race([listen.exit, 'running'])).toBe(0);
  });
});
