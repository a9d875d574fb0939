import { Option, type Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { distinctList, stopRequested } from '../../cli/actions.js';
import { duration, integerIn, share } from '../../cli/parse.js';
import { processIo } from '../../cli/deps.js';
import { DEFAULT_BASE_URL } from '../../cli/defaults.js';
import { ConfigStore } from '../../config/store.js';
import { DEFAULT_RESPOND_STATUS, run } from './run.js';

/**
 * The event types of the catalog cached by an earlier command (listen needs no
 * credentials, so it does not fetch it): undefined when there is none yet.
 */
function cachedEventTypes(baseUrl: string | undefined): string[] | undefined {
  try {
    return new ConfigStore(process.env.WHSVC_CONFIG_DIR).readCatalog(baseUrl ?? process.env.WHSVC_BASE_URL ?? DEFAULT_BASE_URL)?.data.map((e) => e.type);
  } catch {
    return undefined;
  }
}

/** Defines `listen`. */
export function register(program: Command): void {
  program
    .command('listen')
    .description('a local receiver: verifies each delivery\'s signature and shows it; --count/--timeout make it a CI check')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(4011).argParser(integerIn(0, 65535)))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--secret-file <path>', 'the signing secret, read from this file (re-read when it changes)')
    .option('--secret <secret>', 'the signing secret (prefer --secret-file or WHSVC_LISTEN_SECRET: argv is visible to other users)')
    .addOption(new Option('--respond-status <code>', 'status to answer verified deliveries with').default(DEFAULT_RESPOND_STATUS).argParser(integerIn(100, 599)))
    .addOption(new Option('--fail-first <n>', 'answer 500 to the first N attempts of each delivery (by its delivery id), then as usual').argParser(integerIn(1, 1000)))
    .addOption(new Option('--fail-rate <share>', 'answer 500 to this share of attempts (0.25 or 25%), reproducibly with --seed').argParser(share))
    .option('--seed <seed>', 'the seed of --fail-rate: the same seed fails the same attempts (default: a random one, printed)')
    .addOption(new Option('--delay <duration>', 'answer only after this long (500ms, 5s, 2m), to try delivery timeouts').argParser(duration(600_000)))
    .option('--forward-to <url>', 'relay each verified delivery, byte for byte with its headers, to your local app')
    .addOption(new Option('--events <types>', 'only show these event types (comma-separated)').argParser(distinctList))
    .addOption(new Option('--count <n>', 'exit 0 after N verified deliveries').argParser(integerIn(1, 1_000_000)))
    .addOption(new Option('--timeout <seconds>', 'stop after S seconds; exit 6 if --count was not reached').argParser(integerIn(1, 86_400)))
    .addHelpText(
      'after',
      examples(
        'whsvc listen --secret-file ./whsec.txt',
        'whsvc listen --secret-file ./whsec.txt --forward-to http://localhost:3000/webhooks',
        'whsvc listen --port 0 --secret-file ./whsec.txt --count 1 --timeout 30 --json   # in CI',
        'whsvc listen --secret-file ./whsec.txt --fail-first 2        # fails twice, then recovers',
        'whsvc listen --secret-file ./whsec.txt --fail-rate 0.3 --seed 7 --delay 2s',
      ),
    )
    .action(async (_opts, command: Command) => {
      const opts = command.optsWithGlobals();
      process.exitCode = await run(
        {
          port: opts.port,
          host: opts.host,
          secret: opts.secret,
          secretFile: opts.secretFile,
          respondStatus: opts.respondStatus,
          failFirst: opts.failFirst,
          failRate: opts.failRate,
          seed: opts.seed,
          delayMs: opts.delay,
          forwardTo: opts.forwardTo,
          events: opts.events,
          count: opts.count,
          timeout: opts.timeout,
          json: Boolean(opts.json),
          color: opts.color !== false,
        },
        { ...processIo(), stopSignal: stopRequested(), knownEventTypes: opts.events ? cachedEventTypes(opts.baseUrl) : undefined },
      );
    });
}
