import { CliError, ExitCode } from '../../../cli/errors.js';
import { printJson } from '../../../cli/output.js';
import { removeOwnFile } from '../../../files/user-file.js';
import { sanitize, shellWord } from '../../../render/text.js';
import type { Rotation } from './journal.js';
import { checkTwin } from './lost-twin.js';
import { deleteGone, type Rotating, webhookOrGone } from './rotating.js';
import { sameCommand } from './words.js';
import { laidOut } from '../../../render/wrap.js';

/**
 * --cancel, before the switch: the twin deleted, its secret's file and the journal removed; the old webhook is as it
 * was. After the switch began the twin takes deliveries, and only finishing is left.
 */
export async function cancel(ctx: Rotating, rotation: Rotation | undefined): Promise<number> {
  const { deps, options, report } = ctx;
  report.cancelled = true;
  const file = options.secretFile;
  if (!rotation) {
    deps.stderr.write(laidOut(deps.stderr, `whsvc: no rotation of ${sanitize(options.id)} is under way with ${file}: nothing to cancel\n`));
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
  // The twin the journal names is deleted only when the account shows it is the one rotate-secret made.
  const made = rotation.twin === undefined ? undefined : await webhookOrGone(deps.api, rotation.twin);
  if (made) checkTwin(rotation, made, await webhookOrGone(deps.api, options.id), ctx.journal.path);
  const twin = rotation.twin === undefined ? 'no twin' : `the paused twin ${sanitize(rotation.twin)}`;
  const planTo = deps.json ? deps.stderr : deps.stdout;
  planTo.write(laidOut(planTo, `Cancel the rotation of ${sanitize(options.id)}: delete ${twin} and ${file}; ${sanitize(options.id)} stays as it is.\n`));
  if (options.dryRun) {
    if (deps.json) printJson(deps, report);
    return ExitCode.ok;
  }
  if (!options.yes && !(await deps.prompter.confirm(`Cancel the rotation of ${sanitize(options.id)}?`, false)))
    throw new CliError('nothing was changed', ExitCode.failure);
  if (rotation.twin !== undefined) await deleteGone(deps.api, rotation.twin);
  removeOwnFile(file, '--secret-file');
  ctx.journal.remove();
  if (deps.json) printJson(deps, report);
  else
    deps.stdout.write(
      laidOut(deps.stdout, `Cancelled: ${twin === 'no twin' ? 'nothing was made' : `${twin.replace('the paused twin', 'twin')} deleted`}, ${file} removed.\n`),
    );
  return ExitCode.ok;
}
