import { ApiError, mayHaveActed } from '../../../api/errors.js';
import { CliError, ExitCode } from '../../../cli/errors.js';

// A create whose answer did not reach whsvc may have made the webhook, and its signing secret, given only in that
// answer, is lost: how `webhooks create` and `webhooks apply` say so, and what to do. `again` is how the command
// makes the webhook anew ("create it again", "apply again").

/** How to find the webhook a create may have made, and make it anew with a secret. */
function mayExistHint(url: string, again: string): string {
  return `check with \`whsvc webhooks list\`: if a webhook for ${url} is there, delete it (\`whsvc webhooks delete <id> --yes\`) and ${again}: it is made anew, with its secret`;
}

/** The line Ctrl-C pressed twice during a create leaves. */
export function interruptedCreate(url: string, again: string): string {
  return `whsvc: interrupted while creating the webhook for ${url}: it may exist without its secret; ${mayExistHint(url, again)}\n`;
}

/**
 * A create's failure as it is told: one that may have made the webhook (no answer after the request went out, a 5xx,
 * a 429, a 2xx whose answer could not be read: mayHaveActed) says so, keeping an answer's status for the exit code and
 * --json; any other is left as it is. `hint` says how to find it and make it anew, where the command has its own way.
 */
export function createFailure(error: unknown, url: string, again: string, hint = mayExistHint(url, again)): unknown {
  if (!mayHaveActed(error)) return error;
  const line = `the webhook for ${url} may exist, without its signing secret`;
  if (error instanceof ApiError)
    return new ApiError(
      error.status,
      error.code,
      `the create request was answered ${error.status < 300 ? 'with an answer whsvc could not read' : 'with an error'} (${error.message}): ${line}`,
      undefined,
      hint,
    );
  return new CliError(`the create request got no answer (${(error as Error).message}): ${line}`, ExitCode.failure, hint);
}
