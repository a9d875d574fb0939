import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { defaultTransport, type Transport } from '../../api/transport.js';
import { action, addVerbs } from '../../cli/actions.js';
import { clientSecretsHeld } from '../../cli/context.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode } from '../../cli/errors.js';
import { examples, notes } from '../../cli/examples.js';
import { forwardUrl, shownUrl } from '../../receiver/routes.js';
import { collect, oneOf, platformNameOption, requestTimeoutGivenMs } from '../../cli/parse.js';
import { requiredSecrets } from '../../receiver/secrets.js';
import { EVENT_TYPES } from '../../protocol/catalog.js';
import { DELIVERY_TIMEOUT_MS } from '../../protocol/delivery.js';
import { signatureHeaderName } from '../../protocol/headers.js';
import { colorsFor } from '../../render/colors.js';
import { ProgressLine } from '../../render/progress.js';
import { sanitize } from '../../render/text.js';
import { terminalColumns, wrapLine } from '../../render/wrap.js';
import { elapsed } from '../../render/words.js';
import { battery } from './battery.js';
import {
  EffectsWatch,
  PROBE_OUTPUT_BYTES,
  PROBE_TIMEOUT_MS,
  probeEnvironment,
  runInShell,
  tryProbe,
  withEffects,
  type ProbeDeps,
  type ProbeRunner,
} from './effects.js';
import { closingLine, document, effectsDocument, type Judged, verdictLines } from './report.js';
import { BatterySends, judgedAsSent, notRun, testingWords, testSuspects } from './sends.js';

/** Defines `check-receiver`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

export const command = (runF = run) =>
  new Command('check-receiver')
    .description(
      'check that a receiver is one the service can trust: valid deliveries taken (their raw bytes verified), forged ones refused, a retry answered, every answer in time; exit 0 only when every check passes',
    )
    .argument('<url>', 'your receiver (http or https): every delivery goes there, and nowhere else')
    .addOption(
      new Option(
        '--secret-file <path>',
        'the signing secret the receiver holds (- reads stdin); repeatable while it moves to a new secret: a delivery signed with each must be taken',
      )
        .makeOptionMandatory()
        .argParser(collect((value: string) => value)),
    )
    .addOption(
      new Option('--event <type>', 'an event type it must take (repeatable; default: every type of the catalog)').argParser(collect(oneOf(EVENT_TYPES))),
    )
    .option(
      '--effects <command>',
      'a command whose output changes when your app acts on a delivery (a row count), run by sh -c before and after check 7 sends a delivery again: a change after the repeat means the app acted twice, and check 7 fails',
    )
    .addOption(platformNameOption('the platform name of the delivery headers: X-<name>-Signature, X-<name>-Event, …'))
    .addHelpText(
      'after',
      examples(
        'whsvc check-receiver http://localhost:3000/webhooks --secret-file ./whsec.txt',
        'whsvc check-receiver http://localhost:3000/webhooks --secret-file ./whsec.txt --event invoice.paid --json',
        'whsvc check-receiver https://staging.example.com/hooks --secret-file ./old.txt --secret-file ./new.txt',
        `whsvc check-receiver http://localhost:3000/webhooks --secret-file ./whsec.txt --effects 'sqlite3 app.db "select count(*) from orders"'`,
      ),
    )
    .addHelpText(
      'after',
      notes(
        'Each answer is awaited as long as the service waits (10 s), or --request-timeout; after the second that did not come, the rest is not sent.',
        'Exit codes: 0 every check passed, 1 some failed, 2 bad flags.',
      ),
    )
    .action(
      action(async ({ io, globals }, url, o) => {
        const given = requestTimeoutGivenMs(globals, io.env);
        return runF(
          {
            url,
            secretFiles: o.secretFile,
            events: o.event,
            platformName: o.platformName,
            effects: o.effects,
            limitMs: given ?? DELIVERY_TIMEOUT_MS,
            limitGiven: given !== undefined,
            json: globals.json,
            color: globals.color,
          },
          {
            ...io,
            transport: defaultTransport(io.env),
            clientSecrets: o.effects === undefined ? [] : clientSecretsHeld(io.env, globals.profile),
          },
        );
      }),
    );

export interface CheckReceiverOptions {
  url: string;
  secretFiles: string[];
  /** The event types it must take; every type of the catalog when not given. */
  events?: string[] | undefined;
  platformName: string;
  /** A shell command whose output changes when the app acts on a delivery: read around check 7's repeat. */
  effects?: string | undefined;
  /** How long each answer is awaited, and must come within: the service's limit, or --request-timeout. */
  limitMs: number;
  /** The limit is --request-timeout's, not the service's. */
  limitGiven: boolean;
  json: boolean;
  color: boolean;
}

export interface CheckReceiverDeps extends Io {
  transport: Transport;
  /** The time now in milliseconds: the deliveries' `Date`, and how long each answer took. */
  now?: () => number;
  /** Runs the --effects command (sh -c by default). */
  runProbe?: ProbeRunner;
  /** Waits between two reads of the --effects command. */
  pause?: (ms: number) => Promise<void>;
  /** The client secrets whsvc holds (clientSecretsHeld): never in the --effects command's environment, under any name. */
  clientSecrets?: readonly string[];
}

