import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { apiAction, collect, explained, oneOf, stopRequested } from '../../cli/actions.js';
import { buildDeps, readGlobals } from '../../cli/context.js';
import { inquirerPrompter } from '../../cli/prompter.js';
import { gracefulInterrupt } from '../../cli/interrupt.js';
import { duration, integerIn, resourceId, timeBound } from '../../cli/parse.js';
import { processIo } from '../../cli/deps.js';
import * as listVerb from './list.js';
import * as tailVerb from './tail.js';
import * as showVerb from './show.js';
import * as retryVerb from './retry.js';
import * as recoverVerb from './recover.js';

/** Sends in flight at once in a bulk re-send; the maximum keeps one run from flooding the service. */
const concurrencyOption = () =>
  new Option('--concurrency <n>', 're-sends in flight at once, 1 to 32').default(8).argParser(integerIn(1, 32));

/**
 * The action of `deliveries tail`: as apiAction, except that Ctrl-C (and
 * SIGTERM) is how a tail ends, exit 0, after the forward under way and the
 * checkpoint are done.
 */
function tailAction() {
  return async (_opts: unknown, command: Command) => {
    const opts = command.optsWithGlobals();
    const stopSignal = stopRequested();
    const deps = await buildDeps(readGlobals(opts, process.env), processIo(), inquirerPrompter);
    try {
      const code = await tailVerb.run(
        {
          webhookIds: opts.webhook,
          status: opts.status,
          events: opts.event,
          intervalMs: opts.interval ?? tailVerb.DEFAULT_INTERVAL_MS,
          timeout: opts.timeout,
          count: opts.count,
          since: opts.since,
          forwardTo: opts.forwardTo,
          secretFile: opts.secretFile,
          platformName: opts.platformName,
          checkpoint: opts.checkpoint,
        },
        { ...deps, stopSignal },
      );
      // A poll abandoned on Ctrl-C may still wait on the service (a Retry-After, say): nothing is left to do.
      process.exit(code);
    } catch (error) {
      throw explained(error, deps);
    }
  };
}

