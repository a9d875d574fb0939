import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/webhooks/get.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const get = verb(['webhooks', 'get'], command);

describe('webhooks get: flags', () => {
  it('takes one webhook id', async () => {
    expect(await get.options(['wh_1'])).toEqual({ id: 'wh_1' });
    expect(await get.refused([])).toEqual({ code: 2, stderr: `whsvc: <id> is required\n${SEE_HELP}` });
    expect((await get.refused(['wh_1', 'wh_2'])).stderr.split('\n')[0]).toBe('whsvc: too many arguments for get: expected 1 argument but got 2: wh_1, wh_2');
  });

  it('a path of the interface is no id', async () => {
    expect((await get.refused(['webhook-events'])).stderr.split('\n')[0]).toBe(
      'whsvc: "webhook-events" is not a webhook id: it is the path of the event catalog (whsvc events)',
    );
    expect((await get.refused([''])).stderr.split('\n')[0]).toBe("whsvc: <id> '': a webhook id cannot be empty");
  });
});
