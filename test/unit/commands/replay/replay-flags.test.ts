import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/replay/replay.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const replay = verb(['replay'], command);

describe('replay: flags', () => {
  it('a record file and --to are required; one replay at a time by default', async () => {
    const { options, deps } = await replay.ran(['deliveries.ndjson', '--to', 'http://localhost:3000/webhooks']);
    expect(options).toEqual({
      file: 'deliveries.ndjson',
      to: 'http://localhost:3000/webhooks',
      secretFile: undefined,
      events: undefined,
      deliveries: undefined,
      since: undefined,
      until: undefined,
      concurrency: 1,
      dryRun: false,
      timeoutMs: undefined,
      json: false,
      color: true,
    });
    expect(deps.stop).toBeInstanceOf(AbortSignal);
    expect(deps.stdoutWasClosed?.()).toBe(false);
    expect(await replay.refused(['deliveries.ndjson'])).toEqual({ code: 2, stderr: `whsvc: --to is required\n${SEE_HELP}` });
    expect(await replay.refused(['--to', 'http://localhost:3000'])).toEqual({ code: 2, stderr: `whsvc: <file> is required\n${SEE_HELP}` });
  });

  it('each flag to its option: filters repeat, --since and --until take durations and times', async () => {
    const options = await replay.options([
      ...['-', '--to', 'localhost:3000', '--secret-file', 'test-secret.txt', '--event', 'invoice.paid', '--event', 'product.updated'],
      ...['--delivery', 'dlv_1', '--since', '3d', '--until', '2026-11-23T08:00:00Z', '--concurrency', '32', '--dry-run', '--json'],
      ...['--request-timeout', '2s'],
    ]);
    expect(options).toMatchObject({
      file: '-',
      to: 'localhost:3000',
      secretFile: 'test-secret.txt',
      events: ['invoice.paid', 'product.updated'],
      deliveries: ['dlv_1'],
      since: { ago: 3 * 86_400_000 },
      until: { at: Date.parse('2026-11-23T08:00:00Z') },
      concurrency: 32,
      dryRun: true,
      timeoutMs: 2000,
      json: true,
    });
  });

  it('bad values are usage errors', async () => {
    expect((await replay.refused(['f', '--to', 'http://x', '--concurrency', '33'])).stderr.split('\n')[0]).toBe(
      'whsvc: --concurrency 33: must be an integer from 1 to 32',
    );
    expect((await replay.refused(['f', '--to', 'http://x', '--since', 'last week'])).code).toBe(2);
  });
});
