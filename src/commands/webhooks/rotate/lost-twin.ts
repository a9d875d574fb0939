import { deleteWebhook } from '../../../api/endpoints.js';
import type { Webhook } from '../../../api/shapes.js';
import { CliError, ExitCode } from '../../../cli/errors.js';
import { removeOwnFile } from '../../../files/user-file.js';
import { sanitize, shellWord } from '../../../render/text.js';
import type { CreateSent, Rotation } from './journal.js';
import { deleteGone, type Rotating, unlikeAsked } from './rotating.js';
import { type PlanFacts, sameCommand } from './words.js';
import { laidOut } from '../../../render/wrap.js';

// What an earlier run left of a twin, checked against the account before anything is deleted, and cleared before a new
// twin is made. The journal says which webhook is the twin, but a journal can be edited or planted: a webhook it names
// is taken (or deleted) only when the account shows it is what the journaled create made. The twin's secret is given
// only in the create's answer: a twin whose answer was lost (Ctrl-C during the create, a time-out, a 5xx) or whose
// secret never reached the file is of no use, and is deleted. One whose answer was lost is known by evidence alone.

/**
 * How far before the create's journaled time a webhook it made may say it was made: whsvc reckons the service's time
 * from its answers' `Date` headers, whole seconds, and takes an offset under two seconds for none.
 */
const CLOCKS_SLACK_MS = 5_000;

/** Made before `since` (epoch ms), by its created_at; a webhook that does not say when it was made is not. */
const madeBefore = (webhook: Webhook, since: number): boolean => Date.parse(webhook.created_at ?? '') < since;

/** What a webhook the create made must show: see notMadeBy. */
interface Expected {
  /** The URL it was made at; undefined after the switch, when the twin follows the old webhook's URL (survey checks it). */
  url: string | undefined;
  /** Paused: before the switch. */
  paused: boolean;
  /** The events the create asked for: before the switch, which gives the twin the old webhook's events as they are then. */
  events: boolean;
  /** When the old webhook was made, when it is known: a twin is made after it. */
  oldMadeAt: string | undefined;
}

/**
 * Why `webhook` cannot be what the create `sent` made; undefined when it can be: paused, at the URL, with the events
 * asked for (each as `expected` says), made since the create was sent and since the old webhook was, and not among the
 * webhooks at the URL before it was sent.
 */
function notMadeBy(sent: CreateSent, webhook: Webhook, expected: Expected): string | undefined {
  if (sent.others.includes(webhook.id)) return 'it was at the URL before the twin was created';
  if (expected.paused && webhook.active) return 'it is active, where a twin stays paused until the switch';
  const unlike = unlikeAsked(webhook, { url: expected.url, events: expected.events ? sent.events : undefined });
  if (unlike) return unlike;
  const since = sent.at === undefined ? Number.NEGATIVE_INFINITY : Date.parse(sent.at) - CLOCKS_SLACK_MS;
  if (madeBefore(webhook, since) || madeBefore(webhook, Date.parse(expected.oldMadeAt ?? ''))) {
    return `it was made (${sanitize(webhook.created_at)}) before the rotation began`;
  }
  return undefined;
}

/**
 * The webhooks at the URL that the lost create may have made (notMadeBy). Those the user kept after being asked to
 * delete one of them are not.
 */
export function lostTwins(sent: NonNullable<Rotation['createOpen']>, atUrl: Webhook[], old: Webhook): Webhook[] {
  const expected = { url: old.url, paused: true, events: true, oldMadeAt: old.created_at };
  const made = atUrl.filter((webhook) => notMadeBy(sent, webhook, expected) === undefined);
  const named = sent.named ?? [];
  const deletedOfNamed = named.some((id) => !made.some((webhook) => webhook.id === id));
  return deletedOfNamed ? made.filter((webhook) => !named.includes(webhook.id)) : made;
}

/**
 * The journal's twin, refused (nothing changed) unless the account shows it is what the journaled create made: else a
 * journal edited or planted (another webhook at the URL named as the twin) would have that webhook deleted, or resumed
 * in the old one's place. After the switch the twin is active, with the old webhook's events and URL as they were.
 * `old`: the old webhook, when it is there still.
 */
export function checkTwin(rotation: Rotation, twin: Webhook, old: Webhook | undefined, journal: string): void {
  const switched = rotation.switched;
  const expected = { url: switched ? undefined : rotation.url, paused: !switched, events: !switched, oldMadeAt: old?.created_at };
  const why = rotation.created === undefined ? 'the journal has no create before it' : notMadeBy(rotation.created, twin, expected);
  if (why === undefined) return;
  throw new CliError(
    `the rotate-secret journal ${journal} names ${sanitize(twin.id)} as the twin of ${sanitize(rotation.old)}, but it is not the webhook rotate-secret made: ${why}; nothing was changed`,
    ExitCode.failure,
    `${sanitize(twin.id)} is left as it is. If you did not edit that journal, someone else wrote it: move it away, and check the --secret-file beside it, before you rotate ${sanitize(rotation.old)} again`,
  );
}

/**
 * A create whose answer was lost: the webhook it made deleted (its secret is lost with the answer); two or more that
 * could be it named, each with the command that deletes it, and journaled, so that the one the user keeps is left alone.
 */
async function clearLostCreate(ctx: Rotating, lost: Webhook[], url: string): Promise<void> {
  const { deps, options } = ctx;
  if (lost.length === 1) {
    await deleteGone(deps.api, lost[0]!.id);
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `whsvc: the create of the twin an earlier run sent got no answer, and made ${sanitize(lost[0]!.id)} (paused, at ${sanitize(url)} with the same events, made since): its secret never reached this machine; deleted, and the twin made anew\n`,
      ),
    );
  }
  if (lost.length < 2) return;
  ctx.journal.write({ lost: lost.map((webhook) => webhook.id) });
  const deletes = lost.map((webhook) => `whsvc webhooks delete ${shellWord(webhook.id)} --yes`);
  throw new CliError(
    `the create of the twin an earlier run sent got no answer, and ${lost.length} webhooks could be what it made, without its secret: ${lost.map((webhook) => sanitize(webhook.id)).join(', ')} (each paused, at ${sanitize(url)} with the same events, made since)`,
    ExitCode.failure,
    `delete the one that run made: ${deletes.join(', or ')}; then ${sameCommand(options.id, options.secretFile)} (the others are left as they are)`,
  );
}

/** Before a twin is made: what an earlier run left of one (survey's LeftOver, checked there) cleared. */
export async function clearLostTwin(ctx: Rotating, facts: PlanFacts): Promise<void> {
  const { deps, options } = ctx;
  const left = facts.leftOver;
  await clearLostCreate(ctx, left.lost, facts.old.url);
  if (left.secretless) {
    await deleteWebhook(deps.api, left.secretless.id);
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `whsvc: the twin ${sanitize(left.secretless.id)} an earlier run made has no secret in ${options.secretFile} (stopped before it was written): deleted, and made anew\n`,
      ),
    );
  }
  if (left.fileOfGone !== undefined) {
    removeOwnFile(options.secretFile, '--secret-file');
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `whsvc: the twin ${sanitize(left.fileOfGone)} an earlier run made is gone: its secret's file ${options.secretFile} is removed, and the twin made anew\n`,
      ),
    );
  }
}
