import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../../src/api/client.js';
import { AuthError } from '../../../../src/api/errors.js';
import type { Attempt } from '../../../../src/api/shapes.js';
import { type ResendResult, type ResendTarget, resendAll } from '../../../../src/commands/deliveries/shared/resend.js';

/** A service whose re-sends are each held until the test answers it: what is in flight at any moment is the test's to see. */
function heldService() {
  const held: Array<{ id: string; answer: (status: 'delivered' | 'failed') => void; fail: (error: unknown) => void }> = [];
  const sent: string[] = [];
  let inFlight = 0;
  let most = 0;
  const api = {
    retryAfterWaits: 0,
    onWait: undefined,
    json: (_method: string, path: string) => {
      const id = path.split('/')[4]!;
      sent.push(id);
      inFlight += 1;
      most = Math.max(most, inFlight);
      return new Promise<Attempt>((resolve, reject) => {
        const settle = () => {
          inFlight -= 1;
          held.splice(held.indexOf(entry), 1);
        };
        const entry = {
          id,
          answer: (status: 'delivered' | 'failed') => {
            settle();
            resolve({ id: `${id}_again`, delivery_id: id, status, response_code: status === 'delivered' ? 200 : 503 } as Attempt);
          },
          fail: (error: unknown) => {
            settle();
            reject(error);
          },
        };
        held.push(entry);
      });
    },
  };
  return { api: api as unknown as ApiClient, held, sent, most: () => most };
}

/** What the run told its report, in order. */
function recordingReport() {
  const told: string[] = [];
  return {
    told,
    report: {
      taken: () => told.push('taken'),
      scanned: () => told.push('scanned'),
      result: (result: ResendResult) => told.push(`${result.outcome} ${result.target.deliveryId}`),
      failed: (error: unknown) => told.push(`failed: ${(error as Error).message}`),
      waiting: () => told.push('waiting'),
    },
  };
}

/** A walk of a log of `count` deliveries that counts how far it was read; with `breaksAt`, it fails there once `breaks()` is called. */
function walk(count: number, breaksAt?: number) {
  const read = { count: 0 };
  let breaks = () => {};
  const broken = new Promise<void>((resolve) => (breaks = resolve));
  async function* targets(): AsyncGenerator<ResendTarget> {
    for (let i = 0; i < count; i++) {
      if (i === breaksAt) {
        await broken;
        throw new Error('the log could not be read');
      }
      read.count = i + 1;
      yield { attemptId: `dlv_${i}`, deliveryId: `dlv_${i}` };
    }
  }
  return { targets: targets(), read, breaks };
}

/** Until every promise the run can settle on its own has settled (the service and the walk are in memory). */
async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await turn();
}

describe('resendAll', () => {
  it('keeps `concurrency` re-sends in flight, no more, and reads the walk ahead of them in bounded memory', async () => {
    const service = heldService();
    const { targets, read } = walk(1000);
    const { report } = recordingReport();
    const running = resendAll({ api: service.api }, targets, { concurrency: 3, report });
    await settled();
    expect(service.held).toHaveLength(3);
    // Ahead of the sends (a send that ends finds its next target read), by no more than `concurrency`.
    expect(read.count).toBeGreaterThan(3);
    expect(read.count).toBeLessThanOrEqual(3 + 3);
    while (service.held.length > 0) {
      service.held[0]!.answer('delivered');
      await settled();
    }
    await running;
    expect(service.most()).toBe(3);
    expect(new Set(service.sent).size).toBe(1000);
    expect(service.sent).toHaveLength(1000);
  });

  it('once stopped, sends nothing new and reads no further; the re-sends in flight finish and are told before it returns', async () => {
    const service = heldService();
    const { targets, read } = walk(10);
    const { report, told } = recordingReport();
    const stop = new AbortController();
    let returned = false;
    const running = resendAll({ api: service.api }, targets, { concurrency: 2, stop: stop.signal, report }).then(() => (returned = true));
    await settled();
    stop.abort();
    const readWhenStopped = read.count;
    await settled();
    expect(returned).toBe(false);
    service.held[1]!.answer('failed');
    service.held[0]!.answer('delivered');
    await running;
    expect(service.sent).toEqual(['dlv_0', 'dlv_1']);
    // The walk is a log read page by page: after a stop, no page more is asked for.
    expect(read.count).toBe(readWhenStopped);
    expect(told.filter((line) => line !== 'taken' && line !== 'scanned')).toEqual(['failed dlv_1', 'delivered dlv_0']);
  });

  it('a refusal of the credentials stops the run: nothing new is sent, the sends in flight are told, then the failure, and it is thrown', async () => {
    const service = heldService();
    const { targets } = walk(10);
    const { report, told } = recordingReport();
    const running = resendAll({ api: service.api }, targets, { concurrency: 3, report });
    running.catch(() => {});
    await settled();
    service.held[1]!.fail(new AuthError('the credentials were refused', 401));
    await settled();
    service.held[0]!.answer('delivered');
    await settled();
    service.held[0]!.answer('failed');
    await expect(running).rejects.toThrow('the credentials were refused');
    expect(service.sent).toEqual(['dlv_0', 'dlv_1', 'dlv_2']);
    expect(told.filter((line) => !line.startsWith('taken') && line !== 'scanned')).toEqual([
      'delivered dlv_0',
      'failed dlv_2',
      'failed: the credentials were refused',
    ]);
  });

  it('a walk of the log that fails part-way: what was taken is sent or finishes, then the failure is told and thrown', async () => {
    const service = heldService();
    const { targets, breaks } = walk(10, 2);
    const { report, told } = recordingReport();
    const running = resendAll({ api: service.api }, targets, { concurrency: 4, report });
    running.catch(() => {});
    await settled();
    expect(service.sent).toEqual(['dlv_0', 'dlv_1']);
    breaks();
    await settled();
    service.held[0]!.answer('delivered');
    service.held[0]!.answer('delivered');
    await expect(running).rejects.toThrow('the log could not be read');
    expect(told).toEqual(['taken', 'taken', 'scanned', 'delivered dlv_0', 'delivered dlv_1', 'failed: the log could not be read']);
  });
});
