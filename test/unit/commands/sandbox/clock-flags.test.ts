import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/sandbox/clock.js';
import { verb } from '../../../helpers/verb.js';

const clock = verb(['sandbox', 'clock'], command);

describe('sandbox clock (advance, set): flags', () => {
  it('shows the clock; advance takes a duration, set a time (sent as UTC)', async () => {
    expect(await clock.options([])).toEqual({ action: 'show' });
    expect(await clock.options(['advance', '3d'])).toEqual({ action: 'advance', ms: 3 * 86_400_000 });
    expect(await clock.options(['advance', '90', '--json'])).toEqual({ action: 'advance', ms: 90_000 });
    expect(await clock.options(['set', '2030-01-01T00:00:00Z'])).toEqual({ action: 'set', to: '2030-01-01T00:00:00.000Z' });
    expect(await clock.options(['set', '2030-01-01T02:00:00+02:00'])).toEqual({ action: 'set', to: '2030-01-01T00:00:00.000Z' });
  });

  it('a time that is not ISO 8601, or a duration that is none, is a usage error before any request', async () => {
    expect(await clock.refused(['set', 'tomorrow'])).toEqual({
      code: 2,
      stderr: 'whsvc: "tomorrow" is not an ISO 8601 time\nhint: for example: whsvc sandbox clock set 2030-01-01T00:00:00Z\n',
    });
    expect((await clock.refused(['set', '2030-01-01'])).stderr.split('\n')[0]).toBe('whsvc: "2030-01-01" is not an ISO 8601 time');
    expect((await clock.refused(['advance', 'soon'])).stderr.split('\n')[0]).toBe(
      'whsvc: <duration> soon: must be a duration such as 500ms, 90s, 30m, 2h or 3d (a bare number is seconds)',
    );
    // The hint names the help of the command typed, however deep.
    expect(await clock.refused(['advance'])).toEqual({
      code: 2,
      stderr: 'whsvc: <duration> is required\nhint: see whsvc sandbox clock advance --help for usage\n',
    });
  });
});
