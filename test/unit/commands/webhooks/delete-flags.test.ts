import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/webhooks/delete.js';
import { NO_PROMPT } from '../../../../src/cli/errors.js';
import { verb } from '../../../helpers/verb.js';

const del = verb(['webhooks', 'delete'], command);

describe('webhooks delete: flags', () => {
  it('--yes (or -y) deletes without asking', async () => {
    expect(await del.options(['wh_1', '--yes'])).toEqual({ id: 'wh_1', yes: true });
    expect(await del.options(['-y', 'wh_1'])).toEqual({ id: 'wh_1', yes: true });
  });

  it('without --yes: asked on a terminal; without one (or with --no-input, or CI=true), a usage error', async () => {
    const refusal = { code: 2, stderr: `whsvc: deleting needs confirmation: pass --yes (${NO_PROMPT})\n` };
    expect(await del.refused(['wh_1'])).toEqual(refusal);
    expect(await del.refused(['wh_1', '--no-input'], { terminal: true })).toEqual(refusal);
    expect(await del.refused(['wh_1'], { terminal: true, env: { CI: 'true' } })).toEqual(refusal);
    expect(await del.options(['wh_1'], { terminal: true })).toEqual({ id: 'wh_1', yes: false });
  });

  it('a path of the interface is no id', async () => {
    expect((await del.refused(['webhook-deliveries', '--yes'])).stderr.split('\n')[0]).toBe(
      'whsvc: "webhook-deliveries" is not a webhook id: it is the path of the delivery log (whsvc deliveries list WEBHOOK_ID)',
    );
  });
});
