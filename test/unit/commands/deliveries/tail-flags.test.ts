import { describe, expect, it } from 'vitest';
import type { ForwardRoute } from '../../../../src/receiver/routes.js';
import { command } from '../../../../src/commands/deliveries/tail.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const tail = verb(['deliveries', 'tail'], command);
const routes = (given: ForwardRoute[] | undefined) => given?.map(({ pattern, url, label }) => ({ pattern, url: url.href, label }));

describe('deliveries tail: flags', () => {
  it('every webhook, a poll every 2 s, until stopped, by default', async () => {
    const { options, deps } = await tail.ran([]);
    expect(options).toEqual({
      webhookIds: undefined,
      status: undefined,
      events: undefined,
      intervalMs: 2000,
      timeout: undefined,
      maxSilenceMs: undefined,
      count: undefined,
      since: undefined,
      forwardTo: undefined,
      secretFile: undefined,
      platformName: 'Service',
      checkpoint: undefined,
      record: undefined,
      interactive: false,
      forwardTimeoutMs: undefined,
    });
    expect(deps.stopSignal).toBeInstanceOf(Promise);
  });

  it('-i and --interactive ask for the screen', async () => {
    expect((await tail.options(['-i'])).interactive).toBe(true);
    expect((await tail.options(['--since', '1h', '--interactive'])).interactive).toBe(true);
  });

  it('each flag to its option: durations, repeats, and a webhook named twice followed once', async () => {
    const options = await tail.options([
      '--webhook',
      'wh_1',
      '--webhook',
      'wh_1',
      '--status',
      'delivered',
      '--event',
      'invoice.paid',
      '--event',
      'invoice.created',
      '--interval',
      '500ms',
      '--timeout',
      '90',
      '--max-silence',
      '10m',
      '--count',
      '3',
      '--since',
      '2h',
      '--record',
      'tail.ndjson',
      '--checkpoint',
      'tail.json',
      '--platform-name',
      'Acme',
    ]);
    expect(options).toMatchObject({
      webhookIds: ['wh_1'],
      status: 'delivered',
      events: ['invoice.paid', 'invoice.created'],
      intervalMs: 500,
      timeout: 90,
      maxSilenceMs: 600_000,
      count: 3,
      since: { ago: 7_200_000 },
      record: 'tail.ndjson',
      checkpoint: 'tail.json',
      platformName: 'Acme',
    });
    expect((await tail.options(['--timeout', '1500ms'])).timeout).toBe(1.5);
  });

  it('--forward-to routes by event type, in the order given; each forward waits what --request-timeout (or WHSVC_TIMEOUT) says', async () => {
    const options = await tail.options(['--forward-to', 'invoice.*=localhost:3001', '--forward-to', 'http://127.0.0.1:3000/hooks', '--request-timeout', '3s']);
    expect(routes(options.forwardTo)).toEqual([
      { pattern: 'invoice.*', url: 'http://localhost:3001/', label: 'invoice.*' },
      { pattern: null, url: 'http://127.0.0.1:3000/hooks', label: '*' },
    ]);
    expect(options.forwardTimeoutMs).toBe(3000);
    expect((await tail.options([], { env: { WHSVC_TIMEOUT: '2m' } })).forwardTimeoutMs).toBe(120_000);
  });

  it('a route that could never be taken, or one that is not http(s), is refused', async () => {
    expect(await tail.refused(['--forward-to', 'http://127.0.0.1:3000', '--forward-to', 'invoice.*=http://127.0.0.1:3001'])).toEqual({
      code: 2,
      stderr:
        'whsvc: --forward-to invoice.*=http://127.0.0.1:3001/ could never be taken: the earlier route http://127.0.0.1:3000/ takes every delivery\n' +
        "hint: a bare URL takes what the routes before it do not: give one, last, and give the others a pattern first, as in --forward-to 'invoice.*=URL' --forward-to URL\n",
    });
    expect((await tail.refused(['--forward-to', 'ftp://x/'])).stderr.split('\n')[0]).toBe(
      'whsvc: --forward-to ftp://x/: only http:// and https:// URLs can receive deliveries; give a URL, or PATTERN=URL such as invoice.*=http://localhost:3000/invoices',
    );
    expect((await tail.refused(['--forward-to', 'invoice paid=http://127.0.0.1:3000/'])).code).toBe(2);
  });

  it('--secret-file checks what is forwarded or recorded, of one webhook', async () => {
    expect(await tail.refused(['--secret-file', 'whsec.txt'])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-file checks the deliveries tail forwards or records: it needs --forward-to URL or --record FILE\n',
    });
    expect(await tail.refused(['--secret-file', 'whsec.txt', '--forward-to', 'http://127.0.0.1:3000/'])).toEqual({
      code: 2,
      stderr: "whsvc: --secret-file holds one webhook's signing secret: follow that one webhook with --webhook ID\n",
    });
    expect(await tail.refused(['--secret-file', 'whsec.txt', '--record', 'r.ndjson', '--webhook', 'wh_1', '--webhook', 'wh_2'])).toMatchObject({ code: 2 });
    expect(await tail.options(['--secret-file', '-', '--record', 'r.ndjson', '--webhook', 'wh_1', '--webhook', 'wh_1'])).toMatchObject({
      secretFile: '-',
      webhookIds: ['wh_1'],
    });
  });

  it('--max-silence shorter than two polls would stop a tail that hears the service', async () => {
    expect(await tail.refused(['--max-silence', '3s'])).toEqual({
      code: 2,
      stderr:
        'whsvc: --max-silence 3s is shorter than two polls (--interval 2s): a tail that hears the service would stop\nhint: give several intervals, such as --max-silence 1m\n',
    });
    expect((await tail.options(['--max-silence', '3s', '--interval', '1s'])).maxSilenceMs).toBe(3000);
  });

  it('the bounds of each time and count, and an empty --checkpoint', async () => {
    expect(await tail.refused(['--interval', '100ms'])).toEqual({ code: 2, stderr: `whsvc: --interval 100ms: must be at least 200ms\n${SEE_HELP}` });
    expect((await tail.refused(['--interval', '6m'])).stderr.split('\n')[0]).toBe('whsvc: --interval 6m: must be at most 5m');
    expect((await tail.refused(['--timeout', 'soon'])).stderr.split('\n')[0]).toBe(
      'whsvc: --timeout soon: must be a duration such as 500ms, 90s, 30m, 2h or 3d (a bare number is seconds)',
    );
    expect((await tail.refused(['--timeout', '500ms'])).stderr.split('\n')[0]).toBe('whsvc: --timeout 500ms: must be at least 1s');
    expect((await tail.refused(['--count', '0'])).stderr.split('\n')[0]).toBe('whsvc: --count 0: must be an integer from 1 to 1000000');
    expect((await tail.refused(['--platform-name', '-Acme'])).stderr.split('\n')[0]).toBe(
      'whsvc: --platform-name -Acme: must be letters, digits and dashes, starting with a letter (at most 40)',
    );
    expect(await tail.refused(['--checkpoint', ' '])).toEqual({
      code: 2,
      stderr: 'whsvc: --checkpoint is empty: give the path of the file to keep the position in\n',
    });
  });
});
