import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/webhooks/health.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const health = verb(['webhooks', 'health'], command);

describe('webhooks health: flags', () => {
  it('every webhook over the last 24 hours, unhealthy under 95%, by default', async () => {
    expect(await health.options([])).toEqual({ ids: [], since: undefined, failUnder: 95 });
  });

  it('ids, --since as a duration back or a time, --fail-under as a percentage', async () => {
    expect(await health.options(['wh_1', 'wh_2', '--since', '2h', '--fail-under', '99%'])).toEqual({
      ids: ['wh_1', 'wh_2'],
      since: { ago: 7_200_000 },
      failUnder: 99,
    });
    expect((await health.options(['--since', '2026-11-23T08:00:00Z', '--fail-under', '0'])) as object).toEqual({
      ids: [],
      since: { at: Date.parse('2026-11-23T08:00:00Z') },
      failUnder: 0,
    });
  });

  it('a fraction, a word for a time, or a path for an id are refused', async () => {
    expect(await health.refused(['--fail-under', '0.95'])).toEqual({
      code: 2,
      stderr: `whsvc: --fail-under 0.95: must be a percentage from 0 to 100: write 95 for 95% (or 0.95% for under one percent)\n${SEE_HELP}`,
    });
    expect((await health.refused(['--fail-under', '101'])).stderr.split('\n')[0]).toBe(
      'whsvc: --fail-under 101: must be a percentage from 0 to 100, such as 95 or 95%',
    );
    expect(await health.refused(['--since', 'yesterday'])).toEqual({
      code: 2,
      stderr: `whsvc: --since yesterday: must be a duration back from now (30m, 2h, 3d) or an ISO 8601 time (2026-11-23T08:00:00Z)\n${SEE_HELP}`,
    });
    expect((await health.refused(['webhook-events'])).stderr.split('\n')[0]).toBe(
      'whsvc: "webhook-events" is not a webhook id: it is the path of the event catalog (whsvc events)',
    );
  });
});
