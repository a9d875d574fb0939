import type { Transport } from '../../api/transport.js';
import type { Io } from '../../cli/deps.js';
import { CliError, ExitCode, NO_PROMPT, usageError } from '../../cli/errors.js';
import type { Prompter } from '../../cli/prompter.js';
import { checkSecretFilePath } from '../../cli/secret.js';
import { isLoopbackHost } from '../../net.js';
import { EVENT_TYPES } from '../../protocol/catalog.js';
import { forwardUrl, shownUrl } from '../../receiver/routes.js';
import { requiredSecret } from '../../receiver/secrets.js';
import { colorsFor } from '../../render/colors.js';
import { ProgressLine } from '../../render/progress.js';
import { counted, countText, keyValues } from '../../render/text.js';
import { elapsed, elapsedFine } from '../../render/words.js';
import { terminalColumns } from '../../render/wrap.js';
import { ArrivalPlan, phasesOf, type Spike } from './arrivals.js';
import { FAILING_SHARE, LATE_MS, type LoadStats, type NoAnswerKind } from './load-stats.js';
import { Deliveries, Pacer, systemTimers, type Timers } from './pacer.js';

// `send --rate R --duration D`: a peak day tried against a receiver. The flags as a load takes them, the question
// before a load goes to another machine, the progress line, and the report (pacer.ts sends, load-stats.ts counts).

/** Requests open at once unless --max-in-flight says otherwise: 100 s of a receiver's answers at 10 a second. */
export const DEFAULT_MAX_IN_FLIGHT = 1000;
/** Repeats unless --repeats says otherwise: one delivery in twenty is sent again. */
export const DEFAULT_REPEAT_SHARE = 0.05;

/** What --rate, --duration and the flags that go with them ask. */
export interface Load {
  perSecond: number;
  durationMs: number;
  spikes: Spike[];
  repeatShare: number;
  maxInFlight: number;
  /** Sent to another machine without a question. */
  yes: boolean;
}

/** The flags of a load as commander parsed them (undefined: not given). */
interface LoadFlags {
  rate?: number | undefined;
  duration?: number | undefined;
  spike?: Spike[] | undefined;
  repeats?: number | undefined;
  maxInFlight?: number | undefined;
  yes?: true | undefined;
  set?: unknown[] | undefined;
  data?: string | undefined;
  record?: string | undefined;
  secretFile?: string | undefined;
}

/**
 * The load the flags ask for, undefined for one delivery; a usage error for flags that do not go together: a load
 * needs both --rate and --duration and a secret, and sends the catalog's samples (no --data, --set or --record).
 */
