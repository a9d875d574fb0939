import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/deliveries/retry.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const retry = verb(['deliveries', 'retry'], command);

describe('deliveries retry: flags', () => {
  it('one id or several; 8 re-sends in flight by default', async () => {
    expect(await retry.options(['dlv_1'])).toMatchObject({ ids: ['dlv_1'], concurrency: 8, verbose: false });
    expect(await retry.options(['dlv_A', 'dlv_B', 'dlv_C', '--concurrency', '32', '--verbose'])).toMatchObject({
      ids: ['dlv_A', 'dlv_B', 'dlv_C'],
      concurrency: 32,
      verbose: true,
    });
  });

  it('Ctrl-C stops taking ids only when asked for, by a run of several', async () => {
    const { options } = await retry.ran(['dlv_A', 'dlv_B']);
    expect(options.stop).toBeTypeOf('function');
    expect(options.stop!().aborted).toBe(false);
  });

  it('an id is required, each one checked; --concurrency is 1 to 32', async () => {
    expect(await retry.refused([])).toEqual({ code: 2, stderr: `whsvc: <delivery-id> is required\n${SEE_HELP}` });
    expect((await retry.refused(['dlv_1', '..'])).stderr.split('\n')[0]).toBe(
      'whsvc: ".." is not a delivery id: it would name the collection, not one of its items',
    );
    expect(await retry.refused(['dlv_1', '--concurrency', '33'])).toEqual({
      code: 2,
      stderr: `whsvc: --concurrency 33: must be an integer from 1 to 32\n${SEE_HELP}`,
    });
  });
});
