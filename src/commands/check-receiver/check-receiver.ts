import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { defaultTransport, type Transport } from '../../api/transport.js';
import { action, addVerbs } from '../../cli/actions.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { forwardUrl, shownUrl } from '../../receiver/routes.js';
import { collect, oneOf, platformNameOption, requestTimeoutGivenMs } from '../../cli/parse.js';
import { requiredSecrets } from '../../receiver/secrets.js';
import { EVENT_TYPES } from '../../protocol/catalog.js';
import { DELIVERY_TIMEOUT_MS } from '../../protocol/delivery.js';
import { signatureHeaderName } from '../../protocol/headers.js';
import { colorsFor, type Colors } from '../../render/colors.js';
import { ProgressLine } from '../../render/progress.js';
import { counted, sanitize } from '../../render/text.js';
import { terminalColumns, wrapLine } from '../../render/wrap.js';
import { sendAsReceived } from '../../receiver/send-on.js';
import {
  allPassedWords,
  answered,
  battery,
  median,
  type Check,
  type CheckResult,
  type Outcome,
  type Probe,
  testingWords,
  testSuspects,
  timedOut,
  type Verdict,
} from './battery.js';
import { elapsed } from '../../render/words.js';
import {
  EffectsWatch,
  PROBE_OUTPUT_BYTES,
  PROBE_TIMEOUT_MS,
  probeEnvironment,
  runInShell,
  tryProbe,
  withEffects,
  type EffectsSeen,
  type ProbeDeps,
  type ProbeRunner,
} from './effects.js';

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
      `
Each answer is awaited as long as the service waits (10 s), or --request-timeout;
after the second that did not come, the rest is not sent.
Exit codes: 0 every check passed, 1 some failed, 2 bad flags.`,
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
          { ...io, transport: defaultTransport(io.env) },
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
}

/** A check as it ended: its verdict, and what it sent and got back (nothing when the battery stopped before it), and what testing the causes of its failure did. */
interface Judged {
  check: Check;
  verdict: Verdict;
  outcomes: Outcome[];
  tested: Outcome[];
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

/** The checks that ended with `result`, by number. */
const numbered = (judged: readonly Judged[], result: CheckResult) => judged.filter((j) => j.verdict.result === result).map((j) => j.check.number);

/** Numbers in words, a run of three or more as its ends: `1, 9`, `2–8`, `3, 4`. */
export function numbersSaid(numbers: readonly number[]): string {
  const runs: number[][] = [];
  for (const n of numbers) {
    const run = runs.at(-1);
    if (run !== undefined && run.at(-1) === n - 1) run.push(n);
    else runs.push([n]);
  }
  return runs.flatMap((run) => (run.length >= 3 ? [`${run[0]}–${run.at(-1)}`] : run.map(String))).join(', ');
}

/** The report's last line: all passed and what that shows, or how many passed and which failed, were not run, or showed nothing. */
function closingLine(judged: readonly Judged[], limitMs: number, colors: Colors): string {
  const passed = numbered(judged, 'pass').length;
  if (passed === judged.length) return `${colors.green(`all ${judged.length} checks passed`)}: ${allPassedWords(limitMs)}`;
  const rest = (['fail', 'not_run', 'inconclusive'] as const).flatMap((result) => {
    const numbers = numbered(judged, result);
    return numbers.length ? [`${RESULT_WORDS[result]}: ${numbersSaid(numbers)}`] : [];
  });
  return [colors.red(`${passed} of ${judged.length} checks passed`), ...rest].join('; ');
}

/** A result as the closing line says it. */
const RESULT_WORDS: Record<CheckResult, string> = { pass: 'passed', fail: 'failed', not_run: 'not run', inconclusive: 'inconclusive' };

/** After this many deliveries got no answer within the limit, the rest are not sent: each would wait as long. */
export const TIME_OUTS_BEFORE_STOP = 2;

/** Why the battery stopped sending before its end. */
interface Stopped {
  /** What a check not run says after `not run: `. */
  why: string;
  /** Stopped by time-outs (not by a connection that could not be made): what the rest would have cost, in words. */
  cost?: string;
}

/**
 * The battery's deliveries, sent one at a time, each awaited up to the limit, and what came back. It stops sending
 * when one reaches nothing (refused, host not found, TLS: the rest would reach nothing either), and after the second
 * that got no answer within the limit: a receiver that never answers would cost the limit for every delivery.
 */
class BatterySends {
  /** The outcomes so far, by check. */
  readonly all = new Map<string, readonly Outcome[]>();
  stopped: Stopped | undefined;
  /** How many deliveries were sent. */
  sent = 0;
  private timeOuts = 0;

