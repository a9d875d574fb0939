import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/check-receiver/check-receiver.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const check = verb(['check-receiver'], command);

describe('check-receiver: flags', () => {
  it("a URL and a secret file are required; every event type, answers awaited the service's 10 s, by default", async () => {
    expect(await check.options(['http://localhost:3000/webhooks', '--secret-file', 'whsec.txt'])).toEqual({
      url: 'http://localhost:3000/webhooks',
      secretFiles: ['whsec.txt'],
      events: undefined,
      platformName: 'Service',
      effects: undefined,
      limitMs: 10_000,
      limitGiven: false,
      json: false,
      color: true,
    });
    expect(await check.refused(['http://x'])).toEqual({ code: 2, stderr: `whsvc: --secret-file is required\n${SEE_HELP}` });
    expect(await check.refused(['--secret-file', 'whsec.txt'])).toEqual({ code: 2, stderr: `whsvc: <url> is required\n${SEE_HELP}` });
  });

  it('secrets and event types repeat; --effects is a command, as given; --request-timeout (or WHSVC_TIMEOUT) is the limit each answer is held to', async () => {
    const options = await check.options([
      ...['https://staging.example.com/hooks', '--secret-file', 'old.txt', '--secret-file', 'new.txt'],
      ...['--event', 'invoice.paid', '--event', 'product.updated', '--platform-name', 'Acme', '--request-timeout', '3s', '--json'],
      ...['--effects', 'sqlite3 app.db "select count(*) from payments"'],
    ]);
    expect(options).toEqual({
      url: 'https://staging.example.com/hooks',
      secretFiles: ['old.txt', 'new.txt'],
      events: ['invoice.paid', 'product.updated'],
      platformName: 'Acme',
      effects: 'sqlite3 app.db "select count(*) from payments"',
      limitMs: 3000,
      limitGiven: true,
      json: true,
      color: true,
    });
    expect(await check.options(['http://x', '--secret-file', 's'], { env: { WHSVC_TIMEOUT: '2' } })).toMatchObject({ limitMs: 2000, limitGiven: true });
  });

  it('an event type outside the catalog is refused with a suggestion', async () => {
    expect((await check.refused(['http://x', '--secret-file', 's', '--event', 'invoice.payed'])).stderr.split('\n')[0]).toBe(
      'whsvc: --event invoice.payed: use one of product.updated, inventory.changed, sales_order.created, production_order.completed, invoice.paid; did you mean invoice.paid?',
    );
  });
});
