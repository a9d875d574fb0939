import type { ApiClient } from '../../../api/client.js';
import type { Webhook } from '../../../api/shapes.js';
import { deleteWebhook } from '../../../api/endpoints.js';
import { CliError, ExitCode } from '../../../cli/errors.js';
import { failureReason, isNoSpace } from '../../../files/user-file.js';
import { sanitize, shellWord } from '../../../render/text.js';

/** What a secret file holds: the secret alone, no newline after it: the file's bytes are the key, as an app reads it (docs/receivers.md). */
export const secretFileText = (secret: string): string => secret;

/**
 * The secret could not be written after the webhook was made (a full disk):
 * the webhook is deleted again (lostSecret), and the one error line says why.
 * The secret itself is never printed. For `webhooks create --secret-file` and
 * `webhooks apply --secret-dir`.
 */
export async function undoCreate(api: ApiClient, id: string, path: string, error: unknown, discard: () => void, again: string): Promise<CliError> {
  try {
    discard();
  } catch {
    // the file may be gone or unwritable: the delete below matters more
  }
  const fix = `${isNoSpace(error) ? 'free some space or choose another path' : 'choose a path to a file you can write'}, then run the command again`;
  return lostSecret(api, id, `cannot write the signing secret to ${path}: ${failureReason(error)}`, fix, again);
}

/** --json's error code for a webhook made whose secret reached nobody (lostSecret), deleted again or not. */
const SECRET_NOT_KEPT = 'secret_not_kept';

/**
 * A webhook made whose secret reached nobody (`why`): it is deleted again, so that no webhook is left whose secret is
 * lost, and the error says so, with `fix`; if the delete fails too, it names the webhook and how to delete it, then
 * `again` (how to make it anew).
 */
export async function lostSecret(api: ApiClient, id: string, why: string, fix: string, again: string): Promise<CliError> {
  const shown = sanitize(id);
  try {
    await deleteWebhook(api, id);
  } catch (deleteError) {
    return new CliError(
      `${why}; webhook ${shown} was created and could not be deleted again (${sanitize((deleteError as Error).message)})`,
      ExitCode.failure,
      `its secret is lost: delete it with \`whsvc webhooks delete ${shellWord(id)} --yes\`, then ${again}`,
      SECRET_NOT_KEPT,
    );
  }
  return new CliError(`${why}; webhook ${shown} was deleted again, so nothing was created`, ExitCode.failure, fix, SECRET_NOT_KEPT);
}

/**
 * A created webhook as --json shows it once its secret went to the file `path`: `signing_secret_file` in the place of
 * `signing_secret`, every other field as the service answered, so that no log that keeps the output holds the secret.
 */
export const withSecretFile = (webhook: Webhook, path: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(webhook).map(([key, value]) => (key === 'signing_secret' ? ['signing_secret_file', path] : [key, value])));
