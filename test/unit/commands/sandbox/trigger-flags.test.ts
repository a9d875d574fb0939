import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/sandbox/trigger.js';
import { ConfigStore } from '../../../../src/config/store.js';
import { verb } from '../../../helpers/verb.js';

const trigger = verb(['sandbox', 'trigger'], command);
const configDir = mkdtempSync(join(tmpdir(), 'whsvc-trigger-flags-'));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

describe('sandbox trigger: flags', () => {
  it('an event type of the catalog, at the default sandbox; --data is the fields to set, as an object', async () => {
    const options = await trigger.options(['invoice.paid']);
    expect(options).toMatchObject({ eventType: 'invoice.paid', data: undefined, json: false, maxAnswerBytes: 64 * 1024 ** 2 });
    expect(options.baseUrl.href).toBe('http://127.0.0.1:4010/');
    expect((await trigger.options(['invoice.paid', '--data', '{"id":"inv_42"}', '--json'])) as object).toMatchObject({
      data: { id: 'inv_42' },
      json: true,
    });
  });

  it("the sandbox of --base-url, else of the profile when it is on this machine, else the default's", async () => {
    expect((await trigger.options(['invoice.paid', '--base-url', '127.0.0.1:4999'])).baseUrl.href).toBe('http://127.0.0.1:4999/');
    await new ConfigStore(configDir).setProfile('sandbox', { base_url: 'http://127.0.0.1:4888', client_id: 'id', client_secret: 'secret' });
    await new ConfigStore(configDir).setProfile('prod', { base_url: 'https://api.example.com', client_id: 'id', client_secret: 'secret' });
    const env = { WHSVC_CONFIG_DIR: configDir };
    expect((await trigger.options(['invoice.paid', '--profile', 'sandbox'], { env })).baseUrl.href).toBe('http://127.0.0.1:4888/');
    expect((await trigger.options(['invoice.paid', '--profile', 'prod'], { env })).baseUrl.href).toBe('http://127.0.0.1:4010/');
  });

  it('refuses before any request an event type outside the catalog, --data that is no JSON object, an address that is no http(s) URL', async () => {
    expect(await trigger.refused(['invoice.payed'])).toEqual({
      code: 2,
      stderr:
        'whsvc: event type "invoice.payed" is not one of product.updated, inventory.changed, sales_order.created, production_order.completed, invoice.paid; did you mean invoice.paid?\n',
    });
    expect(await trigger.refused(['invoice.paid', '--data', '{nope'])).toEqual({
      code: 2,
      stderr: `whsvc: --data is not valid JSON\nhint: for example: --data '{"amount":{"amount":500,"currency":"USD"}}'\n`,
    });
    expect(await trigger.refused(['invoice.paid', '--data', '[1]'])).toEqual({ code: 2, stderr: 'whsvc: --data must be a JSON object\n' });
    expect(await trigger.refused(['invoice.paid', '--base-url', 'ftp://127.0.0.1:4010'])).toEqual({
      code: 2,
      stderr: 'whsvc: --base-url "ftp://127.0.0.1:4010" is not an http(s) URL\n',
    });
  });
});
