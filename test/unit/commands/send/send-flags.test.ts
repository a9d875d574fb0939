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

describe('send --rate: flags', () => {
  const load = ['http://localhost:3000/webhooks', '--secret-file', 'whsec.txt', '--rate', '200', '--duration', '10s'];

  it('a load: --rate and --duration, 5% repeats and 1000 open at most unless given; Ctrl-C ends it with its report', async () => {
    const { options, deps } = await send.ran(load);
    expect(options.load).toEqual({ perSecond: 200, durationMs: 10_000, spikes: [], repeatShare: 0.05, maxInFlight: 1000, yes: false });
    expect(options).toMatchObject({ secretFile: 'whsec.txt', timeoutMs: 10_000 });
    expect(deps.stop).toBeInstanceOf(AbortSignal);
    expect(deps.canPrompt).toBe(false);
    expect((await send.ran(load, { terminal: true })).deps.canPrompt).toBe(true);
    expect((await send.ran([...load, '--no-input'], { terminal: true })).deps.canPrompt).toBe(false);
    // One delivery has neither.
    const one = await send.ran(['http://x']);
    expect(one.options.load).toBeUndefined();
    expect(one.deps.stop).toBeUndefined();
  });

  it('each flag of a load to its option: spikes repeat, --repeats a share, --yes, --event one type, --request-timeout the limit', async () => {
    const options = await send.options([
      ...load,
      ...['--rate', '12000/m', '--spike', '10x@2s+1s', '--spike', '2000@5s+500ms', '--repeats', '10%', '--max-in-flight', '50', '-y'],
      ...['--event', 'invoice.paid', '--request-timeout', '2s'],
    ]);
    expect(options.load).toEqual({
      perSecond: 200,
      durationMs: 10_000,
      spikes: [
        { given: '10x@2s+1s', perSecond: undefined, times: 10, atMs: 2000, forMs: 1000 },
        { given: '2000@5s+500ms', perSecond: 2000, times: undefined, atMs: 5000, forMs: 500 },
      ],
      repeatShare: 0.1,
      maxInFlight: 50,
      yes: true,
    });
    expect(options).toMatchObject({ event: 'invoice.paid', timeoutMs: 2000 });
  });

  it('refuses what does not make a load: either of --rate and --duration alone, a flag of a load without them, the flags of one delivery, no secret', async () => {
    const refusedLine = async (args: string[]) => {
      const { code, stderr } = await send.refused(args);
      return `${code} ${stderr.split('\n')[0]}`;
    };
    const url = 'http://localhost:3000/webhooks';
    expect(await refusedLine([url, '--rate', '200'])).toBe('2 whsvc: --rate goes with --duration: how long to send, such as --duration 60s');
    expect(await refusedLine([url, '--duration', '10s'])).toBe('2 whsvc: --duration goes with --rate: how many deliveries a second, such as --rate 200');
    expect(await refusedLine([url, '--spike', '10x@1s+1s'])).toBe('2 whsvc: --spike goes with a load: --rate R --duration D');
    expect(await refusedLine([url, '--max-in-flight', '5'])).toBe('2 whsvc: --max-in-flight goes with a load: --rate R --duration D');
    expect(await refusedLine([url, '--yes'])).toBe('2 whsvc: --yes goes with a load: --rate R --duration D');
    expect(await refusedLine([...load, '--data', '{}'])).toBe(
      "2 whsvc: --data is for one delivery: a load sends the catalog's samples (--event TYPE for one type)",
    );
    expect(await refusedLine([...load, '--set', 'a=1'])).toBe(
      "2 whsvc: --set is for one delivery: a load sends the catalog's samples (--event TYPE for one type)",
    );
    expect(await refusedLine([...load, '--record', 'x.ndjson'])).toBe(
      "2 whsvc: --record is for one delivery: a load sends the catalog's samples (--event TYPE for one type)",
    );
    expect(await send.refused([url, '--rate', '200', '--duration', '10s'])).toEqual({
      code: 2,
      stderr: 'whsvc: a load is signed: give --secret-file, the secret your receiver verifies with\nhint: unsigned, every delivery tries only its refusal\n',
    });
  });

  it('refuses values out of their forms, before anything is sent', async () => {
    const first = async (args: string[]) => (await send.refused([...load, ...args])).stderr.split('\n')[0];
    expect(await first(['--rate', 'fast'])).toBe(
      'whsvc: --rate fast: must be a number of deliveries a second (200), or per a duration (200/s, 12000/m, 50/500ms)',
    );
    expect(await first(['--duration', '500ms'])).toBe('whsvc: --duration 500ms: must be at least 1s');
    expect(await first(['--duration', '2d'])).toBe('whsvc: --duration 2d: must be at most 1d');
    expect(await first(['--spike', '10x'])).toBe(
      'whsvc: --spike 10x: must be RATE@START+LENGTH: 10x@20s+10s (ten times --rate, 20 s in, for 10 s), or 2000@1m+30s (2000 a second)',
    );
    expect(await first(['--repeats', '150%'])).toBe('whsvc: --repeats 150%: must be a share from 0 to 1, such as 0.25 or 25%');
    expect(await first(['--max-in-flight', '0'])).toBe('whsvc: --max-in-flight 0: must be an integer from 1 to 100000');
  });
});
