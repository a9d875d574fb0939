import { deleteWebhook } from '../../../api/endpoints.js';
import { removeOwnFile } from '../../../files/user-file.js';
import type { Webhook } from '../../../api/shapes.js';
import { CliError, ExitCode } from '../../../cli/errors.js';
import { sanitize, shellWord } from '../../../render/text.js';
import { sameEvents } from '../shared/events.js';
import type { Rotation } from './journal.js';
import { deleteGone, isThere, type Rotating, webhookOrGone } from './rotating.js';
import { type PlanFacts, sameCommand } from './words.js';

// What an earlier run left of a twin that cannot be taken up, cleared before a new one is made. The twin's secret is
// given only in the create's answer: a twin whose answer was lost (Ctrl-C during the create, a time-out, a 5xx) or
// whose secret never reached the file is of no use, and is deleted. One whose answer was lost is known by evidence.

/**
 * How far before the create's journaled time a webhook it made may say it was made: whsvc reckons the service's time
 * from its answers' `Date` headers, whole seconds, and takes an offset under two seconds for none.
 */
const CLOCKS_SLACK_MS = 5_000;

/**
 * The webhooks at the URL that the lost create may have made: paused, with the events it asked for, made since it was
 * sent, and not among those there before it. Those the user kept after being asked to delete one of them are not.
 */
export function lostTwins(sent: NonNullable<Rotation['createOpen']>, atUrl: Webhook[]): Webhook[] {
  const since = sent.at === undefined ? Number.NEGATIVE_INFINITY : Date.parse(sent.at) - CLOCKS_SLACK_MS;
  const made = atUrl.filter(
    (webhook) =>
      !sent.others.includes(webhook.id) &&
      !webhook.active &&
      (sent.events === undefined || sameEvents(webhook.events, sent.events)) &&
      !(Date.parse(webhook.created_at ?? '') < since),
  );
  const named = sent.named ?? [];
  const deletedOfNamed = named.some((id) => !made.some((webhook) => webhook.id === id));
  return deletedOfNamed ? made.filter((webhook) => !named.includes(webhook.id)) : made;
}

/**
 * A create whose answer was lost: the webhook it made deleted (its secret is lost with the answer); two or more that
 * could be it named, each with the command that deletes it, and journaled, so that the one the user keeps is left alone.
 */
async function clearLostCreate(ctx: Rotating, sent: NonNullable<Rotation['createOpen']>, facts: PlanFacts): Promise<void> {
  const { deps, options } = ctx;
  const lost = lostTwins(sent, facts.others);
  const url = sanitize(facts.old.url);
  if (lost.length === 1) {
    await deleteGone(deps.api, lost[0]!.id);
    deps.stderr.write(
      `whsvc: the create of the twin an earlier run sent got no answer, and made ${sanitize(lost[0]!.id)} (paused, at ${url} with the same events, made since): its secret never reached this machine; deleted, and the twin made anew\n`,
    );
  }
  if (lost.length < 2) return;
  ctx.journal.write({ lost: lost.map((webhook) => webhook.id) });
  const deletes = lost.map((webhook) => `whsvc webhooks delete ${shellWord(webhook.id)} --yes`);
  throw new CliError(
    `the create of the twin an earlier run sent got no answer, and ${lost.length} webhooks could be what it made, without its secret: ${lost.map((webhook) => sanitize(webhook.id)).join(', ')} (each paused, at ${url} with the same events, made since)`,
    ExitCode.failure,
    `delete the one that run made: ${deletes.join(', or ')}; then ${sameCommand(options.id, options.secretFile)} (the others are left as they are)`,
  );
}

/**
 * Before a twin is made: what an earlier run left of one cleared. A lost create's webhook (clearLostCreate); a twin
 * whose secret never reached the file (stopped in between) deleted; a file whose twin is gone removed.
 */
export async function clearLostTwin(ctx: Rotating, facts: PlanFacts): Promise<void> {
  const { deps, options } = ctx;
  const rotation = ctx.journal.rotation;
  if (rotation?.createOpen) await clearLostCreate(ctx, rotation.createOpen, facts);
  if (rotation?.twin === undefined) return;
  const twin = await webhookOrGone(deps.api, rotation.twin);
  if (twin) {
    await deleteWebhook(deps.api, twin.id);
    deps.stderr.write(
      `whsvc: the twin ${sanitize(twin.id)} an earlier run made has no secret in ${options.secretFile} (stopped before it was written): deleted, and made anew\n`,
    );
  } else if (isThere(options.secretFile)) {
    removeOwnFile(options.secretFile, '--secret-file');
    deps.stderr.write(
      `whsvc: the twin ${sanitize(rotation.twin)} an earlier run made is gone: its secret's file ${options.secretFile} is removed, and the twin made anew\n`,
    );
  }
}
