import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/events/test.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const test = verb(['test'], command);

describe('test: flags', () => {
  it('a webhook id, and the event type to simulate (the catalog checks it, in the run)', async () => {
    expect(await test.options(['wh_1'])).toEqual({ webhookId: 'wh_1', event: undefined });
    expect(await test.options(['wh_1', '--event', 'sales_order.created'])).toEqual({ webhookId: 'wh_1', event: 'sales_order.created' });
  });

  it('the webhook id is required, and cannot be empty or a path', async () => {
    expect(await test.refused([])).toEqual({ code: 2, stderr: `whsvc: <webhook-id> is required\n${SEE_HELP}` });
    expect(await test.refused([''])).toEqual({ code: 2, stderr: `whsvc: <webhook-id> '': a webhook id cannot be empty\n${SEE_HELP}` });
    expect((await test.refused(['..'])).stderr.split('\n')[0]).toBe('whsvc: ".." is not a webhook id: it would name the collection, not one of its items');
  });
});