export function loadOf(flags: LoadFlags): Load | undefined {
  const loadOnly = (['spike', 'repeats', 'maxInFlight', 'yes'] as const).find((name) => flags[name] !== undefined);
  if (flags.rate === undefined && flags.duration === undefined) {
    if (loadOnly) throw usageError(`--${kebab(loadOnly)} goes with a load: --rate R --duration D`);
    return undefined;
  }
  if (flags.rate === undefined) throw usageError('--duration goes with --rate: how many deliveries a second, such as --rate 200');
  if (flags.duration === undefined) throw usageError('--rate goes with --duration: how long to send, such as --duration 60s');
  const oneOnly = (['data', 'set', 'record'] as const).find((name) => (name === 'set' ? (flags.set?.length ?? 0) > 0 : flags[name] !== undefined));
  if (oneOnly) throw usageError(`--${oneOnly} is for one delivery: a load sends the catalog's samples (--event TYPE for one type)`);
  if (flags.secretFile === undefined) {
    throw usageError('a load is signed: give --secret-file, the secret your receiver verifies with', 'unsigned, every delivery tries only its refusal');
  }
  return {
    perSecond: flags.rate,
    durationMs: flags.duration,
    spikes: flags.spike ?? [],
    repeatShare: flags.repeats ?? DEFAULT_REPEAT_SHARE,
    maxInFlight: flags.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    yes: flags.yes === true,
  };
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export interface LoadOptions {
  url: string;
  load: Load;
  /** Only this event type; every type of the catalog in turn when undefined. */
  event?: string | undefined;
  secretFile?: string | undefined;
  platformName: string;
  timeoutMs: number;
  json: boolean;
  color: boolean;
}

export interface LoadDeps extends Io {
  transport: Transport;
  /** Asks before a load goes to another machine. */
  prompter?: Pick<Prompter, 'confirm'> | undefined;
  /** A question can be asked (a terminal, prompts on); without, a load to another machine needs --yes. */
  canPrompt?: boolean | undefined;
  /** Fires at Ctrl-C: the report so far, exit 130. */
  stop?: AbortSignal | undefined;
  /** The arrivals' clock: this machine's unless a test gives its own. */
  timers?: Timers | undefined;
  /** How long answers take: this machine's milliseconds unless a test gives its own. */
  elapsedMs?: (() => number) | undefined;
}

/** Sends the load, shows its progress on a terminal, and reports: exit 0 when every delivery due was sent and answered 2xx in time. */
export async function runLoad(options: LoadOptions, deps: LoadDeps): Promise<number> {
  const url = forwardUrl(options.url, '<url>');
  checkSecretFilePath(options.secretFile);
  const { load } = options;
  const plan = new ArrivalPlan(phasesOf(load.perSecond, load.durationMs, load.spikes));
  const secret = await requiredSecret({ secretFile: options.secretFile }, deps);
  if (!isLoopbackHost(url.hostname) && !load.yes) await confirmAway(url, plan, deps);
  const timers = deps.timers ?? systemTimers;
  const deliveries = new Deliveries({
    events: options.event === undefined ? EVENT_TYPES : [options.event],
    repeatShare: load.repeatShare,
    secret,
    platformName: options.platformName,
    userAgent: `whsvc/${WHSVC_VERSION} (send)`,
  });
  const progress = deps.stderr.isTTY ? new ProgressLine(deps.stderr, () => timers.now()) : undefined;
  const capLine = `whsvc send: ${counted(load.maxInFlight, 'request')} open at once, the cap (--max-in-flight): deliveries due wait for an answer, and start late\n`;
  const pacer = new Pacer(url, plan, { timeoutMs: options.timeoutMs, maxInFlight: load.maxInFlight }, deliveries, {
    transport: deps.transport,
    timers,
    elapsedMs: deps.elapsedMs ?? (() => performance.now()),
    stop: deps.stop,
    onCap: () => (progress ? progress.writeAbove(capLine) : deps.stderr.write(capLine)),
  });
  const stopProgress = progress ? showProgress(progress, pacer, plan, options.timeoutMs, timers) : () => {};
  const stats = await pacer.run().finally(stopProgress);
  const interrupted = deps.stop?.aborted === true;
  const report = { url, plan, load, stats, timeoutMs: options.timeoutMs, interrupted };
  if (options.json) deps.jsonOut.line(loadDocument(report));
  else deps.stdout.write(await loadBlock(report, options, deps));
  if (interrupted) return ExitCode.interrupted;
  return stats.failed === 0 && stats.missed === 0 ? ExitCode.ok : ExitCode.failure;
}

/** A load to another machine: asked first on a terminal, refused off one without --yes (nothing sent). */
async function confirmAway(url: URL, plan: ArrivalPlan, deps: Pick<LoadDeps, 'prompter' | 'canPrompt'>): Promise<void> {
  const what = `${counted(plan.total, 'delivery')} over ${elapsed(plan.durationMs)} to ${url.host}`;
  if (!deps.canPrompt || !deps.prompter)
    throw usageError(`${what}, which is not this machine, needs --yes (${NO_PROMPT})`, 'a load goes to another machine only when asked for');
  if (!(await deps.prompter.confirm(`Send ${what}? It is not this machine.`, false))) throw new CliError('nothing sent', ExitCode.failure);
}

/** Redraws the progress line each second of the run: sent, the rate of the last second, failures, requests open. */
function showProgress(progress: ProgressLine, pacer: Pacer, plan: ArrivalPlan, timeoutMs: number, timers: Timers): () => void {
  let lastSent = 0;
  let timer: unknown;
  const draw = () => {
    const { stats } = pacer;
    const rate = stats.sent - lastSent;
    lastSent = stats.sent;
    const at = Math.min(pacer.elapsed, plan.durationMs);
    const open = pacer.inFlight;
    const where =
      at < plan.durationMs ? `${elapsed(at)} of ${elapsed(plan.durationMs)}` : `waiting for ${countText(open)} open (each at most ${elapsed(timeoutMs)})`;
    progress.update(`${where} · ${countText(stats.sent)} sent · ${countText(rate)}/s · ${countText(stats.failed)} failed · ${countText(open)} open`, true);
    timer = timers.setTimeout(draw, 1000);
  };
  timer = timers.setTimeout(draw, 1000);
  return () => {
    timers.clearTimeout(timer);
    progress.clear();
  };
}

interface Report {
  url: URL;
  plan: ArrivalPlan;
  load: Load;
  stats: LoadStats;
  timeoutMs: number;
  interrupted: boolean;
}

/** Deliveries a second, to one decimal. */
const perSecond = (count: number, ms: number) => (ms > 0 ? Math.round((count * 10_000) / ms) / 10 : 0);

/** send --rate --json: one document of what was asked, sent and answered. */
function loadDocument({ url, plan, load, stats, timeoutMs, interrupted }: Report) {
  const time = (share: number) => {
    const ms = stats.times.quantile(share);
    return ms === undefined ? null : Math.round(ms * 10) / 10;
  };
  const seconds = Array.from(stats.perSecond.sent, (sent, second) => ({
    second,
    sent,
    ok: stats.perSecond.ok[second]!,
    failed: stats.perSecond.failed[second]!,
  }));
  return {
    url: shownUrl(url),
    rate: load.perSecond,
    duration_ms: load.durationMs,
    phases: plan.phases.map((phase, i) => ({
      from_ms: phase.fromMs,
      to_ms: phase.toMs,
      rate: phase.perSecond,
      spike: phase.spike ?? null,
      due: plan.dueIn(i),
      sent: stats.phaseSent[i]!,
      achieved_rate: perSecond(stats.phaseSent[i]!, phase.toMs - phase.fromMs),
    })),
    repeat_share: load.repeatShare,
    time_limit_ms: timeoutMs,
    max_in_flight: load.maxInFlight,
    due: plan.total,
    sent: stats.sent,
    achieved_rate: perSecond(stats.sent, stats.arrivalsMs),
    repeats: stats.repeats,
    missed: stats.missed,
    late_starts: stats.late,
    late_ms: LATE_MS,
    most_late_ms: Math.round(stats.mostLateMs),
    cap_reached_at_s: stats.capReachedAt ?? null,
    answers: stats.answers,
    no_answer: stats.noAnswer,
    answer_ms: { p50: time(0.5), p99: time(0.99), max: stats.times.count > 0 ? Math.round(stats.times.max * 10) / 10 : null },
    failed: stats.failed,
    failing_since_s: stats.failingSince() ?? null,
    failing_share: FAILING_SHARE,
    cancelled: stats.cancelled,
    interrupted,
    seconds,
  };
}

/** How each kind of no answer is counted in words: `3 refused`, `1 broken answer`. */
const NO_ANSWER_COUNTS: Record<NoAnswerKind, (count: number) => string> = {
  refused: (count) => `${countText(count)} refused`,
  reset: (count) => `${countText(count)} reset`,
  timed_out: (count) => `${countText(count)} timed out`,
  broken: (count) => counted(count, 'broken answer'),
  local: (count) => `${counted(count, 'failure')} of this machine's own`,
  other: (count) => counted(count, 'other failure'),
};

/** What a person reads: what was asked, what went, how it was answered, and when the receiver began to fail. */
async function loadBlock(report: Report, options: Pick<LoadOptions, 'color'>, deps: Io): Promise<string> {
  const { url, plan, load, stats, timeoutMs, interrupted } = report;
  const colors = await colorsFor(deps.stdout, deps.env, !options.color);
  const pairs: Array<[string, string | { styled: string }]> = [
    ['sent to', shownUrl(url)],
    [
      'asked',
      `${countText(load.perSecond)} a second for ${elapsed(load.durationMs)}: ${counted(plan.total, 'delivery')}, ${Math.round(load.repeatShare * 1000) / 10}% of them repeats`,
    ],
  ];
  plan.phases.forEach((phase, i) => {
    if (phase.spike === undefined) return;
    const span = `${elapsed(phase.fromMs)} to ${elapsed(phase.toMs)}`;
    pairs.push([
      'spike',
      `${phase.spike}: ${countText(phase.perSecond)} a second from ${span}, ${countText(perSecond(stats.phaseSent[i]!, phase.toMs - phase.fromMs))} a second sent`,
    ]);
  });
  const repeats = load.repeatShare > 0 ? ` (${counted(stats.repeats, 'repeat')}: a delivery sent again, same delivery id, attempt 2)` : '';
  pairs.push(['sent', `${countText(stats.sent)} in ${elapsed(stats.arrivalsMs)}, ${countText(perSecond(stats.sent, stats.arrivalsMs))} a second${repeats}`]);
  const answered = (['2xx', '3xx', '4xx', '5xx'] as const).filter((c) => stats.answers[c] > 0).map((c) => `${countText(stats.answers[c])} ${c}`);
  pairs.push(['answered', answered.length > 0 ? answered.join(', ') : 'none']);
  const p50 = stats.times.quantile(0.5);
  const p99 = stats.times.quantile(0.99);
  if (p50 !== undefined && p99 !== undefined) {
    pairs.push(['answer time', `p50 ${elapsedFine(p50)}, p99 ${elapsedFine(p99)}, slowest ${elapsedFine(stats.times.max)}`]);
  }
  pairs.push(['no answer', noAnswerWords(stats, timeoutMs)]);
  const since = stats.failingSince();
  const share = `more than ${FAILING_SHARE * 100}% of the deliveries due in it failed`;
  pairs.push(['failing', since === undefined ? `no second in which ${share}` : `from second ${since} (${since} s into the run): ${share}`]);
  pairs.push(...lateStarts(stats, plan, load));
  const interruptedWords = interrupted ? `stopped after ${elapsed(stats.arrivalsMs)}: ${countText(stats.cancelled)} open were not waited for; ` : '';
  const passed = !interrupted && stats.failed === 0 && stats.missed === 0;
  const missed = stats.missed > 0 ? `; ${countText(stats.missed)} due were never sent` : '';
  const verdict = `${interruptedWords}${countText(stats.failed)} of ${countText(stats.sent)} failed (anything but a 2xx within ${elapsed(timeoutMs)})${missed}`;
  pairs.push(['result', { styled: (passed ? colors.green : colors.red)(verdict) }]);
  return keyValues(pairs, colors.dim, terminalColumns(deps.stdout));
}

function noAnswerWords(stats: LoadStats, timeoutMs: number): string {
  const kinds = (Object.keys(stats.noAnswer) as NoAnswerKind[]).filter((kind) => stats.noAnswer[kind] > 0);
  if (kinds.length === 0) return stats.cancelled > 0 ? 'none of those that ended' : `none: each got an answer within ${elapsed(timeoutMs)}`;
  return kinds
    .map((kind) => {
      const words = kind === 'refused' || kind === 'reset' || kind === 'timed_out' ? '' : ` (${stats.noAnswerWords.get(kind)})`;
      return `${NO_ANSWER_COUNTS[kind](stats.noAnswer[kind])}${kind === 'timed_out' ? ` at ${elapsed(timeoutMs)}` : ''}${words}`;
    })
    .join(', ');
}

/** Whether deliveries started when they were due: late starts, the cap of open requests if it was reached, and those never sent. */
function lateStarts(stats: LoadStats, plan: ArrivalPlan, load: Load): Array<[string, string]> {
  const late = `${countText(stats.late)} more than ${elapsed(LATE_MS)} after they were due, the latest by ${elapsed(stats.mostLateMs)}`;
  const pairs: Array<[string, string]> = [['late starts', stats.late === 0 ? `none: each started within ${elapsed(LATE_MS)} of when it was due` : late]];
  if (stats.capReachedAt !== undefined) {
    pairs.push(['cap', `${countText(load.maxInFlight)} open at once from second ${stats.capReachedAt} (--max-in-flight): deliveries due waited for an answer`]);
  }
  if (stats.missed > 0)
    pairs.push(['never sent', `${countText(stats.missed)} of the ${countText(plan.total)} due: the run ended while the cap held them back`]);
  return pairs;
}
