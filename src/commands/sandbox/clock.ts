import { Argument, Command } from '@commander-js/extra-typings';
import { moveSandboxClock, sandboxClock } from '../../api/endpoints.js';
import type { ClockState } from '../../api/shapes.js';
import { addVerbs, apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { duration } from '../../cli/parse.js';
import { clockTime, elapsed } from '../../render/words.js';
import { renderTable, type Column, type TableOptions } from '../../render/table.js';
import type { Colors } from '../../render/colors.js';
import { DELIVERY_ID_WIDTH, EVENT_MIN, EVENT_WIDTH, WEBHOOK_ID_WIDTH } from '../../cli/columns.js';
import { counted, countText, keyValues } from '../../render/text.js';
import { laidOut, terminalColumns } from '../../render/wrap.js';
import type { CommandDeps } from '../../cli/context.js';
import { usageError } from '../../cli/errors.js';
import { printJson, tableLayout } from '../../cli/output.js';
import { numberText, type ServiceNumber } from '../../exact-json.js';
import { ProgressLine } from '../../render/progress.js';
import { holdLine } from '../../render/stream.js';

export const command = (runF = run) => {
  const clock = new Command('clock')
    .description("the sandbox's time and the automatic attempts due next; with --clock manual, advance and set move it")
    .addHelpText('after', examples('whsvc sandbox clock', 'whsvc sandbox clock advance 1h', 'whsvc sandbox clock set 2030-01-01T00:00:00Z'))
    .action(apiAction((deps) => runF({ action: 'show' }, deps)));
  const advance = new Command('advance')
    .description('move a manual clock forward, sending every attempt that falls due on the way, in order')
    .addArgument(new Argument('<duration>', 'how far: 90s, 30m, 2h, 3d').argParser(duration(10 * 365 * 86_400_000)))
    .addHelpText('after', examples('whsvc sandbox clock advance 3d        # a whole retry schedule, played out', 'whsvc sandbox clock advance 90s --json'))
    .action(apiAction((deps, ms) => runF({ action: 'advance', ms }, deps)));
  const set = new Command('set')
    .description('move a manual clock forward to a time (never back), sending what falls due on the way')
    .argument('<time>', 'an ISO 8601 time, e.g. 2030-01-01T00:00:00Z')
    .addHelpText('after', examples('whsvc sandbox clock set 2030-01-01T00:00:00Z'))
    .action(apiAction((deps, to) => runF({ action: 'set', to: isoTime(to) }, deps)));
  addVerbs(clock, advance, set);
  return clock;
};

/** Show the clock, advance it by `ms` milliseconds, or set it `to` an ISO 8601 time (isoTime). */
export type ClockOptions = { action: 'show' } | { action: 'advance'; ms: number } | { action: 'set'; to: string };

/** `clock set`'s time as the sandbox takes it (UTC, in ISO 8601), or a usage error when it is none. */
export function isoTime(given: string): string {
  const to = Date.parse(given);
  if (!/^\d{4}-\d\d-\d\dT/.test(given) || Number.isNaN(to)) {
    throw usageError(`${JSON.stringify(given)} is not an ISO 8601 time`, 'for example: whsvc sandbox clock set 2030-01-01T00:00:00Z');
  }
  return new Date(to).toISOString();
}

/**
 * A jump waits for its sends, as long as they take: on a terminal, a manual
 * clock's jump is said, and a line shows how far it has gone (JumpProgressLine). Once asked, the sandbox
 * finishes it whatever whsvc does: a Ctrl-C says so, so that no one asks for
 * the same jump twice.
 */
async function moveClock(move: Parameters<typeof moveSandboxClock>[1], deps: CommandDeps): Promise<ClockState> {
  const where = 'to' in move ? `to ${move.to}` : `${elapsed(move.advance_ms ?? 0)} ahead`;
  // On a terminal, the clock's kind first: a wall clock refuses the jump, and nothing is said of moving it before.
  const shown = deps.stderr.isTTY && (await sandboxClock(deps.api)).clock === 'manual';
  if (shown) deps.stderr.write(laidOut(deps.stderr, `Moving the sandbox's clock ${where}; every attempt due on the way is sent, in order…\n`));
  const progress = shown ? new JumpProgressLine(deps) : undefined;
  const unregister = deps.interrupts.onInterrupt(() => {
    progress?.stop();
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `\nwhsvc: the sandbox goes on moving its clock ${where} without whsvc; \`whsvc sandbox clock\` shows its time (another move would add to this one)`,
      ),
    );
  });
  try {
    return await moveSandboxClock(deps.api, move);
  } finally {
    unregister();
    progress?.stop();
  }
}

/** How often, at most, a terminal's progress line asks the sandbox how far its jump has gone: the next question is asked this long after the last was answered. */
const PROGRESS_POLL_MS = 1000;

