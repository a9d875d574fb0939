import type { Webhook } from '../../../api/shapes.js';
import type { CommandDeps } from '../../../cli/context.js';
import { andMore, counted, sanitize, shellWord } from '../../../render/text.js';
import { alignedRows, hangOf, terminalColumns, wrapLine } from '../../../render/wrap.js';
import type { Double, Resent } from './old-deliveries.js';
import type { Proof, Seen, Verdict } from './proof.js';

// What rotate-secret says: the plan before anything changes, a line per step on stderr as it is done, the doubles and
// the end on stdout, and with --json one document of what was done. Never the secret: only its file's path.

export type StepName = 'twin' | 'proof' | 'switch' | 'delete';
export type StepState = 'to_do' | 'done' | 'failed';

/** What a run did, as --json prints it (and the human summary says). */
export interface Report {
  old_id: string;
  new_id: string | null;
  url: string;
  events: string[];
  signing_secret_file: string;
  dry_run: boolean;
  /** An earlier run's rotation, taken up where it stopped. */
  taken_up: boolean;
  steps: Record<StepName, StepState>;
  proof: (TestDelivery & { verdict: Verdict; old: TestDelivery | null }) | null;
  doubles: Double[];
  old_deliveries_resent: Resent[];
  /** Those that did not get through, dropped with the old webhook (--abandon-due). */
  old_deliveries_dropped: Resent[];
  /** What an earlier run left, cleared before the twin is made: webhooks deleted (by id), files removed (by path). */
  clear_first: { delete: string[]; remove: string[] };
  finished: boolean;
  already_finished: boolean;
  cancelled: boolean;
  error: string | null;
}

/** A test delivery of the proof, as --json gives it: `delivery_id` null when the service refused to make it. */
interface TestDelivery {
  delivery_id: string | null;
  webhook_id: string;
  status: string;
  answer: string;
}

export function newReport(old: Pick<Webhook, 'id' | 'url' | 'events'>, secretFile: string, dryRun: boolean): Report {
  return {
    old_id: old.id,
    new_id: null,
    url: old.url,
    events: old.events,
    signing_secret_file: secretFile,
    dry_run: dryRun,
    taken_up: false,
    steps: { twin: 'to_do', proof: 'to_do', switch: 'to_do', delete: 'to_do' },
    proof: null,
    doubles: [],
    old_deliveries_resent: [],
    old_deliveries_dropped: [],
    clear_first: { delete: [], remove: [] },
    finished: false,
    already_finished: false,
    cancelled: false,
    error: null,
  };
}

/** What an earlier run left, cleared before the twin is made; named in the plan. */
export interface LeftOver {
  /** Webhooks the create whose answer was lost may have made: one is deleted; two or more are named, and the run stops. */
  lost: Webhook[];
  /** The journal's twin, whose secret never reached the file (stopped in between): deleted. */
  secretless?: Webhook | undefined;
  /** The journal's twin, gone: the file that holds its secret is removed. */
  fileOfGone?: string | undefined;
}

/** What the plan says of the account as it stands. */
export interface PlanFacts {
  old: Webhook;
  twin: Webhook | undefined;
  /** Other webhooks at the same URL, left as they are (but what an earlier run left: leftOver). */
  others: Webhook[];
  /** What an earlier run left, cleared before the twin is made. */
  leftOver: LeftOver;
  /** The old webhook's deliveries still due now. */
  due: number;
  secretFile: string;
  /** --abandon-due: what does not get through is dropped with the old webhook. */
  abandonDue: boolean;
}

const STEP_ORDER: StepName[] = ['twin', 'proof', 'switch', 'delete'];

/** Where a step's line goes on: under its text, after `  ✓ 1. ` in the plan and `✓ 1/4 ` as it is done. */
const PLAN_STEP_HANG = ' '.repeat(7);
const STEP_HANG = ' '.repeat(6);

/**
 * The plan, laid out for `width` (a terminal's; undefined in a pipe): the four steps (those an earlier run did, ticked),
 * what changes for the user, and what the receiver needs.
 */