export async function run(options: CheckReceiverOptions, deps: CheckReceiverDeps): Promise<number> {
  const now = deps.now ?? Date.now;
  const target = forwardUrl(options.url, '<url>');
  const secrets = await requiredSecrets({ secretFiles: options.secretFiles }, deps);
  const events = [...new Set(options.events ?? EVENT_TYPES)];
  const checks = battery({
    secrets,
    events,
    platformName: options.platformName,
    userAgent: `whsvc/${WHSVC_VERSION} (check-receiver)`,
    now: new Date(now()),
    limitMs: options.limitMs,
    effectsWatched: options.effects !== undefined,
  });
  const colors = await colorsFor(deps.stdout, deps.env, !options.color);
  // The --effects command run once before anything is sent: one that fails is a bad flag.
  const watch = await effectsWatch(options.effects, secrets, deps);
  const total = checks.reduce((sum, check) => sum + check.probes.length, 0);
  const limit = `${elapsed(options.limitMs)}${options.limitGiven ? ` (--request-timeout; the service waits ${elapsed(DELIVERY_TIMEOUT_MS)})` : ", the service's limit"}`;
  // Laid out for the terminal's width; the URL and the files' names never broken, even when they hold a space.
  const keep = [shownUrl(target), ...secrets.map((s) => s.name)];
  const note = (line: string) => deps.stderr.write(`${wrapLine(line, terminalColumns(deps.stderr), NOTE_HANG, keep)}\n`);
  const say = (line: string, hang = '') => deps.stdout.write(`${wrapLine(line, terminalColumns(deps.stdout), hang, keep)}\n`);
  // Said before anything is sent: where, how many, signed how.
  note(`whsvc check-receiver: ${checks.length} checks of ${shownUrl(target)}: ${total} deliveries, one at a time, sent there and nowhere else`);
  note(
    `  signed with the secret${secrets.length > 1 ? 's' : ''} in ${secrets.map((s) => s.name).join(' and ')} (${signatureHeaderName(options.platformName)}); each answer awaited up to ${limit}`,
  );
  if (watch) note('  --effects run by sh -c before check 7 and after each of its two sends');
  const progress = deps.stderr.isTTY ? new ProgressLine(deps.stderr) : undefined;
  const sends = new BatterySends(target, options.limitMs, total, deps, watch);
  const sending = (line: string) => (progress ? progress.update(sanitize(line), true) : deps.stderr.write(`  ${line}\n`));
  const judged: Judged[] = [];
  for (const check of checks) {
    let entry: Judged;
    if (sends.stopped !== undefined) {
      entry = { check, outcomes: [], tested: [], verdict: notRun(check, sends) };
    } else {
      sending(`sending ${check.number}/${checks.length}: ${check.sends}`);
      const outcomes = await sends.send(check);
      // Valid deliveries refused: the likely causes tested, one delivery each, before one is named.
      const suspects = sends.stopped === undefined ? (check.suspects?.(outcomes, sends.all) ?? []) : [];
      if (suspects.length > 0) sending(testingWords(check, suspects));
      const tested = await testSuspects(check, suspects, sends.all, (probe) => sends.sendOne(probe));
      progress?.clear();
      const verdict = judgedAsSent(check, outcomes, sends);
      entry = {
        check,
        outcomes,
        tested,
        verdict: check.repeats && watch ? withEffects(verdict, watch.seen(), check.probes[0]!.delivery.event, options.platformName) : verdict,
      };
    }
    judged.push(entry);
    if (!options.json) for (const [line, hang] of verdictLines(entry, colors)) say(line, hang);
    // Said once, as the battery stops: the checks after it say `not run`.
    if (sends.stopped?.cost !== undefined && entry.outcomes.length > 0) note(`whsvc check-receiver: ${sends.stopped.cost}`);
  }
  if (options.json) {
    deps.jsonOut.document({ ...document(target, options, secrets, judged, total - sends.sent), effects: watch ? effectsDocument(watch.seen()) : null });
  } else {
    say(closingLine(judged, options.limitMs, colors));
  }
  return judged.every((j) => j.verdict.result === 'pass') ? ExitCode.ok : ExitCode.failure;
}

/** Where a note on stderr goes on: under the text of its second line (`  signed with …`), as one block. */
const NOTE_HANG = '  ';

/** The --effects command's watch, tried once before anything is sent (a command that fails is exit 2); none without it. */
async function effectsWatch(
  command: string | undefined,
  secrets: ReadonlyArray<{ secret: string }>,
  deps: CheckReceiverDeps,
): Promise<EffectsWatch | undefined> {
  if (command === undefined) return undefined;
  const probe: ProbeDeps = {
    run: deps.runProbe ?? runInShell,
    limits: {
      env: probeEnvironment(deps.env, [...secrets.map((s) => s.secret), ...(deps.clientSecrets ?? [])]),
      timeoutMs: PROBE_TIMEOUT_MS,
      maxBytes: PROBE_OUTPUT_BYTES,
    },
    now: deps.now ?? Date.now,
    pause: deps.pause ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
  await tryProbe(command, probe);
  return new EffectsWatch(command, probe);
}
