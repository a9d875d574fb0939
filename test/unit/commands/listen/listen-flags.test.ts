import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/listen/listen.js';
import { ConfigStore } from '../../../../src/config/store.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const listen = verb(['listen'], command);
const configDir = mkdtempSync(join(tmpdir(), 'whsvc-listen-flags-'));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

describe('listen: flags', () => {
  it('port 4011 on loopback, answering 200, until stopped, by default', async () => {
    const { options, deps } = await listen.ran([]);
    expect(options).toEqual({
      port: 4011,
      host: '127.0.0.1',
      secret: undefined,
      secretFiles: undefined,
      respondStatus: 200,
      failFirst: undefined,
      failRate: undefined,
      seed: undefined,
      delayMs: undefined,
      forwardTo: undefined,
      events: undefined,
      count: undefined,
      timeout: undefined,
      maxSilenceMs: undefined,
      record: undefined,
      interactive: false,
      json: false,
      color: true,
      forwardTimeoutMs: undefined,
    });
    expect(deps.stopRequested).toBeInstanceOf(Function);
    expect(deps.knownEventTypes).toBeUndefined();
  });

  it('-i and --interactive ask for the screen (its refusals, of --json and of a pipe, are the run’s: test/integration/interactive.test.ts)', async () => {
    expect((await listen.options(['-i'])).interactive).toBe(true);
    expect((await listen.options(['--interactive', '--secret-file', 'a.txt'])).interactive).toBe(true);
  });

  it('each flag to its option: the secrets repeat, shares and durations in their units', async () => {
    const options = await listen.options([
      ...['--port', '0', '--host', '::1', '--secret-file', 'old.txt', '--secret-file', 'new.txt', '--respond-status', '202'],
      ...['--fail-first', '2', '--fail-rate', '25%', '--seed', '7', '--delay', '2s', '--events', 'invoice.paid, invoice.paid,product.updated'],
      ...['--count', '1', '--timeout', '1500ms', '--max-silence', '10m', '--record', 'deliveries.ndjson', '--json', '--no-color'],
    ]);
    expect(options).toMatchObject({
      port: 0,
      host: '::1',
      secretFiles: ['old.txt', 'new.txt'],
      respondStatus: 202,
      failFirst: 2,
      failRate: 0.25,
      seed: '7',
      delayMs: 2000,
      events: ['invoice.paid', 'product.updated'],
      count: 1,
      timeout: 1.5,
      maxSilenceMs: 600_000,
      record: 'deliveries.ndjson',
      json: true,
      color: false,
    });
    expect((await listen.options(['--secret', 'whsec_x', '--fail-rate', '0.3'])) as object).toMatchObject({ secret: 'whsec_x', failRate: 0.3 });
  });

  it('--forward-to routes, each forward held to --request-timeout (or WHSVC_TIMEOUT)', async () => {
    const options = await listen.options(['--forward-to', 'invoice.*=localhost:3001', '--forward-to', 'localhost:3000/webhooks'], {
      env: { WHSVC_TIMEOUT: '3s' },
    });
    expect(options.forwardTo?.map(({ pattern, url }) => [pattern, url.href])).toEqual([
      ['invoice.*', 'http://localhost:3001/'],
      [null, 'http://localhost:3000/webhooks'],
    ]);
    expect(options.forwardTimeoutMs).toBe(3000);
    expect((await listen.options(['--request-timeout', '500ms'])).forwardTimeoutMs).toBe(500);
  });

  it('--events is checked against the catalog an earlier command cached for the address, when there is one', async () => {
    await new ConfigStore(configDir).writeCatalog('http://127.0.0.1:4010', [{ type: 'invoice.paid', module: 'sales', desc: 'an invoice was paid' }], 0);
    const { deps } = await listen.ran(['--events', 'invoice.paid'], { env: { WHSVC_CONFIG_DIR: configDir } });
    expect(deps.knownEventTypes).toEqual(['invoice.paid']);
    expect((await listen.ran(['--events', 'invoice.paid'])).deps.knownEventTypes).toBeUndefined();
  });

  it('bad values are usage errors, in one style', async () => {
    expect(await listen.refused(['--fail-rate', '2'])).toEqual({
      code: 2,
      stderr: `whsvc: --fail-rate 2: must be a share from 0 to 1, such as 0.25 or 25%\n${SEE_HELP}`,
    });
    expect((await listen.refused(['--respond-status', '600'])).stderr.split('\n')[0]).toBe('whsvc: --respond-status 600: must be an integer from 100 to 599');
    expect((await listen.refused(['--delay', '11m'])).stderr.split('\n')[0]).toBe('whsvc: --delay 11m: must be at most 10m');
    expect((await listen.refused(['--timeout', 'soon'])).stderr.split('\n')[0]).toBe(
      'whsvc: --timeout soon: must be a duration such as 500ms, 90s, 30m, 2h or 3d (a bare number is seconds)',
    );
    expect((await listen.refused(['--forward-to', 'ftp://x/'])).stderr.split('\n')[0]).toBe(
      'whsvc: --forward-to ftp://x/: only http:// and https:// URLs can receive deliveries; give a URL, or PATTERN=URL such as invoice.*=http://localhost:3000/invoices',
    );
  });
});
