import type { Webhook } from '../../../api/shapes.js';
import { CliError, ExitCode } from '../../../cli/errors.js';
import { counted, sanitize } from '../../../render/text.js';
import { elapsed } from '../../../render/words.js';
import { doublesOf, dueSince, type Resent, resendDue } from './old-deliveries.js';
import { deleteGone, oldLog, type Rotating, testDeliveries } from './rotating.js';
import { keepTrying } from './tries.js';
import { leftVerb, leftWords, sameCommand, stepLine } from './words.js';
import { laidOut } from '../../../render/wrap.js';

// Step 4 of rotate-secret: the old webhook retired once nothing signed with its secret is due, or, told to
// (--abandon-due), with what did not get through dropped and listed.

/** Old deliveries not delivered (refused, or under way still): the old webhook kept, and the way out said whichever way the receiver went. */
function notThrough(ctx: Rotating, left: Resent[]): CliError {
  const { options } = ctx;
  const old = sanitize(options.id);
  const command = sameCommand(options.id, options.secretFile);
  const them = left.length === 1 ? 'it' : 'them';
  return new CliError(
    `${left.length === 1 ? 'a delivery' : `${left.length} deliveries`} signed with the old secret ${leftVerb(left)}: ${leftWords(left)}; ${old} is kept, paused, so that ${them} ${left.length === 1 ? 'is' : 'are'} not lost`,
    ExitCode.failure,
    `once the receiver takes the old secret again, ${command} finishes (--wait 10m keeps trying); if it no longer can (it dropped the old secret), ${command} --abandon-due --yes deletes ${old} and drops ${them}`,
  );
}

/**
 * Step 4: the doubles listed; the old webhook's deliveries still due sent now, while the receiver takes the old secret
 * (paused, it would hold them; deleted, drop them), until none is; then the old webhook deleted, its secret revoked.
 */
export async function retireOld(ctx: Rotating, twin: Webhook): Promise<void> {
  const { deps, options, journal, report } = ctx;
  const resumedAt = journal.rotation?.resumedAt ?? twin.created_at;
  report.doubles = await doublesOf(deps.api, { old: options.id, twin: twin.id }, resumedAt ? Date.parse(resumedAt) : 0, testDeliveries(journal));
  const log = oldLog(ctx, dueSince([twin.created_at, journal.rotation?.created?.at, journal.rotation?.at], deps.serviceNow()));
  const settled = await keepTrying(
    ctx.clock,
    options.waitMs,
    () => resendDue(deps, log, ctx.clock),
    ({ left }) => left.length === 0,
    ({ left }, leftMs) => deps.stderr.write(laidOut(deps.stderr, `whsvc: not delivered yet: ${leftWords(left)}; trying again for up to ${elapsed(leftMs)}\n`)),
  );
  report.old_deliveries_resent = settled.resent;
  if (settled.left.length > 0 && !options.abandonDue) {
    report.steps.delete = 'failed';
    throw notThrough(ctx, settled.left);
  }
  if (settled.left.length > 0) {
    report.old_deliveries_dropped = settled.left;
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `whsvc: --abandon-due: ${counted(settled.left.length, 'delivery', 'deliveries')} signed with the old secret ${leftVerb(settled.left)}, and ${settled.left.length === 1 ? 'goes' : 'go'} with ${sanitize(options.id)}: ${leftWords(settled.left)}\n`,
      ),
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
