import { getWebhook } from '../../../api/endpoints.js';
import { allWebhooks } from '../../../api/log.js';
import type { Webhook } from '../../../api/shapes.js';
import { type CommandDeps, sameAddress } from '../../../cli/context.js';
import { CliError, ExitCode, usageError } from '../../../cli/errors.js';
import { printJson } from '../../../cli/output.js';
import { sanitize, shellWord } from '../../../render/text.js';
import { urlKey } from '../shared/url.js';
import type { Rotation } from './journal.js';
import { checkTwin, lostTwins } from './lost-twin.js';
import { dueDeliveries, dueSince } from './old-deliveries.js';
import { isThere, oldLog, type RotateOptions, type Rotating, webhookOrGone } from './rotating.js';
import { deletedFirst, type LeftOver, type PlanFacts, sameCommand } from './words.js';
import { laidOut } from '../../../render/wrap.js';

// Where a rotation stands before a run changes anything: the journal's rotation of this webhook (or none), the account
// as it is, and what a finished rotation says when run again.

/**
 * The journal's rotation, when it is of this webhook at this service; undefined when there is none (or only a finished
 * one of another webhook, which a new rotation replaces). One of another still under way is refused: its twin's
 * secret is in that file.
 */
export function rotationOf(rotation: Rotation | undefined, options: RotateOptions, deps: CommandDeps): Rotation | undefined {
  if (!rotation) return undefined;
  if (rotation.old === options.id && sameAddress(rotation.service, deps.api.baseUrl)) return rotation;
  if (rotation.done) return undefined;
  throw usageError(
    `--secret-file ${options.secretFile} belongs to the rotation of ${sanitize(rotation.old)} at ${sanitize(rotation.service)}, still under way: its twin's secret is there`,
    `finish it (${sameCommand(rotation.old, options.secretFile)}, against that service), or give another --secret-file`,
  );
}

/** The same command after the rotation finished: said, nothing changed. */
export function alreadyFinished(ctx: Rotating, rotation: Rotation): number {
  const { deps, report } = ctx;
  Object.assign(report, { new_id: rotation.twin ?? null, url: rotation.url, events: rotation.events, already_finished: true, finished: true });
  report.steps = { twin: 'done', proof: 'done', switch: 'done', delete: 'done' };
  if (deps.json) printJson(deps, report);
  else
    deps.stdout.write(
      laidOut(
        deps.stdout,
        `${sanitize(rotation.old)} was rotated already: it is now ${sanitize(rotation.twin)}, whose secret is in ${ctx.options.secretFile}. Nothing to do.\n`,
      ),
    );
  return ExitCode.ok;
}

/** The old webhook gone after the switch (deleted by a run stopped before it said so, or by hand): the rotation is over. */
export function finishedMeanwhile(ctx: Rotating): number {
  if (!ctx.options.dryRun) ctx.journal.write({ done: true });
  ctx.report.taken_up = true;
  return alreadyFinished(ctx, ctx.journal.rotation!);
}

/**
 * The account as the rotation finds it, with the steps an earlier run did: the old webhook (refused when paused
 * before any switch: it has no deliveries to move), the journal's twin (checked: checkTwin), the other webhooks at the
 * URL, what an earlier run left to clear, and what of the old one is still due. Undefined when the old webhook is gone
 * after the switch.
 */
export async function survey(ctx: Rotating, rotation: Rotation | undefined): Promise<PlanFacts | undefined> {
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
  const twin = await journaledTwin(ctx, rotation, old);
  const others: Webhook[] = [];
  for await (const webhook of allWebhooks(deps.api)) {
    if (urlKey(webhook.url) === urlKey(old.url) && webhook.id !== old.id && webhook.id !== twin?.id) others.push(webhook);
  }
  const secretWritten = twin !== undefined && isThere(options.secretFile);
  report.new_id = twin?.id ?? null;
  if (rotation?.switched || secretWritten) report.steps.twin = 'done';
  if (rotation?.switched) report.steps.proof = 'done';
  if (rotation?.switched && twin?.active && !old.active) report.steps.switch = 'done';
  const leftOver: LeftOver = { lost: rotation?.createOpen ? lostTwins(rotation.createOpen, others, old) : [] };
  if (rotation?.twin !== undefined && !rotation.switched) {
    if (twin && !secretWritten) leftOver.secretless = twin;
    if (!twin && isThere(options.secretFile)) leftOver.fileOfGone = rotation.twin;
  }
  report.clear_first = {
    delete: deletedFirst(leftOver).map((webhook) => webhook.id),
    remove: leftOver.fileOfGone === undefined ? [] : [options.secretFile],
  };
  const since = dueSince([twin?.created_at, rotation?.created?.at, rotation?.at], deps.serviceNow());
  const due = (await dueDeliveries(deps.api, oldLog(ctx, since))).length;
  const facts = { old, others, due, leftOver, secretFile: options.secretFile, abandonDue: options.abandonDue };
  return { ...facts, twin: secretWritten || rotation?.switched ? twin : undefined };
}

/**
 * The twin the journal names, as the account has it (undefined when there is none, or it is gone before the switch),
 * checked to be what the journaled create made, and at the old webhook's URL.
 */
async function journaledTwin(ctx: Rotating, rotation: Rotation | undefined, old: Webhook): Promise<Webhook | undefined> {
  const { deps, options } = ctx;
  if (rotation?.twin === undefined) return undefined;
  const twin = await webhookOrGone(deps.api, rotation.twin);
  if (rotation.switched && !twin) {
    throw new CliError(
      `the twin ${sanitize(rotation.twin)} is gone, deleted after the switch began: ${sanitize(old.id)} is the webhook at ${sanitize(old.url)} again`,
      ExitCode.failure,
      `resume it if it is paused (whsvc webhooks update ${shellWord(old.id)} --active), then rotate it anew with another --secret-file`,
    );
  }
  if (!twin) return undefined;
  checkTwin(rotation, twin, old, ctx.journal.path);
  if (urlKey(twin.url) !== urlKey(old.url)) {
    throw new CliError(
      `the URL of ${sanitize(old.id)} changed since its twin ${sanitize(twin.id)} was made (${sanitize(twin.url)})`,
      ExitCode.failure,
      rotation.switched
        ? `point the twin at it: whsvc webhooks update ${shellWord(twin.id)} --url …`
        : `cancel (${sameCommand(old.id, options.secretFile, ' --cancel')}) and start again`,
    );
  }
  return twin;
}