/** Defines `deliveries list|show|retry|recover|tail`. */
export function register(program: Command): void {
  const deliveries = program
    .command('deliveries')
    .description('the delivery attempt log, and retries')
    .addHelpText('after', examples('whsvc deliveries list wh_… --status failed', 'whsvc deliveries retry dlv_…'));
  deliveries
    .command('list')
    .description("a webhook's delivery attempts, newest first")
    .addArgument(new Argument('<webhook-id>', 'webhook id').argParser(resourceId('webhook')))
    .addOption(new Option('--status <status>', 'delivered, failed or pending').argParser(oneOf(['delivered', 'failed', 'pending'])))
    .addOption(new Option('--limit <n>', 'page size, 1 to 200').argParser(integerIn(1, 200)))
    .option('--cursor <cursor>', 'the page after this cursor')
    .option('--all', 'every page, streamed as it arrives')
    .addHelpText('after', examples('whsvc deliveries list wh_… --status failed', 'whsvc deliveries list wh_… --all --json'))
    .action(
      apiAction(
        listVerb,
        ([webhookId], o) => ({ webhookId: webhookId!, status: o.status, limit: o.limit, cursor: o.cursor, all: Boolean(o.all) }),
      ),
    );
  deliveries
    .command('show')
    .description('one attempt, with its payload and signature')
    .addArgument(new Argument('<delivery-id>', 'delivery id').argParser(resourceId('delivery')))
    .addHelpText('after', examples('whsvc deliveries show dlv_…', "whsvc deliveries show dlv_… --json | jq .payload"))
    .action(apiAction(showVerb, ([id]) => ({ id: id! })));
  deliveries
    .command('retry')
    .description('re-send failed or pending attempts now (several ids: side by side, with a summary)')
    .addArgument(new Argument('<delivery-id...>', 'delivery ids').argParser(collect(resourceId('delivery'))))
    .addOption(concurrencyOption())
    .addHelpText('after', examples('whsvc deliveries retry dlv_…', 'whsvc deliveries retry dlv_A dlv_B dlv_C --json'))
    .action(
      apiAction(
        retryVerb,
        ([ids], o) => ({ ids: ids as unknown as string[], concurrency: o.concurrency, stop: gracefulInterrupt }),
      ),
    );
  deliveries
    .command('recover')
    .description('after an outage: re-send every failed delivery (of all webhooks, or those named), each once')
    .addOption(new Option('--webhook <id>', 'only this webhook (repeatable)').argParser(collect(resourceId('webhook'))).default([], 'all'))
    .addOption(new Option('--since <when>', 'only deliveries tried since then: 2h, 30m, 3d, or an ISO 8601 time (default: the whole log)').argParser(timeBound))
    .addOption(new Option('--until <when>', 'only deliveries tried until then (same forms)').argParser(timeBound))
    .addOption(new Option('--event <type>', 'only this event type (repeatable)').argParser(collect((v) => v)).default([], 'all'))
    .addOption(new Option('--status <status>', 'which deliveries: failed (also those with a retry due), or pending (under way for too long)').argParser(oneOf(['failed', 'pending'])).default('failed'))
    .option('--dry-run', 'list what would be re-sent, and send nothing')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(concurrencyOption())
    .addHelpText(
      'after',
      examples(
        'whsvc deliveries recover --since 2h --dry-run',
        'whsvc deliveries recover --since 2h --yes',
        'whsvc deliveries recover --webhook wh_… --event invoice.paid --since 2026-11-23T08:00:00Z --yes --json',
      ),
    )
    .action(
      apiAction(
        recoverVerb,
        (_args, o) => ({
          status: o.status,
          webhooks: [...new Set(o.webhook as string[])],
          events: o.event,
          since: o.since,
          until: o.until,
          dryRun: Boolean(o.dryRun),
          yes: Boolean(o.yes),
          concurrency: o.concurrency,
          stop: gracefulInterrupt(),
          argv: process.argv.slice(2),
        }),
      ),
    );
  deliveries
    .command('tail')
    .description('follow the delivery log live: each new attempt and each change of status, once; --forward-to relays new deliveries to a local app')
    .addOption(new Option('--webhook <id>', 'only this webhook (repeatable; default every webhook, new ones included)').argParser(collect(resourceId('webhook'))))
    .addOption(new Option('--status <status>', 'only lines of attempts now delivered, failed or pending').argParser(oneOf(['delivered', 'failed', 'pending'])))
    .addOption(new Option('--event <type>', 'only this event type (repeatable)').argParser(collect((value: string) => value)))
    .addOption(new Option('--interval <duration>', 'time between polls (200ms to 5m; default 2s)').argParser(interval))
    .addOption(new Option('--timeout <seconds>', 'stop after S seconds: exit 0, or 6 when --count was not reached').argParser(integerIn(1, 86_400)))
    .addOption(new Option('--count <n>', 'stop after N lines (exit 0), e.g. --status delivered --count 3 in CI').argParser(integerIn(1, 1_000_000)))
    .addOption(new Option('--since <time>', 'start from this time (2h, or ISO 8601) instead of now, when there is no checkpoint').argParser(timeBound))
    .option('--forward-to <url>', 'send each new delivery (once, not its retries) to this URL, as the service sent it')
    .option('--secret-file <path>', "with --forward-to and one --webhook: check that the rebuilt body carries the stored signature, with the webhook's signing secret in this file")
    .option('--platform-name <name>', 'the platform name of the forwarded headers, X-<name>-Signature', 'Service')
    .option('--checkpoint <file>', 'keep the position in FILE: a restart catches up on what it missed, and forwards none twice')
    .addHelpText(
      'after',
      examples(
        'whsvc deliveries tail',
        'whsvc deliveries tail --webhook wh_… --status failed',
        'whsvc deliveries tail --json | jq -c \'select(.change == "status")\'',
        'whsvc deliveries tail --webhook wh_… --forward-to http://localhost:3000/webhooks --secret-file whsec.txt --checkpoint tail.json',
        'whsvc deliveries tail --status delivered --count 3 --timeout 60 --json   # in CI',
      ),
    )
    .action(tailAction());
}

/** --interval: a duration from 200 ms to 5 minutes. */
function interval(value: string): number {
  const ms = duration(300_000)(value);
  if (ms < 200) throw new InvalidArgumentError('must be at least 200ms.');
  return ms;
}
