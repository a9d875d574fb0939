import type { Webhook } from '../../../api/shapes.js';
import type { CommandDeps } from '../../../cli/context.js';
import { andMore, counted, sanitize, shellWord } from '../../../render/text.js';
import type { Double, Resent } from './old-deliveries.js';

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
  proof: { delivery_id: string; status: string; answer: string } | null;
  doubles: Double[];
  old_deliveries_resent: Resent[];
  finished: boolean;
  already_finished: boolean;
  cancelled: boolean;
  error: string | null;
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
    finished: false,
    already_finished: false,
    cancelled: false,
    error: null,
  };
}

/** What the plan says of the account as it stands. */
export interface PlanFacts {
  old: Webhook;
  twin: Webhook | undefined;
  /** Other webhooks at the same URL, left as they are. */
  others: Webhook[];
  /** The old webhook's deliveries still due now. */
  due: number;
  secretFile: string;
}

const STEP_ORDER: StepName[] = ['twin', 'proof', 'switch', 'delete'];

/** The plan: the four steps (those an earlier run did, ticked), what changes for the user, and what the receiver needs. */
export function planText(facts: PlanFacts, report: Report, deps: Pick<CommandDeps, 'colors' | 'api'>): string {
  const c = deps.colors;
  const old = sanitize(facts.old.id);
  const twin = facts.twin ? sanitize(facts.twin.id) : 'a twin';
  const file = facts.secretFile;
  const doing: Record<StepName, string> = {
    twin: `${twin}${facts.twin ? ' (the twin)' : ''} at the same URL and events, paused; its signing secret to ${file} (mode 0600, never shown)`,
    proof: "proof that the receiver takes the new secret: the service's test send to the paused twin must be delivered",
    switch: `the switch: the twin resumed, then ${old} paused; an event of that moment goes to both, and is listed`,
    delete: `${facts.due > 0 ? `${counted(facts.due, 'delivery', 'deliveries')} of ${old} still due (signed with the old secret) sent now, then ` : ''}${old} deleted once nothing signed with its secret is due: the old secret is revoked`,
  };
  const lines = [
    `Rotate the signing secret of ${old} (${sanitize(facts.old.url)}; ${facts.old.events.map(sanitize).join(', ')}) at ${sanitize(deps.api.baseUrl)}:`,
    ...STEP_ORDER.map((step, index) => `  ${report.steps[step] === 'done' ? c.green('✓') : ' '} ${index + 1}. ${doing[step]}`),
    `The webhook's id changes: ${old} is replaced by the twin${facts.twin ? ` ${twin}` : "'s"}; webhooks apply files, keyed by URL, keep working.`,
    `The receiver must take both secrets from step 2 until step 4 is done: give it ${file} beside the old one.`,
  ];
  if (report.taken_up) lines.push(c.dim('An earlier run stopped part-way: this one goes on from where it stopped.'));
  for (const other of facts.others) lines.push(c.dim(`${sanitize(other.id)} has the same URL too: left as it is.`));
  return `${lines.join('\n')}\n`;
}

/** The steps said as they are done, on stderr: `✓ 1/4 …`. */
export function stepLine(deps: Pick<CommandDeps, 'stderr' | 'errColors'>, step: StepName, text: string): void {
  deps.stderr.write(`${deps.errColors.green('✓')} ${STEP_ORDER.indexOf(step) + 1}/4 ${text}\n`);
}

/** The events both webhooks were sent, for the receiver's dedupe to be checked, on stdout. */
export function doublesText(doubles: Double[], report: Report): string {
  if (doubles.length === 0) return 'No event went to both webhooks during the switch.\n';
  const old = sanitize(report.old_id);
  const twin = sanitize(report.new_id ?? '');
  const rows = doubles.map((d) => [sanitize(d.event), sanitize(d.payload_id), sanitize(d.old_delivery_id), sanitize(d.new_delivery_id)]);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  return (
    `${counted(doubles.length, 'event')} went to both webhooks during the switch, under two delivery ids each: the receiver should act on each once (by the payload's id):\n` +
    rows
      .map(([event, id, first, second]) => `  ${event!.padEnd(widths[0]!)}  ${id!.padEnd(widths[1]!)}  ${old} ${first!.padEnd(widths[2]!)}  ${twin} ${second}`)
      .join('\n') +
    '\n'
  );
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