export function planText(facts: PlanFacts, report: Report, deps: Pick<CommandDeps, 'colors' | 'api'>, width: number | undefined): string {
  const c = deps.colors;
  const old = sanitize(facts.old.id);
  const twin = facts.twin ? sanitize(facts.twin.id) : 'a twin';
  const file = facts.secretFile;
  const doing: Record<StepName, string> = {
    twin: `${twin}${facts.twin ? ' (the twin)' : ''} at the same URL and events, paused; its signing secret to ${file} (mode 0600, never shown)`,
    proof:
      "proof: the service's test send to the paused twin, signed with the new secret, answered 2xx, or answered as the old webhook's test send is (the same refusal of the sample)",
    switch: `the switch: the twin resumed, then ${old} paused; an event of that moment goes to both, and is listed`,
    delete: `${facts.due > 0 ? `${counted(facts.due, 'delivery', 'deliveries')} of ${old} still due (signed with the old secret) sent now, then ` : ''}${old} deleted once nothing signed with its secret is due${facts.abandonDue ? ' (--abandon-due: or with what did not get through, dropped)' : ''}: the old secret is revoked`,
  };
  const steps = STEP_ORDER.map((step, index) =>
    wrapLine(`  ${report.steps[step] === 'done' ? c.green('✓') : ' '} ${index + 1}. ${doing[step]}`, width, PLAN_STEP_HANG, [file]),
  );
  const lines = [
    `Rotate the signing secret of ${old} (${sanitize(facts.old.url)}; ${facts.old.events.map(sanitize).join(', ')}) at ${sanitize(deps.api.baseUrl)}:`,
    ...leftOverLines(facts.leftOver, file).map((line) => `  ${line}`),
    ...steps,
    `The webhook's id changes: ${old} is replaced by the twin${facts.twin ? ` ${twin}` : "'s"}; webhooks apply files, keyed by URL, keep working.`,
    `The receiver must take both secrets from step 2 until step 4 is done: give it ${file} beside the old one.`,
  ];
  if (report.taken_up) lines.push(c.dim('An earlier run stopped part-way: this one goes on from where it stopped.'));
  const cleared = new Set([...facts.leftOver.lost, ...deletedFirst(facts.leftOver)].map((webhook) => webhook.id));
  for (const other of facts.others.filter((webhook) => !cleared.has(webhook.id)))
    lines.push(c.dim(`${sanitize(other.id)} has the same URL too: left as it is.`));
  return `${lines.map((line) => (line.includes('\n') ? line : wrapLine(line, width, hangOf(line), [file]))).join('\n')}\n`;
}

/** The webhooks an earlier run left that are deleted before the twin is made (two or more a lost create may have made are named instead). */
export const deletedFirst = (left: LeftOver): Webhook[] => [...(left.lost.length === 1 ? left.lost : []), ...(left.secretless ? [left.secretless] : [])];

/** What the plan says of what an earlier run left, a line each. */
export function leftOverLines(left: LeftOver, file: string): string[] {
  const lines: string[] = [];
  if (left.lost.length === 1) {
    lines.push(
      `First, ${sanitize(left.lost[0]!.id)} is deleted: an earlier run's create of the twin got no answer, and made it (paused, at the URL with the same events, made since), without its secret.`,
    );
  }
  if (left.lost.length > 1) {
    const ids = left.lost.map((webhook) => sanitize(webhook.id)).join(', ');
    lines.push(`First, the run stops: ${ids} could each be what an earlier run's create of the twin made, without its secret; it says how to delete that one.`);
  }
  if (left.secretless) lines.push(`First, the twin ${sanitize(left.secretless.id)} an earlier run made is deleted: its secret never reached ${file}.`);
  if (left.fileOfGone !== undefined)
    lines.push(`First, ${file} is removed: it holds the secret of the twin ${sanitize(left.fileOfGone)} an earlier run made, which is gone.`);
  return lines;
}

/** The steps said as they are done, on stderr: `✓ 1/4 …`. */
export function stepLine(deps: Pick<CommandDeps, 'stderr' | 'errColors'>, step: StepName, text: string): void {
  const line = `${deps.errColors.green('✓')} ${STEP_ORDER.indexOf(step) + 1}/4 ${text}`;
  deps.stderr.write(`${wrapLine(line, terminalColumns(deps.stderr), STEP_HANG)}\n`);
}

const testDelivery = (seen: Seen): TestDelivery => ({
  delivery_id: seen.deliveryId ?? null,
  webhook_id: seen.webhookId,
  status: seen.status,
  answer: seen.answer,
});

/** The proof's tries, as --json gives them. */
export const proofReport = (proof: Proof): NonNullable<Report['proof']> => ({
  ...testDelivery(proof.twin),
  verdict: proof.verdict,
  old: proof.old ? testDelivery(proof.old) : null,
});

/** A test delivery named in a sentence: `dlv_…, to the paused twin wh_…`. */
const named = (seen: Seen, twin: boolean): string =>
  `${seen.deliveryId === undefined ? '' : `${sanitize(seen.deliveryId)}, `}to ${twin ? 'the paused twin ' : ''}${sanitize(seen.webhookId)}`;

/** The proof's step line: what was seen, and no more (a receiver that takes everything answers 2xx too). */
export function provenText(proof: Proof): string {
  const twin = `the receiver ${proof.twin.answer} to a test delivery signed with the new secret (${named(proof.twin, true)})`;
  if (!proof.old) return twin;
  return `${twin}, as to one signed with the old (${named(proof.old, false)}): it refuses the service's sample event, not the new secret`;
}

/** The answers of a try, for the line that says it is tried again. */
export const answersText = (proof: Proof): string =>
  `the new secret's test delivery: ${proof.twin.answer}${proof.old ? `; the old secret's: ${proof.old.answer}` : ''}`;

