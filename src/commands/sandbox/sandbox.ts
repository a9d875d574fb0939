import { Argument, Option, type Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { apiAction, stopRequested } from '../../cli/actions.js';
import { PLATFORM_NAME, duration, integerIn } from '../../cli/parse.js';
import { processIo } from '../../cli/deps.js';
import { CliError, ExitCode } from '../../cli/errors.js';
import { DEFAULT_BASE_URL } from '../../cli/defaults.js';
import { defaultTransport } from '../../api/transport.js';
import * as clockVerb from './clock.js';
import * as triggerVerb from './trigger.js';

/** Deliveries an in-memory sandbox keeps (about 5 KB each with their attempts): see the README's benchmarks. */
const MEMORY_MAX_DELIVERIES = 10_000;

/** Defines `sandbox start` and `sandbox trigger`. */
export function register(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('run the service locally, and make events occur in it')
    .addHelpText('after', examples('whsvc sandbox start', 'whsvc sandbox trigger invoice.paid'));

  sandbox
    .command('start')
    .description('serve the whole interface on loopback, with real signed deliveries and retries')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(4010).argParser(integerIn(0, 65535)))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'keep webhooks, deliveries, clients and due retries in DIR (SQLite) across restarts')
    .addOption(new Option('--retry-base-ms <n>', 'first automatic retry delay; doubles each time').default(5000).argParser(integerIn(1, 86_400_000)))
    .addOption(new Option('--max-attempts <n>', 'automatic attempts per delivery, the first included').default(5).argParser(integerIn(1, 50)))
    .addOption(new Option('--token-ttl <seconds>', 'lifetime of access tokens').default(3600).argParser(integerIn(1, 86_400 * 30)))
    .option('--platform-name <name>', 'the platform name in the signature header, X-<name>-Signature', 'Service')
    .addOption(
      new Option('--delivery-timeout-ms <n>', 'a delivery not answered within this fails').default(10_000).argParser(integerIn(1, 600_000)),
    )
    .addOption(
      new Option('--concurrency-per-webhook <n>', 'sends in flight to one webhook, each on its own connection; more wait their turn, their timeout not yet running')
        .default(64)
        .argParser(integerIn(1, 1024)),
    )
    .addOption(
      new Option('--max-deliveries <n>', `deliveries kept, oldest dropped first (default ${MEMORY_MAX_DELIVERIES} in memory, all with --data-dir)`).argParser(
        integerIn(1, 1_000_000_000),
      ),
    )
    .addOption(new Option('--rate-limit <n>', 'answer 429 with Retry-After beyond N API requests per second per client (default: no limit)').argParser(integerIn(1, 1_000_000)))
    .option('--quiet', 'do not log each delivery attempt on stderr')
    .addOption(new Option('--clock <kind>', 'wall, or manual: time stands still until `whsvc sandbox clock advance`').choices(['wall', 'manual']).default('wall'))
    .addHelpText(
      'after',
      examples('whsvc sandbox start', 'whsvc sandbox start --data-dir ./.sandbox   # keep everything across restarts', 'whsvc sandbox start --port 0 --json --quiet  # in tests: one JSON line, its address and credentials, when ready'),
    )
    .action(async (_opts, command: Command) => {
      const opts = command.optsWithGlobals();
      if (!PLATFORM_NAME.test(opts.platformName)) {
        throw new CliError('--platform-name must be letters, digits and dashes, starting with a letter', ExitCode.usage);
      }
      const { run } = await import('./start.js');
      process.exitCode = await run(
        {
          port: opts.port,
          host: opts.host,
          dataDir: opts.dataDir,
          retryBaseMs: opts.retryBaseMs,
          maxAttempts: opts.maxAttempts,
          tokenTtl: opts.tokenTtl,
          platformName: opts.platformName,
          deliveryTimeoutMs: opts.deliveryTimeoutMs,
          concurrencyPerWebhook: opts.concurrencyPerWebhook,
          maxDeliveries: opts.maxDeliveries ?? (opts.dataDir ? Number.POSITIVE_INFINITY : MEMORY_MAX_DELIVERIES),
          json: Boolean(opts.json),
          manualClock: opts.clock === 'manual',
          rateLimit: opts.rateLimit,
          quiet: Boolean(opts.quiet),
        },
        { ...processIo(), stopSignal: stopRequested() },
      );
    });

  const clock = sandbox
    .command('clock')
    .description("the sandbox's time and the automatic attempts due next; with --clock manual, advance and set move it")
    .addHelpText('after', examples('whsvc sandbox clock', 'whsvc sandbox clock advance 1h', 'whsvc sandbox clock set 2030-01-01T00:00:00Z'))
    .action(apiAction(clockVerb, () => ({ action: 'show' as const })));
  clock
    .command('advance')
    .description('move a manual clock forward, sending every attempt that falls due on the way, in order')
    .addArgument(new Argument('<duration>', 'how far: 90s, 30m, 2h, 3d').argParser(duration(10 * 365 * 86_400_000)))
    .addHelpText('after', examples('whsvc sandbox clock advance 3d        # a whole retry schedule, played out', 'whsvc sandbox clock advance 90s --json'))
    .action(apiAction(clockVerb, ([ms]) => ({ action: 'advance' as const, ms: ms as unknown as number })));
  clock
    .command('set')
    .description('move a manual clock forward to a time (never back), sending what falls due on the way')
    .argument('<time>', 'an ISO 8601 time, e.g. 2030-01-01T00:00:00Z')
    .addHelpText('after', examples('whsvc sandbox clock set 2030-01-01T00:00:00Z'))
    .action(apiAction(clockVerb, ([to]) => ({ action: 'set' as const, to })));

  sandbox
    .command('trigger')
    .description('make an event occur in a running sandbox (sandbox-only endpoint, outside /v1)')
    .argument('<event-type>', 'an event type of the catalog, e.g. invoice.paid')
    .option('--data <json>', 'fields to set in the payload, as a JSON object')
    .addHelpText('after', examples('whsvc sandbox trigger invoice.paid', `whsvc sandbox trigger invoice.paid --data '{"id":"inv_42"}'`))
    .action(async (eventType: string, _opts, command: Command) => {
      const opts = command.optsWithGlobals();
      process.exitCode = await triggerVerb.run(
        {
          eventType,
          data: opts.data,
          baseUrl: opts.baseUrl ?? process.env.WHSVC_BASE_URL ?? DEFAULT_BASE_URL,
          json: Boolean(opts.json),
        },
        { ...processIo(), transport: defaultTransport(process.env) },
      );
    });
}
