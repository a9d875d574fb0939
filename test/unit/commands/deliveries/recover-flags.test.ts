import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/deliveries/recover.js';
import { NO_PROMPT } from '../../../../src/cli/errors.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const recover = verb(['deliveries', 'recover'], command);

describe('deliveries recover: flags', () => {
  it('every failed delivery of every webhook, over the whole log, by default', async () => {
    const { options } = await recover.ran(['--yes']);
    expect(options).toMatchObject({
      status: 'failed',
      webhooks: [],
      events: [],
      since: undefined,
      until: undefined,
      dryRun: false,
      yes: true,
      concurrency: 8,
      verbose: false,
      argv: ['deliveries', 'recover', '--yes'],
    });
    expect(options.stop).toBeInstanceOf(AbortSignal);
  });

  it('--webhook and --event repeat (a webhook named twice is taken once); --since and --until take durations and times', async () => {
    const options = await recover.options([
      '--webhook',
      'wh_1',
      '--webhook',
      'wh_2',
      '--webhook',
      'wh_1',
      '--event',
      'invoice.paid',
      '--event',
      'product.updated',
      '--since',
      '3d',
      '--until',
      '2026-11-23T08:00:00Z',
      '--status',
      'pending',
      '--dry-run',
      '--concurrency',
      '1',
      '--verbose',
    ]);
    expect(options).toMatchObject({
      webhooks: ['wh_1', 'wh_2'],
      events: ['invoice.paid', 'product.updated'],
      since: { ago: 3 * 86_400_000 },
      until: { at: Date.parse('2026-11-23T08:00:00Z') },
      status: 'pending',
      dryRun: true,
      yes: false,
      concurrency: 1,
      verbose: true,
    });
  });

  it('without --yes or --dry-run: asked on a terminal; without one, a usage error', async () => {
    const refusal = {
      code: 2,
      stderr: `whsvc: re-sending needs confirmation: pass --yes, or see what would be re-sent with --dry-run (${NO_PROMPT})\n`,
    };
    expect(await recover.refused(['--since', '2h'])).toEqual(refusal);
    expect(await recover.refused(['--since', '2h'], { terminal: true, env: { CI: 'true' } })).toEqual(refusal);
    expect((await recover.options(['--since', '2h'], { terminal: true })).yes).toBe(false);
    expect((await recover.options(['--dry-run'])).dryRun).toBe(true);
  });

  it('an empty window is refused when it can be told without the service: two durations, or two times', async () => {
    const empty = { code: 2, stderr: 'whsvc: --since is later than --until: nothing can be in between\n' };
    expect(await recover.refused(['--since', '30m', '--until', '2h', '--yes'])).toEqual(empty);
    expect(await recover.refused(['--since', '2026-11-24T00:00:00Z', '--until', '2026-11-23T00:00:00Z', '--yes'])).toEqual(empty);
    // A duration against a time is ordered on the service's clock, in the run.
    expect(await recover.options(['--since', '2h', '--until', '2026-11-23T00:00:00Z', '--yes'])).toMatchObject({ since: { ago: 7_200_000 } });
  });

  it('--status is failed or pending; --since a duration or a time', async () => {
    expect(await recover.refused(['--status', 'delivered', '--yes'])).toEqual({
      code: 2,
      stderr: `whsvc: --status delivered: use one of failed, pending\n${SEE_HELP}`,
    });
    expect((await recover.refused(['--since', 'yesterday', '--yes'])).stderr.split('\n')[0]).toBe(
      'whsvc: --since yesterday: must be a duration back from now (30m, 2h, 3d) or an ISO 8601 time (2026-11-23T08:00:00Z)',
    );
  });
});