  constructor(
    private readonly target: URL,
    private readonly limitMs: number,
    readonly total: number,
    private readonly deps: CheckReceiverDeps,
    private readonly watch?: EffectsWatch,
  ) {}

  /** Sends a check's deliveries, up to the stop: what each got back and how long it took. */
  async send(check: Check): Promise<Outcome[]> {
    const now = this.deps.now ?? Date.now;
    const outcomes: Outcome[] = [];
    this.all.set(check.key, outcomes);
    const watch = check.repeats ? this.watch : undefined;
    for (const [n, probe] of check.probes.entries()) {
      if (n === 0) await watch?.readBefore();
      const started = now();
      const result = await sendAsReceived(this.deps.transport, this.target, probe.delivery.headers, probe.delivery.body, '/', this.limitMs);
      const outcome: Outcome = { probe, result, ms: Math.round(now() - started) };
      outcomes.push(outcome);
      this.sent += 1;
      this.stopped = this.stopAfter(outcome);
      if (this.stopped) break;
      await (n === 0 ? watch?.readAfterFirst() : watch?.readAfterRepeat());
    }
    return outcomes;
  }

  /** One delivery more, outside the battery's count (a cause tested): sent, and what came back. */
  async sendOne(probe: Probe): Promise<Outcome> {
    const now = this.deps.now ?? Date.now;
    const started = now();
    const result = await sendAsReceived(this.deps.transport, this.target, probe.delivery.headers, probe.delivery.body, '/', this.limitMs);
    return { probe, result, ms: Math.round(now() - started) };
  }

  /** Whether to send no more after this outcome, and why. */
  private stopAfter(o: Outcome): Stopped | undefined {
    if (unconnected(o)) return { why: `no connection to ${shownUrl(this.target)}` };
    if (!timedOut(o) || ++this.timeOuts < TIME_OUTS_BEFORE_STOP) return undefined;
    const rest = this.total - this.sent;
    if (rest === 0) return undefined;
    const late = `${this.timeOuts} deliveries got no answer within ${elapsed(this.limitMs)}`;
    return {
      why: `stopped after ${this.timeOuts} time-outs (see 9)`,
      cost: `${late}: ${counted(rest, 'more delivery', 'more deliveries')} would wait up to ${elapsed(rest * this.limitMs)}; not sent`,
    };
  }
}

/** The verdict of a check as far as it was sent: cut short by the stop, it is judged on what it sent, and says how many were not. */
function judgedAsSent(check: Check, outcomes: Outcome[], sends: BatterySends): Verdict {
  const failure = unconnected(outcomes.at(-1)!);
  if (failure) return failure;
  const verdict = check.judge(outcomes, sends.all);
  const left = check.probes.length - outcomes.length;
  return left === 0 ? verdict : { ...verdict, summary: `${verdict.summary}; ${left} more not sent` };
}

/** The verdict of a check the battery stopped before: not run, but for the time check after time-outs, which judges those. */
function notRun(check: Check, sends: BatterySends): Verdict {
  const { stopped, all, sent } = sends;
  if (stopped?.cost !== undefined && check.timesEveryAnswer) {
    const verdict = check.judge([], all);
    return { ...verdict, summary: `${verdict.summary}; ${sends.total - sent} more not sent` };
  }
  return { result: 'not_run', summary: `not run: ${stopped?.why ?? ''}` };
}

/** The verdict of a send that reached nothing, or undefined when it reached the receiver (answered or not). */
function unconnected(o: Outcome): Verdict | undefined {
  const { status, reached, code } = o.result;
  if (status !== null || reached !== false) return undefined;
  const summary = answered(o);
  if (code === 'ECONNREFUSED')
    return { result: 'fail', summary, cause: 'nothing listens at that address and port', fix: "start the receiver, or check the URL's host and port" };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { result: 'fail', summary, cause: "the URL's host name was not found", fix: 'check the host name in the URL' };
  if (code === 'ETLS')
    return {
      result: 'fail',
      summary,
      cause: 'the TLS handshake failed',
      fix: 'use http:// for a plain port, or a certificate this machine trusts (NODE_EXTRA_CA_CERTS)',
    };
  return { result: 'fail', summary, cause: 'no connection could be made', fix: "check that the receiver runs, and the URL's host and port" };
}

/** A check's result as its line begins, four columns: `pass`, `fail`, `skip` (not run), `?` (inconclusive). */
const RESULT_MARKS: Record<CheckResult, (colors: Colors) => string> = {
  pass: (colors) => colors.green('pass'),
  fail: (colors) => colors.red('fail'),
  not_run: (colors) => colors.dim('skip'),
  inconclusive: (colors) => colors.yellow('?   '),
};

/** Where a check's lines go on: under the check's title. */
const VERDICT_INDENT = ' '.repeat(9);
/** Where a note on stderr goes on: under the text of its second line (`  signed with …`), as one block. */
const NOTE_HANG = '  ';

/**
 * A check's line, and for a failure the likely cause and the fix under it: each with the indent its continuations
 * take on a terminal (under the title; a cause's and a fix's two further, under their label).
 */
function verdictLines({ check, verdict }: Judged, colors: Colors): Array<[string, string]> {
  const word = RESULT_MARKS[verdict.result](colors);
  const under = `${VERDICT_INDENT}  `;
  const lines: Array<[string, string]> = [[`${word}  ${check.number}  ${check.title}: ${sanitize(verdict.summary)}`, VERDICT_INDENT]];
  const label = verdict.found ? 'cause (tested):' : verdict.seen ? 'cause (seen):' : 'likely cause:';
  if (verdict.cause) lines.push([`${VERDICT_INDENT}${colors.dim(label)} ${verdict.cause}`, under]);
  if (verdict.fix) lines.push([`${VERDICT_INDENT}${colors.dim('fix:')} ${verdict.fix}`, under]);
  return lines;
}

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
      env: probeEnvironment(
        deps.env,
        secrets.map((s) => s.secret),
      ),
      timeoutMs: PROBE_TIMEOUT_MS,
      maxBytes: PROBE_OUTPUT_BYTES,
    },
    now: deps.now ?? Date.now,
    pause: deps.pause ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
  await tryProbe(command, probe);
  return new EffectsWatch(command, probe);
}

