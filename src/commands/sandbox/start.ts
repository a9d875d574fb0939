import { resolve } from 'node:path';
import { Command, Option } from '@commander-js/extra-typings';
import { action } from '../../cli/actions.js';
import { DEFAULT_SANDBOX_PORT } from '../../cli/defaults.js';
import { examples } from '../../cli/examples.js';
import { duration, integerIn, platformNameOption } from '../../cli/parse.js';
import { checkDirectory } from '../../files/user-file.js';
import { DELIVERY_TIMEOUT_MS } from '../../protocol/delivery.js';
import { passOverSqliteWarning } from '../../sandbox/sqlite-warning.js';
import type { SandboxStartDeps, SandboxStartOptions } from './serve.js';

/** Deliveries an in-memory sandbox keeps (about 5 KB each with their attempts): see the benchmarks. */
const MEMORY_MAX_DELIVERIES = 10_000;

/** The sandbox, its code loaded only when it starts (it is most of whsvc's). */
async function serve(options: SandboxStartOptions, deps: SandboxStartDeps): Promise<number> {
  passOverSqliteWarning();
  const { run } = await import('./serve.js');
  return run(options, deps);
}

export const command = (runF = serve) =>
  new Command('start')
    .description('serve the whole interface on loopback, with real signed deliveries and retries')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(DEFAULT_SANDBOX_PORT).argParser(integerIn(0, 65535)))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'keep webhooks, deliveries, clients and due retries in DIR (SQLite) across restarts')
    .addOption(
      new Option('--retry-base-ms <duration>', 'first automatic retry delay, doubling each time (500ms, 2s; a bare number is milliseconds)')
        .default(5000)
        .argParser(duration(86_400_000, 1, 'ms')),
    )
    .addOption(new Option('--max-attempts <n>', 'automatic attempts per delivery, the first included').default(5).argParser(integerIn(1, 50)))
    .addOption(
      new Option('--token-ttl <duration>', 'lifetime of access tokens (1h, 90s; a bare number is seconds)')
        .default(3600)
        .argParser((value) => Math.round(duration(30 * 86_400_000, 1000)(value) / 1000)),
    )
    .addOption(platformNameOption('the platform name in the delivery headers: X-<name>-Signature, X-<name>-Event, …'))
    .addOption(
      new Option('--delivery-timeout-ms <duration>', 'a delivery not answered within this fails (10s, 500ms; a bare number is milliseconds)')
        .default(DELIVERY_TIMEOUT_MS)
        .argParser(duration(600_000, 1, 'ms')),
    )
    .addOption(
      new Option('--concurrency-per-webhook <n>', 'sends in flight to one webhook; more wait their turn, their timeout not yet running')
        .default(64)
        .argParser(integerIn(1, 1024)),
    )
    .addOption(
      new Option(
        '--max-connections <n>',
        'sends in flight in the whole sandbox, shared between webhooks in turn (default: a quarter of the file limit, at most 256)',
      ).argParser(integerIn(1, 65_536)),
    )
    .addOption(
      new Option('--max-deliveries <n>', `deliveries kept, oldest dropped first (default ${MEMORY_MAX_DELIVERIES} in memory, all with --data-dir)`).argParser(
        integerIn(1, 1_000_000_000),
      ),
    )
    .addOption(
      new Option('--rate-limit <n>', 'answer 429 with Retry-After beyond N requests a second per client to /v1 (default: no limit)').argParser(
        integerIn(1, 1_000_000),
      ),
    )
    .option('--quiet', 'do not log each delivery attempt on stderr')
    .addOption(
      new Option('--clock <kind>', 'wall, or manual: time stands still until `whsvc sandbox clock advance`')
        .choices(['wall', 'manual'] as const)
        .default('wall' as const),
    )
    .addHelpText(
      'after',
      examples(
        'whsvc sandbox start',
        'whsvc sandbox start --data-dir ./.sandbox   # keep everything across restarts',
        'whsvc sandbox start --port 0 --json --quiet  # in tests: one JSON line, its address and credentials, when ready',
      ),
    )
    .action(
      action(async ({ io, globals, interrupts }, o) => {
        // A --data-dir that is not a directory is a usage error before anything starts.
        if (o.dataDir) checkDirectory(resolve(o.dataDir), '--data-dir');
        return runF(
          {
            port: o.port,
            host: o.host,
            dataDir: o.dataDir,
            retryBaseMs: o.retryBaseMs,
            maxAttempts: o.maxAttempts,
            tokenTtl: o.tokenTtl,
            platformName: o.platformName,
            deliveryTimeoutMs: o.deliveryTimeoutMs,
            concurrencyPerWebhook: o.concurrencyPerWebhook,
            maxConnections: o.maxConnections,
            maxDeliveries: o.maxDeliveries ?? (o.dataDir ? Number.POSITIVE_INFINITY : MEMORY_MAX_DELIVERIES),
            json: globals.json,
            manualClock: o.clock === 'manual',
            rateLimit: o.rateLimit,
            quiet: Boolean(o.quiet),
          },
          { ...io, stopSignal: interrupts.stopRequested() },
        );
      }),
    );
