import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/send/send.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const send = verb(['send'], command);

describe('send: flags', () => {
  it("a URL; the catalog's sample of the event, unsigned, held to the service's 10 s, by default", async () => {
    expect(await send.options(['http://localhost:3000/webhooks'])).toEqual({
      url: 'http://localhost:3000/webhooks',
      event: undefined,
      set: [],
      data: undefined,
      secretFile: undefined,
      record: undefined,
      platformName: 'Service',
      timeoutMs: 10_000,
      json: false,
      color: true,
    });
    expect(await send.refused([])).toEqual({ code: 2, stderr: `whsvc: <url> is required\n${SEE_HELP}` });
  });

  it('each flag to its option: --set repeats, its values JSON where they parse', async () => {
    const options = await send.options([
      ...['http://localhost:3000', '--event', 'sales_order.created', '--set', 'total.amount=500', '--set', 'total.currency=USD'],
      ...['--secret-file', 'whsec.txt', '--record', 'sent.ndjson', '--platform-name', 'Acme', '--request-timeout', '2s', '--json'],
    ]);
    expect(options).toMatchObject({
      event: 'sales_order.created',
      set: [
        { given: 'total.amount=500', path: ['total', 'amount'], value: 500 },
        { given: 'total.currency=USD', path: ['total', 'currency'], value: 'USD' },
      ],
      secretFile: 'whsec.txt',
      record: 'sent.ndjson',
      platformName: 'Acme',
      timeoutMs: 2000,
      json: true,
    });
    expect((await send.options(['http://x', '--data', '-'])).data).toBe('-');
    expect((await send.options(['http://x'], { env: { WHSVC_TIMEOUT: '1m' } })).timeoutMs).toBe(60_000);
  });

  it('an event type outside the catalog, a --set that is no path=value, a second secret: usage errors', async () => {
    expect((await send.refused(['http://x', '--event', 'invoice.payed'])).stderr.split('\n')[0]).toBe(
      'whsvc: --event invoice.payed: use one of product.updated, inventory.changed, sales_order.created, production_order.completed, invoice.paid; did you mean invoice.paid?',
    );
    expect(await send.refused(['http://x', '--set', 'amount'])).toEqual({
      code: 2,
      stderr: `whsvc: --set amount: must be path=value, such as amount.amount=500 or amount.currency=USD\n${SEE_HELP}`,
    });
    expect((await send.refused(['http://x', '--secret-file', 'a', '--secret-file', 'b'])).stderr.split('\n')[0]).toBe(
      'whsvc: --secret-file b: is given twice: a delivery is signed with one secret',
    );
  });
});
