import type { Attempt } from '../../../api/shapes.js';
import { askServiceNow } from '../../../api/endpoints.js';
import { ApiError } from '../../../api/errors.js';
import { attemptsOf } from '../../../api/log.js';
import type { CommandDeps } from '../../../cli/context.js';
import { usageError } from '../../../cli/errors.js';
import { boundAt, type TimeBound } from '../../../cli/parse.js';
import type { DeliveryStatus } from '../../../protocol/status.js';
import { sanitize } from '../../../render/text.js';

// The delivery log read across webhooks, as `deliveries recover` and `deliveries list` (without a webhook id) read it:
// the webhooks named, or every one (api/log.ts webhooksOf); each one's log newest first, down to --since; the window
// --since/--until counted on the service's clock.

/** A window given on the command line: --since and --until, each a duration back from now or a time. */
export interface Window {
  since?: TimeBound | undefined;
  until?: TimeBound | undefined;
}

const emptyWindow = () => usageError('--since is later than --until: nothing can be in between');

/**
 * Refuses a window that is empty whatever the time: two durations, or two times, are ordered here, before any
 * request; a duration and a time only against the service's now (windowAt).
 */
export function checkWindow({ since, until }: Window): void {
  if (since && until && 'ago' in since === 'ago' in until && boundAt(since, 0) > boundAt(until, 0)) throw emptyWindow();
}

/**
 * The window in epoch ms, and the now it was counted from. A window counted back from now is counted on the
 * service's clock (asked, when no answer has told it yet), as the times in its log are.
 */
export async function windowAt(
  deps: Pick<CommandDeps, 'api' | 'serviceNow'>,
  { since, until }: Window,
): Promise<{ since: number | undefined; until: number | undefined; now: number }> {
  const countsBack = [since, until].some((bound) => bound !== undefined && 'ago' in bound);
  const now = countsBack ? await askServiceNow(deps.api) : deps.serviceNow();
  const window = { since: since && boundAt(since, now), until: until && boundAt(until, now), now };
  if (window.since !== undefined && window.until !== undefined && window.since > window.until) throw emptyWindow();
  return window;
}

/**
 * One webhook's attempts, newest first, down to `since`, as a walk across webhooks reads them: a webhook deleted
 * while the walk went through the others took its deliveries with it, and its log ends with a line on stderr; one
 * the user named (`named`) is its 404.
 */
export async function* logAcross(
  deps: Pick<CommandDeps, 'api' | 'stderr'>,
  webhookId: string,
  named: boolean,
  options: { status?: DeliveryStatus | undefined; since?: number | undefined; pageSize?: number | undefined } = {},
): AsyncGenerator<Attempt> {
  try {
    yield* attemptsOf(deps.api, webhookId, options);
  } catch (error) {
    if (named || !(error instanceof ApiError) || error.status !== 404) throw error;
    deps.stderr.write(`whsvc: webhook ${sanitize(webhookId)} was deleted while its log was read: skipped\n`);
  }
}
