import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/deliveries/list.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const list = verb(['deliveries', 'list'], command);

describe('deliveries list: flags', () => {
  it("a webhook's log, one page by default; each flag to its option", async () => {
    expect(await list.options(['wh_1'])).toEqual({ webhookId: 'wh_1', status: undefined, limit: undefined, cursor: undefined, all: false });
    expect(await list.options(['wh_1', '--status', 'failed', '--limit', '1', '--cursor', 'c_9', '--all'])).toEqual({
      webhookId: 'wh_1',
      status: 'failed',
      limit: 1,
      cursor: 'c_9',
      all: true,
    });
  });

  it('--status is delivered, failed or pending, with a suggestion for a near miss', async () => {
    expect(await list.refused(['wh_x', '--status', 'faild'])).toEqual({
      code: 2,
      stderr: `whsvc: --status faild: use one of delivered, failed, pending; did you mean failed?\n${SEE_HELP}`,
    });
    expect((await list.refused(['wh_x', '--status', 'fail'])).stderr.split('\n')[0]).toBe(
      'whsvc: --status fail: use one of delivered, failed, pending; did you mean failed?',
    );
  });

  it('the webhook id is required, and cannot be a path', async () => {
    expect(await list.refused([])).toEqual({ code: 2, stderr: `whsvc: <webhook-id> is required\n${SEE_HELP}` });
    expect((await list.refused(['..'])).stderr.split('\n')[0]).toBe('whsvc: ".." is not a webhook id: it would name the collection, not one of its items');
    expect((await list.refused(['wh_1', '--limit', '500'])).stderr.split('\n')[0]).toBe('whsvc: --limit 500: must be an integer from 1 to 200');
  });
});
