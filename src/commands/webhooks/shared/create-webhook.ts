import { createWebhook, type NewWebhook } from '../../../api/endpoints.js';
import type { Webhook } from '../../../api/shapes.js';
import { laidOut } from '../../../render/wrap.js';
import type { CommandDeps } from '../../../cli/context.js';
import { CliError, ExitCode } from '../../../cli/errors.js';
import { sanitize, shellWord } from '../../../render/text.js';

/** How a command tells a create whose secret may be lost: the line Ctrl-C leaves, the error of a lost answer, and how to make it anew. */
export interface LostCreateWords {
  /** The line written when Ctrl-C ends the run while the create is under way. */
  interrupted: string;
  /** The error for a create that failed: one that may have made the webhook says so (createFailure). */
  failure: (error: unknown) => unknown;
  /** After "delete it": how the webhook is made anew, with its secret. */
  again: string;
}

/**
 * POST /v1/webhooks for a webhook whose signing secret the caller keeps (a file): the secret, given only in this
 * answer, must be in it, else the webhook is named with how to delete it and make it anew. Ctrl-C while it is under
 * way, or a failure after which the webhook may exist, is told in `words`.
 */
export async function createForSecret(
  deps: Pick<CommandDeps, 'api' | 'interrupts' | 'stderr'>,
  wanted: NewWebhook,
  words: LostCreateWords,
): Promise<Webhook & { signing_secret: string }> {
  const unregister = deps.interrupts.onInterrupt(() => deps.stderr.write(laidOut(deps.stderr, words.interrupted)));
  let webhook: Webhook;
  try {
    webhook = await createWebhook(deps.api, wanted);
  } catch (error) {
    throw words.failure(error);
  } finally {
    unregister();
  }
  if (typeof webhook.signing_secret !== 'string' || webhook.signing_secret === '') {
    throw new CliError(
      `webhook ${sanitize(webhook.id)} was created, but the service's answer holds no signing_secret`,
      ExitCode.failure,
      `delete it (\`whsvc webhooks delete ${shellWord(webhook.id)} --yes\`) and ${words.again}`,
    );
  }
  return { ...webhook, signing_secret: webhook.signing_secret };
}