/**
 * A jump's progress on a terminal, under the line that says what is moved: the sandbox is asked (GET /_sandbox/clock)
 * how far its jump has gone, about once a second, and the line shows how much of the jump's time has passed and the
 * attempts sent, under way and still due (more fall due as failures are retried): `15 s of 1 h · 12 sent · 6 under way ·
 * 8 due`. The questions are whsvc's, not the user's: quiet (no spinner, no note of a 429, never a wait it asks for); one
 * refused or failed is skipped, and the jump's own answer tells. From the start it holds the stream's line, so the
 * jump's own request draws no spinner under the line above either.
 */
class JumpProgressLine {
  private readonly line: ProgressLine;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Ends the question in flight when the jump is answered: its answer is no longer wanted. */
  private asking: AbortController | undefined;
  private stopped = false;

  constructor(private readonly deps: CommandDeps) {
    this.line = new ProgressLine(deps.stderr, deps.now);
    holdLine(deps.stderr);
    this.schedule();
  }

  /** Ends the questions at once (the one in flight aborted, never waited for) and wipes the line. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.asking?.abort();
    this.line.clear();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.asking = new AbortController();
      void this.ask(this.asking.signal).finally(() => {
        if (!this.stopped) this.schedule();
      });
    }, PROGRESS_POLL_MS);
  }

  private async ask(signal: AbortSignal): Promise<void> {
    const state = await sandboxClock(this.deps.api, signal).catch(() => undefined);
    if (this.stopped || !state?.moving) return;
    this.line.update(jumpProgress(state.now, state.moving), true);
  }
}

/** A jump's progress line, short enough for 60 columns: `15 s of 1 h · 12 sent · 6 under way · 8 due`. */
export function jumpProgress(now: string, moving: NonNullable<ClockState['moving']>): string {
  const from = Date.parse(moving.from);
  const count = (value: ServiceNumber) => countText(numberText(value));
  return `${elapsed(Date.parse(now) - from)} of ${elapsed(Date.parse(moving.to) - from)} · ${count(moving.sent)} sent · ${count(moving.sending)} under way · ${count(moving.due)} due`;
}

/** `sandbox clock [advance D | set T]`: the sandbox's time (/_sandbox/clock), and the attempts due next. */
export async function run(options: ClockOptions, deps: CommandDeps): Promise<number> {
  const move = options.action === 'advance' ? { advance_ms: options.ms } : options.action === 'set' ? { to: options.to } : undefined;
  const state = move ? await moveClock(move, deps) : await sandboxClock(deps.api);
  if (deps.json) {
    printJson(deps, state);
    return 0;
  }
  const now = Date.parse(state.now);
  if (state.sent !== undefined) {
    deps.stdout.write(
      laidOut(
        deps.stdout,
        `Moved the sandbox's clock from ${state.from} to ${state.now}: ${counted(numberText(state.sent), 'attempt')} sent, ${countText(numberText(state.delivered ?? 0))} delivered, ${countText(numberText(state.failed ?? 0))} failed\n`,
      ),
    );
  } else {
    deps.stdout.write(
      keyValues(
        [
          ['now', state.now],
          ['clock', state.clock === 'manual' ? 'manual (moved by whsvc sandbox clock advance)' : 'wall clock'],
        ],
        deps.colors.dim,
        terminalColumns(deps.stdout),
      ),
    );
  }
  if (state.due.length === 0) {
    deps.stdout.write('No automatic attempts are due.\n');
    return 0;
  }
  const layout = tableLayout(deps.stdout);
  if (!layout.plain) deps.stdout.write('Due next:\n');
  deps.stdout.write(await dueTable(state.due, now, deps.colors, layout));
  return 0;
}

/**
 * The attempts due next, by width, the rows never changing it: the time of day beside the due time (DUE AT) goes
 * first, then the webhook, the event type cut and then left out; the due time keeps its long form (`in 5 seconds`,
 * the words a sentence has) while anything else can go, and takes its compact one (`in 5s`) only after.
 */
export function dueTable(due: ClockState['due'], now: number, colors: Colors, layout: TableOptions): Promise<string> {
  const columns: Column[] = [
    { title: 'DELIVERY', kind: 'id', width: DELIVERY_ID_WIDTH },
    { title: 'ATTEMPT', width: 7 },
    { title: 'EVENT', kind: 'words', width: EVENT_WIDTH, min: EVENT_MIN, give: 3, drop: 4 },
    { title: 'WEBHOOK', kind: 'id', width: WEBHOOK_ID_WIDTH, drop: 2 },
    { title: 'DUE', kind: 'time', now, give: 5 },
    { title: 'DUE AT', width: 19, drop: 0 },
  ];
  return renderTable(
    layout.plain ? [] : columns,
    due.map((d) => [d.delivery_id, numberText(d.attempt), d.event, d.webhook_id, d.due_at, ...(layout.plain ? [] : [clockTime(d.due_at, now)])]),
    colors,
    layout,
  );
}
