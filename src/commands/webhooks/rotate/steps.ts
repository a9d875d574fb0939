import { getWebhook, updateWebhook } from '../../../api/endpoints.js';
import type { Webhook } from '../../../api/shapes.js';
import { CliError, ExitCode } from '../../../cli/errors.js';
import { printJson } from '../../../cli/output.js';
import { removeOwnFile, ReservedFile } from '../../../files/user-file.js';
import { sanitize } from '../../../render/text.js';
import { elapsed } from '../../../render/words.js';
import { serviceAddress } from '../shared/account-lock.js';
import { createForSecret } from '../shared/create-webhook.js';
import { sameEvents } from '../shared/events.js';
import { createFailure } from '../shared/may-exist.js';
import { secretFileText, undoCreate } from '../shared/secret-file.js';
import { proven, settledProof, tryProof } from './proof.js';
import { clearLostTwin } from './lost-twin.js';
import { retireOld } from './retire.js';
import { deleteGone, isThere, type Rotating, secretFileTaken, unlikeAsked } from './rotating.js';
import { keepTrying } from './tries.js';
import { answersText, doublesText, endText, type PlanFacts, proofReport, provenText, sameCommand, stepLine, unprovenText } from './words.js';
import { laidOut } from '../../../render/wrap.js';

// The four steps of rotate-secret, each journaled before it changes the account: the paused twin, the proof, the
// switch, the old webhook retired.

/** What a run stopped part-way says: the journal has what is needed to go on. */
function stoppedPartWay(ctx: Rotating): string {
  const command = sameCommand(ctx.options.id, ctx.options.secretFile);
  return laidOut(ctx.deps.stderr, `whsvc: the rotation stopped part-way: ${command} finishes it\n`, [command]);
}

/** The steps not done yet, in order; with --json, the document of what was done, whatever ends the run. */
export async function carryOut(ctx: Rotating, facts: PlanFacts): Promise<number> {
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
    deps.stdout.write(laidOut(deps.stdout, doublesText(report.doubles, report) + endText(report), [report.signing_secret_file]));
  }
  return ExitCode.ok;
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
    const at = new Date(deps.serviceNow()).toISOString();
    if (!journal.rotation) journal.start({ service: serviceAddress(deps.api), old: old.id, url: old.url, events: old.events, at });
    journal.write({ create: { others: facts.others.map((webhook) => webhook.id), events: old.events, at } });
    await ctx.at('create-noted');
    const again = `${sameCommand(options.id, options.secretFile)} again`;
    const { signing_secret: secret, ...twin } = await createForSecret(
      deps,
      { url: old.url, events: old.events, active: false },
      {
        interrupted: `whsvc: interrupted while creating the twin of ${sanitize(old.id)}: it may exist without its secret; ${again} deletes it and makes the twin anew\n`,
        failure: (error) => createFailure(error, old.url, again, `${again}: it deletes the webhook that create may have made, and makes the twin anew`),
        again,
      },
    );
    await ctx.at('twin-made');
    journal.write({ twin: twin.id });
    await ctx.at('twin-noted');
    await refuseUnlike(ctx, twin, old, 'made');
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
 * Step 2: the proof (proof.ts), or nothing switches: the twin and its secret's file stay, and the error says what each
 * test delivery came to and what to do. --wait tries again until it is proven, or the wait is over.
 */
async function prove(ctx: Rotating, twin: Webhook): Promise<void> {
  const { deps, options, report } = ctx;
  let said = '';
  const proof = await keepTrying(
    ctx.clock,
    options.waitMs,
    () => tryProof(deps, ctx.journal, { twin: twin.id, old: options.id }, twin.events[0] ?? 'invoice.paid', ctx.clock),
    settledProof,
    (tried, leftMs) => {
      const answers = answersText(tried);
      if (answers !== said)
        deps.stderr.write(
          laidOut(deps.stderr, `whsvc: no proof yet that the receiver takes the new secret (${answers}): trying again for up to ${elapsed(leftMs)}\n`),
        );
      said = answers;
    },
  );
  report.proof = proofReport(proof);
  if (!proven(proof)) {
    report.steps.proof = 'failed';
    const cancel = `${sameCommand(options.id, options.secretFile, ' --cancel --yes')} deletes the twin and the file`;
    throw new CliError(
      `${unprovenText(proof, twin.url)}; nothing was switched, and ${sanitize(options.id)} delivers as before`,
      ExitCode.failure,
      proof.verdict === 'not_sent'
        ? `without that proof rotate-secret switches nothing: ${cancel}`
        : `give the receiver the secret in ${options.secretFile}, keeping the old one (it verifies with either until the rotation is done), then run ${sameCommand(options.id, options.secretFile)} again; --wait 10m keeps trying, --cancel deletes the twin and the file`,
    );
  }
  report.steps.proof = 'done';
  stepLine(deps, 'proof', provenText(proof));
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
      await refuseUnlike(ctx, now, old, 'updated');
      deps.stderr.write(
        laidOut(deps.stderr, `whsvc: the events of ${sanitize(old.id)} changed since the twin was made: ${sanitize(twin.id)} takes them too\n`),
      );
    }
    journal.write({ switch: true });
    await ctx.at('switch-noted');
  }
  if (!now.active) {
    now = await updateWebhook(deps.api, twin.id, { active: true });
    await refuseUnlike(ctx, now, old, 'resumed');
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
 * The twin as the service answered a create or an update of it, compared with the old webhook: at another URL (a
 * create answered `https://evil.example/…`), or with other events, it is deleted before the old webhook is paused,
 * and nothing switches: the rotation is over as --cancel ends it, its secret's file (written once it was made) and
 * the journal removed.
 */
async function refuseUnlike(ctx: Rotating, twin: Webhook, old: Webhook, answered: 'made' | 'updated' | 'resumed'): Promise<void> {
  const unlike = unlikeAsked(twin, { url: old.url, events: old.events });
  if (unlike === undefined) return;
  const { deps, options } = ctx;
  await deleteGone(deps.api, twin.id);
  if (answered !== 'made') removeOwnFile(options.secretFile, '--secret-file');
  ctx.journal.remove();
  throw new CliError(
    `the service ${answered} the twin ${sanitize(twin.id)} unlike ${sanitize(old.id)}: ${unlike}; the twin is deleted, nothing was switched, and ${sanitize(old.id)} delivers as before`,
    ExitCode.failure,
    `check the address of the service (${sanitize(deps.api.baseUrl)}): it does not keep the URL and events it is given`,
  );
}