/** A test delivery's id and what it came to: `dlv_…: answered 401`. */
const cameTo = (seen: Seen): string => `${seen.deliveryId === undefined ? '' : `${sanitize(seen.deliveryId)}: `}${seen.answer}`;

/** Why nothing switched: what each test delivery came to. */
export function unprovenText(proof: Proof, url: string): string {
  const { twin, old } = proof;
  if (proof.verdict === 'not_sent' && old) {
    return (
      `the service did not send its test delivery to the paused twin ${sanitize(twin.webhookId)} (${cameTo(twin)}), and the one to ${sanitize(old.webhookId)}, at the same URL, was answered (${cameTo(old)}): ` +
      'its test send does not reach a paused webhook (the interface does not promise it; the sandbox does it), so nothing can show before the switch that the receiver takes the new secret'
    );
  }
  const lead =
    proof.verdict === 'not_taken'
      ? `the receiver at ${sanitize(url)} does not take the new secret yet`
      : `nothing shows that the receiver at ${sanitize(url)} takes the new secret`;
  return `${lead}: a test delivery signed with it (${named(twin, true)}): ${twin.answer}${old ? `; one signed with the old (${named(old, false)}): ${old.answer}` : ''}`;
}

/** The events both webhooks were sent, whose effects the receiver's owner should check, on stdout. */
export function doublesText(doubles: Double[], report: Report): string {
  if (doubles.length === 0) return 'No event went to both webhooks during the switch.\n';
  const old = sanitize(report.old_id);
  const twin = sanitize(report.new_id ?? '');
  const rows = doubles.map((d) => [
    sanitize(d.event),
    sanitize(d.payload_id ?? '-'),
    `${old} ${sanitize(d.old_delivery_id)}`,
    `${twin} ${sanitize(d.new_delivery_id)}`,
  ]);
  return (
    `${counted(doubles.length, 'event')} went to both webhooks during the switch, the same payload under two delivery ids: ` +
    'a receiver that drops repeats by delivery id acts on each twice; check the effects of these:\n' +
    alignedRows(rows)
      .map((row) => `  ${row}`)
      .join('\n') +
    '\n'
  );
}

/** What became of a delivery sent again, in the words of the line that counts them. */
function cameOf(resent: Resent): string {
  if (resent.outcome === 'delivered') return 'delivered';
  if (resent.outcome === 'already_delivered') return 'found delivered already';
  return `not delivered (${sanitize(resent.reason ?? resent.outcome)})`;
}

/** One line of what of the old webhook's deliveries still due was sent again, and what came of it (the last try of each); '' when none was. */
export function resentText(report: Report): string {
  const last = new Map(report.old_deliveries_resent.map((resent) => [resent.delivery_id, resent]));
  if (last.size === 0) return '';
  const counts = new Map<string, number>();
  for (const resent of last.values()) counts.set(cameOf(resent), (counts.get(cameOf(resent)) ?? 0) + 1);
  const came = [...counts].map(([words, count]) => `${count} ${words}`).join(', ');
  return `${counted(last.size, 'delivery', 'deliveries')} of ${sanitize(report.old_id)} still due, signed with the old secret, sent again before it was deleted: ${came}.\n`;
}

/** The end of a rotation, on stdout: what was sent again, the new webhook, and what the receiver may do now. */
export function endText(report: Report): string {
  const dropped = report.old_deliveries_dropped.length;
  return (
    resentText(report) +
    `Done: ${sanitize(report.old_id)} is now ${sanitize(report.new_id)} (${sanitize(report.url)}), whose signing secret is in ${report.signing_secret_file}.\n` +
    (dropped === 0
      ? 'The receiver can drop the old secret: it is revoked, and nothing signed with it is due.\n'
      : `The receiver can drop the old secret: it is revoked, and the ${counted(dropped, 'delivery', 'deliveries')} signed with it that did not get through ${dropped === 1 ? 'was' : 'were'} dropped (--abandon-due).\n`)
  );
}

/**
 * What became of the old webhook's deliveries left, said of them all: sent and refused, they did not get through; one
 * still under way is not delivered yet (nor is one of a mix).
 */
export function leftVerb(left: Resent[]): string {
  if (left.every((one) => one.outcome === 'failed' || one.outcome === 'error')) return 'did not get through';
  return left.length === 1 ? 'is not delivered yet' : 'are not delivered yet';
}

/** The old webhook's deliveries that did not get through, in words: `dlv_a (answered 503), dlv_b (…) and 3 more`. */
export const leftWords = (left: Resent[]): string =>
  andMore(
    left.slice(0, 5).map((one) => `${sanitize(one.delivery_id)} (${sanitize(one.reason ?? one.outcome)})`),
    left.length,
  );

/** The command that finishes (or cancels) this rotation, to paste. */
export const sameCommand = (id: string, secretFile: string, more = ''): string =>
  `whsvc webhooks rotate-secret ${shellWord(id)} --secret-file ${shellWord(secretFile)}${more}`;
