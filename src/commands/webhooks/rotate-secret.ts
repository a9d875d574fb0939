import { lstatSync, unlinkSync } from 'node:fs';
import { Argument, Command, Option } from '@commander-js/extra-typings';
import { deleteWebhook, getWebhook, updateWebhook } from '../../api/endpoints.js';
import { ApiError } from '../../api/errors.js';
import { allWebhooks } from '../../api/log.js';
import type { Webhook } from '../../api/shapes.js';
import { apiAction } from '../../cli/actions.js';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode, NO_PROMPT, usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { printJson } from '../../cli/output.js';
import { duration, resourceId } from '../../cli/parse.js';
import { checkSecretFilePath } from '../../cli/secret.js';
import { FileError, failureReason, ReservedFile } from '../../files/user-file.js';
import { sanitize, shellWord } from '../../render/text.js';
import { elapsed } from '../../render/words.js';
import { type Rotation, RotationJournal } from './rotate/journal.js';
import { doublesOf, dueDeliveries, resendDue } from './rotate/old-deliveries.js';
import { proofAnswer, tryProof } from './rotate/proof.js';
import { keepTrying, machineClock, type WaitClock } from './rotate/tries.js';
import { doublesText, leftWords, newReport, type PlanFacts, planText, type Report, sameCommand, stepLine } from './rotate/words.js';
import { serviceAddress, takingTurns } from './shared/account-lock.js';
import { createForSecret } from './shared/create-webhook.js';
import { createFailure } from './shared/may-exist.js';
import { secretFileText, undoCreate } from './shared/secret-file.js';
import { urlKey } from './shared/url.js';
import { sameEvents } from './shared/events.js';

/** The longest --wait: a day, beyond which a person has gone home and the command should end. */
const LONGEST_WAIT_MS = 86_400_000;

export const command = (runF = run) =>
  new Command('rotate-secret')
    .description('move a webhook to a new signing secret without a missed event: a paused twin, proof, the switch, the old one deleted')
    .addArgument(new Argument('<id>', 'the webhook whose secret is replaced').argParser(resourceId('webhook')))
    .requiredOption('--secret-file <path>', 'where the new signing secret goes (mode 0600); the same path finishes a stopped run')
    .option('--dry-run', 'print the plan and change nothing')
    .option('-y, --yes', 'go ahead without asking (needed without a terminal)')
    .addOption(
      new Option('--wait <duration>', "keep trying the proof, and the old webhook's last deliveries, for up to this long: 90s, 10m").argParser(
        duration(LONGEST_WAIT_MS, 1),
      ),
    )
    .option('--cancel', "before the switch: delete the paused twin and the new secret's file")
    .addHelpText(
      'after',
      examples(
        'whsvc webhooks rotate-secret wh_… --secret-file ./new.secret --dry-run',
        'whsvc webhooks rotate-secret wh_… --secret-file ./new.secret',
        'whsvc webhooks rotate-secret wh_… --secret-file ./new.secret --yes --wait 10m --json   # in scripts',
      ),
    )
    .action(
      apiAction((deps, id, o) =>
        runF(
          rotateOptions(
            { id, secretFile: o.secretFile, dryRun: Boolean(o.dryRun), yes: Boolean(o.yes), waitMs: o.wait ?? 0, cancel: Boolean(o.cancel) },
            deps.canPrompt,
          ),
          deps,
        ),
      ),
    );

/** Where a run can be stopped (a kill would stop it there too): a test's `at` is called at each, and may throw. */
export type Point =
  | 'create-noted'
  | 'twin-made'
  | 'twin-noted'
  | 'created'
  | 'proven'
  | 'switch-noted'
  | 'resumed'
  | 'paused'
  | 'resent'
  | 'delete-noted'
  | 'deleted';

export interface RotateOptions {
  id: string;
  secretFile: string;
  dryRun: boolean;
  yes: boolean;
  /** --wait: how long the proof and the old webhook's last deliveries are tried again; 0 tries once. */
  waitMs: number;
  cancel: boolean;
  /** Called at each point of the run where it could be stopped (tests: events made there, or a failure thrown). */
  at?: ((point: Point) => Promise<void> | void) | undefined;
  /** The clock --wait goes by: this machine's, unless a test gives its own. */
  clock?: WaitClock | undefined;
}

