import type { Colors } from '../../render/colors.js';
import { sanitize } from '../../render/text.js';
import { shownUrl } from '../../receiver/routes.js';
import type { Check, CheckResult, Outcome, Verdict } from './types.js';
import { allPassedWords } from './checks.js';
import type { EffectsSeen } from './effects.js';
import { median } from './judges.js';

// What check-receiver says of the checks it ran: a line each and the closing line, or the --json document.

/** A check as it ended: its verdict, and what it sent and got back (nothing when the battery stopped before it), and what testing the causes of its failure did. */
export interface Judged {
  check: Check;
  verdict: Verdict;
  outcomes: Outcome[];
  tested: Outcome[];
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

/**
 * A check's line, and for a failure the likely cause and the fix under it: each with the indent its continuations
 * take on a terminal (under the title; a cause's and a fix's two further, under their label).
 */
export function verdictLines({ check, verdict }: Judged, colors: Colors): Array<[string, string]> {
  const word = RESULT_MARKS[verdict.result](colors);
  const under = `${VERDICT_INDENT}  `;
  const lines: Array<[string, string]> = [[`${word}  ${check.number}  ${check.title}: ${sanitize(verdict.summary)}`, VERDICT_INDENT]];
  const label = verdict.found ? 'cause (tested):' : verdict.seen ? 'cause (seen):' : 'likely cause:';
  if (verdict.cause) lines.push([`${VERDICT_INDENT}${colors.dim(label)} ${verdict.cause}`, under]);
  if (verdict.fix) lines.push([`${VERDICT_INDENT}${colors.dim('fix:')} ${verdict.fix}`, under]);
  return lines;
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
export function closingLine(judged: readonly Judged[], limitMs: number, colors: Colors): string {
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

/** What --effects read, for --json. */
export function effectsDocument(seen: EffectsSeen) {
  return { result: seen.result, before: seen.before, after_first: seen.afterFirst, after_repeat: seen.afterRepeat, error: seen.error };
}

/** check-receiver --json: one document, each check with what it sent and what came back. */
export function document(
  target: URL,
  options: { limitMs: number; platformName: string },
  secrets: ReadonlyArray<{ name: string }>,
  judged: readonly Judged[],
  notSent: number,
) {
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