/** What --effects read, for --json. */
function effectsDocument(seen: EffectsSeen) {
  return { result: seen.result, before: seen.before, after_first: seen.afterFirst, after_repeat: seen.afterRepeat, error: seen.error };
}

/** check-receiver --json: one document, each check with what it sent and what came back. */
function document(target: URL, options: CheckReceiverOptions, secrets: ReadonlyArray<{ name: string }>, judged: readonly Judged[], notSent: number) {
  const answeredIn = judged.flatMap((j) => [...j.outcomes, ...j.tested].filter((o) => o.result.status !== null).map((o) => o.ms)).sort((a, b) => a - b);
  const foundIn = judged.find((j) => j.verdict.found);
  return {
    url: shownUrl(target),
    time_limit_ms: options.limitMs,
    secrets: secrets.map((s) => s.name),
    platform_name: options.platformName,
    passed: numbered(judged, 'pass').length,
    failed: numbered(judged, 'fail').length,
    not_run: numbered(judged, 'not_run').length,
    inconclusive: numbered(judged, 'inconclusive').length,
    not_sent: notSent,
    cause_found: foundIn?.verdict.found
      ? { check: foundIn.check.number, cause: foundIn.verdict.found.key, words: foundIn.verdict.found.cause, fix: foundIn.verdict.found.fix }
      : null,
    checks: judged.map(({ check, verdict, outcomes, tested }) => ({
      number: check.number,
      check: check.key,
      title: check.title,
      result: verdict.result,
      summary: verdict.summary,
      cause: verdict.cause ?? null,
      fix: verdict.fix ?? null,
      explained_by: verdict.explainedBy ?? null,
      sent: outcomes.map(sentJson),
      cause_probes: tested.map((o) => ({ cause: o.probe.suspect?.key ?? null, ...sentJson(o) })),
    })),
    timing: { answers: answeredIn.length, slowest_ms: answeredIn.at(-1) ?? null, median_ms: answeredIn.length ? median(answeredIn) : null },
  };
}

/** One delivery sent and what came back, in --json. */
function sentJson({ probe, result, ms }: Outcome) {
  return {
    what: probe.what,
    event: probe.delivery.event,
    delivery_id: probe.delivery.deliveryId,
    attempt: probe.delivery.attempt,
    signature: probe.delivery.signature ?? null,
    signature_check: probe.signatureCheck,
    signed_with: probe.signedWith,
    body_bytes: probe.delivery.body.length,
    status: result.status,
    ms,
    error: result.error ?? null,
    response_body: result.body ?? null,
    response_body_truncated: result.cut === true,
  };
}