/** The flags as given, checked: a file to write, and, without a terminal to ask on, --yes (but for --dry-run). */
function rotateOptions(options: RotateOptions, canPrompt: boolean): RotateOptions {
  checkSecretFilePath(options.secretFile, 'the file to write the new secret to');
  if (options.secretFile === '-') throw usageError('--secret-file - would print the secret: give the path of a file to write it to');
  if (options.waitMs > 0 && (options.dryRun || options.cancel))
    throw usageError(`--wait goes with a rotation that runs, not with ${options.dryRun ? '--dry-run' : '--cancel'}`);
  if (!options.dryRun && !options.yes && !canPrompt) {
    throw usageError(`rotating a secret needs confirmation: pass --yes, or see the plan with --dry-run (${NO_PROMPT})`);
  }
  return options;
}

/** A run's parts, for the steps. */
interface Rotating {
  deps: CommandDeps;
  options: RotateOptions;
  journal: RotationJournal;
  clock: WaitClock;
  report: Report;
  at: (point: Point) => Promise<void>;
}

export async function run(options: RotateOptions, deps: CommandDeps): Promise<number> {
  if (options.dryRun) return rotateNow(options, deps);
  return takingTurns(deps, () => rotateNow(options, deps));
}

async function rotateNow(options: RotateOptions, deps: CommandDeps): Promise<number> {
  const journal = RotationJournal.open(options.secretFile);
  try {
    const rotation = rotationOf(journal.rotation, options, deps);
    // A finished rotation of another webhook is no rotation of this one: its journal is replaced when this one starts.
    if (!rotation) journal.rotation = undefined;
    const report = newReport({ id: options.id, url: rotation?.url ?? '', events: rotation?.events ?? [] }, options.secretFile, options.dryRun);
    const ctx: Rotating = { deps, options, journal, report, clock: options.clock ?? machineClock(deps.now), at: async (point) => options.at?.(point) };
    if (options.cancel) return await cancel(ctx, rotation);
    if (rotation?.done) return alreadyFinished(ctx, rotation);
    const facts = await survey(ctx, rotation);
    if (!facts) return finishedMeanwhile(ctx);
    if (!deps.json || (!options.yes && !options.dryRun)) (deps.json ? deps.stderr : deps.stdout).write(planText(facts, report, deps));
    if (options.dryRun) {
      if (deps.json) printJson(deps, report);
      else deps.stderr.write('Dry run: nothing was changed.\n');
      return ExitCode.ok;
    }
    if (!options.yes && !(await deps.prompter.confirm(`Rotate the secret of ${sanitize(options.id)} now?`, false))) {
      throw new CliError('nothing was changed', ExitCode.failure);
    }
    return await carryOut(ctx, facts);
  } finally {
    journal.close();
  }
}

/**
 * The journal's rotation, when it is of this webhook at this service; undefined when there is none (or only a finished
 * one of another webhook, which a new rotation replaces). One of another still under way is refused: its twin's
 * secret is in that file.
 */
function rotationOf(rotation: Rotation | undefined, options: RotateOptions, deps: CommandDeps): Rotation | undefined {
  if (!rotation) return undefined;
  if (rotation.old === options.id && rotation.service === serviceAddress(deps.api)) return rotation;
  if (rotation.done) return undefined;
  throw usageError(
    `--secret-file ${options.secretFile} belongs to the rotation of ${sanitize(rotation.old)} at ${sanitize(rotation.service)}, still under way: its twin's secret is there`,
    `finish it (${sameCommand(rotation.old, options.secretFile)}, against that service), or give another --secret-file`,
  );
}

/** The same command after the rotation finished: said, nothing changed. */
function alreadyFinished(ctx: Rotating, rotation: Rotation): number {
  const { deps, report } = ctx;
  Object.assign(report, { new_id: rotation.twin ?? null, url: rotation.url, events: rotation.events, already_finished: true, finished: true });
  report.steps = { twin: 'done', proof: 'done', switch: 'done', delete: 'done' };
  if (deps.json) printJson(deps, report);
  else
    deps.stdout.write(
      `${sanitize(rotation.old)} was rotated already: it is now ${sanitize(rotation.twin)}, whose secret is in ${ctx.options.secretFile}. Nothing to do.\n`,
    );
  return ExitCode.ok;
}

