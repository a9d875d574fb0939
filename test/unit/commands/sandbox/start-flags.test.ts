import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/sandbox/start.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const start = verb(['sandbox', 'start'], command);

describe('sandbox start: flags', () => {
  it('the defaults: port 4010 on loopback, in memory, 10 000 deliveries kept, the wall clock', async () => {
    const { options, deps } = await start.ran([]);
    expect(options).toEqual({
      port: 4010,
      host: '127.0.0.1',
      dataDir: undefined,
      retryBaseMs: 5000,
      maxAttempts: 5,
      tokenTtl: 3600,
      platformName: 'Service',
      deliveryTimeoutMs: 10_000,
      concurrencyPerWebhook: 64,
      maxConnections: undefined,
      maxDeliveries: 10_000,
      json: false,
      manualClock: false,
      rateLimit: undefined,
      quiet: false,
    });
    expect(deps.stopSignal).toBeInstanceOf(Promise);
  });

  it('each flag to its option; the durations in their units (a bare number keeps the unit it always had)', async () => {
    const options = await start.options([
      ...['--port', '0', '--host', '0.0.0.0', '--data-dir', './.sandbox', '--retry-base-ms', '2s', '--max-attempts', '3', '--token-ttl', '90s'],
      ...['--platform-name', 'Acme', '--delivery-timeout-ms', '500', '--concurrency-per-webhook', '2', '--max-connections', '16'],
      ...['--max-deliveries', '100', '--rate-limit', '50', '--quiet', '--clock', 'manual', '--json'],
    ]);
    expect(options).toEqual({
      port: 0,
      host: '0.0.0.0',
      dataDir: './.sandbox',
      retryBaseMs: 2000,
      maxAttempts: 3,
      tokenTtl: 90,
      platformName: 'Acme',
      deliveryTimeoutMs: 500,
      concurrencyPerWebhook: 2,
      maxConnections: 16,
      maxDeliveries: 100,
      json: true,
      manualClock: true,
      rateLimit: 50,
      quiet: true,
    });
    expect(await start.options(['--retry-base-ms', '250', '--token-ttl', '120'])).toMatchObject({ retryBaseMs: 250, tokenTtl: 120 });
  });

  it('with --data-dir, every delivery is kept unless --max-deliveries says', async () => {
    expect((await start.options(['--data-dir', 'd'])).maxDeliveries).toBe(Number.POSITIVE_INFINITY);
    expect((await start.options(['--data-dir', 'd', '--max-deliveries', '5'])).maxDeliveries).toBe(5);
  });

  it('bad values are usage errors, in one style', async () => {
    expect(await start.refused(['--clock', 'sundial'])).toEqual({ code: 2, stderr: `whsvc: --clock sundial: allowed choices are wall, manual\n${SEE_HELP}` });
    expect(await start.refused(['--port', 'eighty'])).toEqual({ code: 2, stderr: `whsvc: --port eighty: must be an integer from 0 to 65535\n${SEE_HELP}` });
    expect((await start.refused(['--platform-name', 'bad name'])).stderr.split('\n')[0]).toBe(
      "whsvc: --platform-name 'bad name': must be letters, digits and dashes, starting with a letter (at most 40)",
    );
    expect((await start.refused(['--token-ttl', '500ms'])).stderr.split('\n')[0]).toBe('whsvc: --token-ttl 500ms: must be at least 1s');
    expect((await start.refused(['--delivery-timeout-ms', '11m'])).stderr.split('\n')[0]).toBe('whsvc: --delivery-timeout-ms 11m: must be at most 10m');
    expect((await start.refused(['--max-attempts', '51'])).stderr.split('\n')[0]).toBe('whsvc: --max-attempts 51: must be an integer from 1 to 50');
  });
});
