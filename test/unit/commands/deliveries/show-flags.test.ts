import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/deliveries/show.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const show = verb(['deliveries', 'show'], command);

describe('deliveries show: flags', () => {
  it('takes one delivery id, not a path', async () => {
    expect(await show.options(['dlv_1', '--json'])).toEqual({ id: 'dlv_1' });
    expect(await show.refused([])).toEqual({ code: 2, stderr: `whsvc: <delivery-id> is required\n${SEE_HELP}` });
    expect((await show.refused(['.'])).stderr.split('\n')[0]).toBe('whsvc: "." is not a delivery id: it would name the collection, not one of its items');
  });
});