/** The old webhook gone after the switch (deleted by a run stopped before it said so, or by hand): the rotation is over. */
function finishedMeanwhile(ctx: Rotating): number {
  if (!ctx.options.dryRun) ctx.journal.write({ done: true });
  ctx.report.taken_up = true;
  return alreadyFinished(ctx, ctx.journal.rotation!);
}

/** The webhook asked for, or undefined when the service has it no more. */
async function webhookOrGone(api: CommandDeps['api'], id: string): Promise<Webhook | undefined> {
  try {
    return await getWebhook(api, id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** Whether something is at `path` (a symlink counts: it is not ours to write through). */
const isThere = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false }) !== undefined;

/** A new secret's file given where something is already, and the journal knows no twin whose file it is. */
const secretFileTaken = (path: string) =>
  new FileError(
    `--secret-file ${path} already exists`,
    true,
    'rotate-secret writes the new secret to a file it creates: give the path of one that is not there',
  );

/**
 * The account as the rotation finds it, with the steps an earlier run did: the old webhook (refused when paused
 * before any switch: it has no deliveries to move), the journal's twin, the other webhooks at the URL, and what of the
 * old one is still due. Undefined when the old webhook is gone after the switch.
 */
async function survey(ctx: Rotating, rotation: Rotation | undefined): Promise<PlanFacts | undefined> {
  const { deps, options, report } = ctx;
  const old = rotation?.switched ? await webhookOrGone(deps.api, options.id) : await getWebhook(deps.api, options.id);
  if (!old) return undefined;
  Object.assign(report, { url: old.url, events: old.events, taken_up: rotation !== undefined });
  if (!old.active && !rotation?.switched) {
    throw new CliError(
      `webhook ${sanitize(old.id)} is paused: rotate-secret moves a live webhook's deliveries, and a paused one has none`,
      ExitCode.failure,
      `resume it first (whsvc webhooks update ${shellWord(old.id)} --active), or create a new webhook (--inactive) and delete this one`,
    );
  }
  const twin = rotation?.twin === undefined ? undefined : await webhookOrGone(deps.api, rotation.twin);
  if (rotation?.switched && !twin) {
    throw new CliError(
      `the twin ${sanitize(rotation.twin)} is gone, deleted after the switch began: ${sanitize(old.id)} is the webhook at ${sanitize(old.url)} again`,
      ExitCode.failure,
      `resume it if it is paused (whsvc webhooks update ${shellWord(old.id)} --active), then rotate it anew with another --secret-file`,
    );
  }
  if (twin && urlKey(twin.url) !== urlKey(old.url)) {
    throw new CliError(
      `the URL of ${sanitize(old.id)} changed since its twin ${sanitize(twin.id)} was made (${sanitize(twin.url)})`,
      ExitCode.failure,
      rotation?.switched
        ? `point the twin at it: whsvc webhooks update ${shellWord(twin.id)} --url …`
        : `cancel (${sameCommand(old.id, options.secretFile, ' --cancel')}) and start again`,
    );
  }
  if (!rotation?.twin && isThere(options.secretFile)) throw secretFileTaken(options.secretFile);
  const others: Webhook[] = [];
  for await (const webhook of allWebhooks(deps.api)) {
    if (urlKey(webhook.url) === urlKey(old.url) && webhook.id !== old.id && webhook.id !== twin?.id) others.push(webhook);
  }
  const secretWritten = twin !== undefined && isThere(options.secretFile);
  report.new_id = twin?.id ?? null;
  if (rotation?.switched || secretWritten) report.steps.twin = 'done';
  if (rotation?.switched) report.steps.proof = 'done';
  if (rotation?.switched && twin?.active && !old.active) report.steps.switch = 'done';
  const due = (await dueDeliveries(deps.api, old.id)).length;
  return { old, twin: secretWritten || rotation?.switched ? twin : undefined, others, due, secretFile: options.secretFile };
}

/** What a run stopped part-way says: the journal has what is needed to go on. */
const stoppedPartWay = (ctx: Rotating) => `whsvc: the rotation stopped part-way: ${sameCommand(ctx.options.id, ctx.options.secretFile)} finishes it\n`;

/** The steps not done yet, in order; with --json, the document of what was done, whatever ends the run. */
async function carryOut(ctx: Rotating, facts: PlanFacts): Promise<number> {
  const { deps, report } = ctx;
  const unregister = deps.interrupts.onInterrupt(() => deps.stderr.write(stoppedPartWay(ctx)));
  try {
    let twin = facts.twin;
    if (!ctx.journal.rotation?.switched) {
      twin ??= await makeTwin(ctx, facts);
      await prove(ctx, twin);
    }
    twin = await switchOver(ctx, twin!);
    await retireOld(ctx, twin);
  } catch (error) {
    report.error = (error as Error).message;
    if (deps.json) printJson(deps, report);
    throw error;
  } finally {
    unregister();
  }
  report.finished = true;
  if (deps.json) printJson(deps, report);
  else {
    deps.stdout.write(doublesText(report.doubles, report));
    deps.stdout.write(
      `Done: ${sanitize(report.old_id)} is now ${sanitize(report.new_id)} (${sanitize(report.url)}), whose signing secret is in ${ctx.options.secretFile}.\n` +
        'The receiver can drop the old secret: it is revoked, and nothing signed with it is due.\n',
    );
  }
  return ExitCode.ok;
}

/**
 * What an earlier run left of a twin that cannot be taken up, cleared before a new one is made: a twin whose secret
 * never reached the file (stopped in between) is deleted; a file whose twin is gone is removed; a create whose answer
 * was lost may have made a webhook this run cannot tell for sure, which is named.
 */
async function clearLostTwin(ctx: Rotating, facts: PlanFacts): Promise<void> {
  const { deps, options } = ctx;
  const rotation = ctx.journal.rotation;
  if (rotation?.createOpen) {
    const made = facts.others.filter((webhook) => !rotation.createOpen!.includes(webhook.id));
    if (made.length > 0) {
      const ids = made.map((webhook) => sanitize(webhook.id));
      throw new CliError(
        `an earlier run sent the create of the twin and got no answer: ${ids.join(', ')}, at the same URL, may be it, without its secret`,
        ExitCode.failure,
        `delete ${ids.length === 1 ? 'it' : 'those'} if made by that run (whsvc webhooks delete ${shellWord(made[0]!.id)} --yes), then ${sameCommand(options.id, options.secretFile)} again`,
      );
    }
  }
  if (rotation?.twin === undefined) return;
  const twin = await webhookOrGone(deps.api, rotation.twin);
  if (twin) {
    await deleteWebhook(deps.api, twin.id);
    deps.stderr.write(
      `whsvc: the twin ${sanitize(twin.id)} an earlier run made has no secret in ${options.secretFile} (stopped before it was written): deleted, and made anew\n`,
    );
  } else if (isThere(options.secretFile)) {
    unlinkSync(options.secretFile);
    deps.stderr.write(
      `whsvc: the twin ${sanitize(rotation.twin)} an earlier run made is gone: its secret's file ${options.secretFile} is removed, and the twin made anew\n`,
    );
  }
}

/** Step 1: the paused twin, its create journaled before it is sent and its id once made, its secret to the file. */
async function makeTwin(ctx: Rotating, facts: PlanFacts): Promise<Webhook> {
  const { deps, options, journal } = ctx;
  await clearLostTwin(ctx, facts);
  if (isThere(options.secretFile)) throw secretFileTaken(options.secretFile);
  const reserved = ReservedFile.reserve(options.secretFile, '--secret-file', false);
  const discard = () => reserved.discard();
  const unregister = deps.interrupts.onInterrupt(discard);
  const { old } = facts;
  try {
    if (!journal.rotation) journal.start({ service: serviceAddress(deps.api), old: old.id, url: old.url, events: old.events });
    journal.write({ create: { others: facts.others.map((webhook) => webhook.id) } });
    await ctx.at('create-noted');
    const again = `${sameCommand(options.id, options.secretFile)} again`;
    const { signing_secret: secret, ...twin } = await createForSecret(
      deps,
      { url: old.url, events: old.events, active: false },
      {
        interrupted: `whsvc: interrupted while creating the twin of ${sanitize(old.id)}: it may exist without its secret; ${again} names it\n`,
        failure: (error) => createFailure(error, old.url, again, `${again}: it names the webhook that create may have made`),
        again,
      },
    );
    await ctx.at('twin-made');
    journal.write({ twin: twin.id });
    await ctx.at('twin-noted');
    try {
      reserved.write(secretFileText(secret));
    } catch (error) {
      throw await undoCreate(deps.api, twin.id, options.secretFile, error, discard, `${again} with a --secret-file that can be written`);
    }
    ctx.report.new_id = twin.id;
    ctx.report.steps.twin = 'done';
    stepLine(deps, 'twin', `paused twin ${sanitize(twin.id)} created; its signing secret is in ${options.secretFile} (mode 0600)`);
    await ctx.at('created');
    return twin;
  } catch (error) {
    discard();
    throw error;
  } finally {
    unregister();
  }
}

/**
 * Step 2: the test send to the paused twin, delivered, or nothing switches: the twin and its secret's file stay, and
 * the error says what to do. --wait tries again until it is delivered or the wait is over.
 */
async function prove(ctx: Rotating, twin: Webhook): Promise<void> {
  const { deps, options, report } = ctx;
  let said = '';
  const attempt = await keepTrying(
    ctx.clock,
    options.waitMs,
    () => tryProof(deps, ctx.journal, twin.id, twin.events[0] ?? 'invoice.paid', ctx.clock),
    (tried) => tried.status === 'delivered',
    (tried, leftMs) => {
      const answer = proofAnswer(tried);
      if (answer !== said) deps.stderr.write(`whsvc: the receiver did not take the new secret yet (${answer}): trying again for up to ${elapsed(leftMs)}\n`);
      said = answer;
    },
  );
  report.proof = { delivery_id: attempt.delivery_id ?? attempt.id, status: attempt.status, answer: proofAnswer(attempt) };
  if (attempt.status !== 'delivered') {
    report.steps.proof = 'failed';
    throw new CliError(
      `the receiver at ${sanitize(twin.url)} did not take the new secret: the test delivery ${sanitize(report.proof.delivery_id)} to the paused twin ${sanitize(twin.id)} was not delivered (${report.proof.answer}); nothing was switched, and ${sanitize(options.id)} delivers as before`,
      ExitCode.failure,
      `give the receiver the secret in ${options.secretFile}, keeping the old one (it verifies with either until the rotation is done), then run the same command again; --wait 10m keeps trying, --cancel deletes the twin and the file`,
    );
  }
  report.steps.proof = 'done';
  stepLine(deps, 'proof', `the receiver took the new secret: test delivery ${sanitize(report.proof.delivery_id)} to ${sanitize(twin.id)} delivered`);
  await ctx.at('proven');
}

/**
 * Step 3: the twin resumed, then the old webhook paused, so that no event goes to neither: one of the moment between
 * goes to both. The twin takes the old one's events as they are now (an update since the twin was made).
 */
async function switchOver(ctx: Rotating, twin: Webhook): Promise<Webhook> {
  const { deps, options, journal, report } = ctx;
  const old = await getWebhook(deps.api, options.id);
  let now = twin;
  if (!journal.rotation!.switched) {
    if (!sameEvents(old.events, twin.events)) {
      now = await updateWebhook(deps.api, twin.id, { events: old.events });
      deps.stderr.write(`whsvc: the events of ${sanitize(old.id)} changed since the twin was made: ${sanitize(twin.id)} takes them too\n`);
    }
    journal.write({ switch: true });
    await ctx.at('switch-noted');
  }
  if (!now.active) {
    now = await updateWebhook(deps.api, twin.id, { active: true });
    journal.write({ resumed_at: now.updated_at ?? new Date(deps.serviceNow()).toISOString() });
  }
  await ctx.at('resumed');
  if (old.active) await updateWebhook(deps.api, old.id, { active: false });
  report.steps.switch = 'done';
  stepLine(deps, 'switch', `switched: ${sanitize(twin.id)} resumed, then ${sanitize(old.id)} paused`);
  await ctx.at('paused');
  return now;
}

/**
 * Step 4: the doubles listed; the old webhook's deliveries still due sent now, while the receiver takes the old secret
 * (paused, it would hold them; deleted, drop them), until none is; then the old webhook deleted, its secret revoked.
 */
async function retireOld(ctx: Rotating, twin: Webhook): Promise<void> {
  const { deps, options, journal, report } = ctx;
  const resumedAt = journal.rotation?.resumedAt ?? twin.created_at;
  report.doubles = await doublesOf(deps.api, options.id, twin.id, resumedAt ? Date.parse(resumedAt) : 0);
  const settled = await keepTrying(
    ctx.clock,
    options.waitMs,
    () => resendDue(deps, options.id),
    ({ left }) => left.length === 0,
    ({ left }, leftMs) => deps.stderr.write(`whsvc: not delivered yet: ${leftWords(left)}; trying again for up to ${elapsed(leftMs)}\n`),
  );
  report.old_deliveries_resent = settled.resent;
  if (settled.left.length > 0) {
    report.steps.delete = 'failed';
    throw new CliError(
      `${settled.left.length === 1 ? 'a delivery' : `${settled.left.length} deliveries`} signed with the old secret did not get through: ${leftWords(settled.left)}; ${sanitize(options.id)} is kept, paused, so that ${settled.left.length === 1 ? 'it is' : 'they are'} not lost`,
      ExitCode.failure,
      `the receiver must still take the old secret: once it answers again, run the same command again (or with --wait 10m)`,
    );
  }
  await ctx.at('resent');
  journal.write({ delete: true });
  await ctx.at('delete-noted');
  await deleteGone(deps.api, options.id);
  await ctx.at('deleted');
  journal.write({ done: true });
  report.steps.delete = 'done';
  stepLine(deps, 'delete', `${sanitize(options.id)} deleted: the old secret is revoked`);
}

/** A delete that counts a webhook gone meanwhile as deleted. */
async function deleteGone(api: CommandDeps['api'], id: string): Promise<void> {
  try {
    await deleteWebhook(api, id);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
}

/**
 * --cancel, before the switch: the twin deleted, its secret's file and the journal removed; the old webhook is as it
 * was. After the switch began the twin takes deliveries, and only finishing is left.
 */
async function cancel(ctx: Rotating, rotation: Rotation | undefined): Promise<number> {
  const { deps, options, report } = ctx;
  report.cancelled = true;
  const file = options.secretFile;
  if (!rotation) {
    deps.stderr.write(`whsvc: no rotation of ${sanitize(options.id)} is under way with ${file}: nothing to cancel\n`);
    if (deps.json) printJson(deps, report);
    return ExitCode.ok;
  }
  Object.assign(report, { new_id: rotation.twin ?? null, url: rotation.url, events: rotation.events, taken_up: true });
  if (rotation.done || rotation.switched) {
    throw new CliError(
      rotation.done
        ? `the rotation of ${sanitize(options.id)} to ${sanitize(rotation.twin)} is finished: there is nothing to cancel`
        : `the switch of ${sanitize(options.id)} to ${sanitize(rotation.twin)} has begun: the twin takes deliveries, and cannot be cancelled`,
      ExitCode.failure,
      rotation.done
        ? `to move ${sanitize(rotation.twin)} to yet another secret, rotate it: whsvc webhooks rotate-secret ${shellWord(rotation.twin ?? '')} --secret-file NEW`
        : `finish it: ${sameCommand(options.id, file)}`,
    );
  }
  const twin = rotation.twin === undefined ? 'no twin' : `the paused twin ${sanitize(rotation.twin)}`;
  (deps.json ? deps.stderr : deps.stdout).write(
    `Cancel the rotation of ${sanitize(options.id)}: delete ${twin} and ${file}; ${sanitize(options.id)} stays as it is.\n`,
  );
  if (options.dryRun) {
    if (deps.json) printJson(deps, report);
    return ExitCode.ok;
  }
  if (!options.yes && !(await deps.prompter.confirm(`Cancel the rotation of ${sanitize(options.id)}?`, false)))
    throw new CliError('nothing was changed', ExitCode.failure);
  if (rotation.twin !== undefined) await deleteGone(deps.api, rotation.twin);
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new FileError(`cannot remove ${file}: ${failureReason(error)}`, false);
  }
  ctx.journal.remove();
  if (deps.json) printJson(deps, report);
  else deps.stdout.write(`Cancelled: ${twin === 'no twin' ? 'nothing was made' : `${twin.replace('the paused twin', 'twin')} deleted`}, ${file} removed.\n`);
  return ExitCode.ok;
}
