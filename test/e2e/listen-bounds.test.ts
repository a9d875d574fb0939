import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startListen } from '../helpers/cli.js';
import { streamBody } from '../helpers/hostile-senders.js';

// What only a process shows: listen's own memory while a sender streams a body far larger than it takes.

const MB = 1_000_000;
const BOUND = 300 * MB;

/** The peak resident memory (VmHWM) of the test's own child so far, in bytes. */
const peakOf = (pid: number) => Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('listen under a huge body', () => {
  it.runIf(existsSync('/proc/self/status'))('a 1.5 GB body streamed at it is answered 413, its peak memory under 300 MB all along', async () => {
    const listen = await startListen(['--secret', 'whsec_listen_bounds_e2e']);
    const pid = listen.child.pid!;
    // Looked at before each MiB sent: a listen that takes the body stops the sender once it is past the bound, not at 4.9 GB.
    const sent = await streamBody(listen.url, 1_500 * MB, { declared: false, goOn: () => peakOf(pid) < BOUND });
    const peak = peakOf(pid);
    expect(peak, `listen's peak: ${Math.round(peak / MB)} MB`).toBeLessThan(BOUND);
    expect(sent.status).toBe(413);
    expect(await listen.stop()).toBe(130);
    expect(listen.stderr()).toContain('whsvc listen: 1 request body over 1 MiB refused (413)\n');
  });
});
