import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/webhooks/update.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const update = verb(['webhooks', 'update'], command);
const none = { url: undefined, events: undefined, addEvents: undefined, removeEvents: undefined, active: undefined };

describe('webhooks update: flags', () => {
  it('only what is given: each flag to its option', async () => {
    expect(await update.options(['wh_1', '--add-events', 'product.updated,invoice.paid'])).toEqual({
      ...none,
      id: 'wh_1',
      addEvents: ['product.updated', 'invoice.paid'],
    });
    expect(await update.options(['wh_1', '--url', 'localhost:3000/x', '--events', 'invoice.paid', '--inactive'])).toEqual({
      ...none,
      id: 'wh_1',
      url: 'http://localhost:3000/x',
      events: ['invoice.paid'],
      active: false,
    });
    expect(await update.options(['wh_1', '--remove-events', 'invoice.paid', '--add-events', 'product.updated', '--active'])).toEqual({
      ...none,
      id: 'wh_1',
      addEvents: ['product.updated'],
      removeEvents: ['invoice.paid'],
      active: true,
    });
  });

  it('nothing to update is a usage error', async () => {
    expect(await update.refused(['wh_1'])).toEqual({
      code: 2,
      stderr: 'whsvc: nothing to update: pass --url, --events, --add-events, --remove-events, --active or --inactive\n',
    });
  });

  it('--events replaces the list: not with --add-events or --remove-events', async () => {
    const line = 'whsvc: --events replaces the whole list; it cannot be combined with --add-events or --remove-events\n';
    expect(await update.refused(['wh_1', '--events', 'invoice.paid', '--add-events', 'product.updated'])).toEqual({ code: 2, stderr: line });
    expect(await update.refused(['wh_1', '--events', 'invoice.paid', '--remove-events', 'product.updated'])).toEqual({ code: 2, stderr: line });
  });

  it('--active and --inactive together are refused as commander parses them', async () => {
    expect(await update.refused(['wh_1', '--active', '--inactive'])).toEqual({
      code: 2,
      stderr: `whsvc: option '--active' cannot be used with option '--inactive'\n${SEE_HELP}`,
    });
  });

  it('a URL the service would not take, or an event type twice, is refused', async () => {
    expect(await update.refused(['wh_1', '--url', 'http://example.com/x'])).toEqual({
      code: 2,
      stderr: 'whsvc: --url "http://example.com/x": the URL must use https (http is accepted only for localhost and 127.0.0.1)\n',
    });
    // A word that names no host stays as it is, and is no URL (example.com/hooks is https://example.com/hooks).
    expect((await update.refused(['wh_1', '--url', 'hooks'])).stderr).toMatch(/^whsvc: --url "hooks": the URL must be an absolute URL/);
    expect((await update.refused(['wh_1', '--add-events', 'a.b, a.b'])).stderr).toBe(`whsvc: --add-events 'a.b, a.b': a.b is listed twice\n${SEE_HELP}`);
  });
});
