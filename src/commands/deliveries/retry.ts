import { retryDelivery } from '../../api/endpoints.js';
import { Argument, Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { collect, resourceId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/context.js';
import { ResendReport, concurrencyOption, resendAll, targetsFromIds, verboseOption } from './shared/resend.js';
import { reportSentAttempt } from './shared/view.js';

export const command = (runF = run) =>
  new Command('retry')
    .description('re-send failed or pending attempts now (several ids: side by side, with a summary)')
    .addArgument(new Argument('<delivery-id...>', 'delivery ids').argParser(collect(resourceId('delivery'))))
    .addOption(concurrencyOption())
    .addOption(verboseOption())
    .addHelpText('after', examples('whsvc deliveries retry dlv_…', 'whsvc deliveries retry dlv_A dlv_B dlv_C --json'))
    .action(apiAction((deps, ids, o) => runF({ ids, concurrency: o.concurrency, verbose: Boolean(o.verbose), stop: () => deps.interrupts.graceful() }, deps)));

export interface RetryOptions {
  ids: string[];
  concurrency: number;
  /** Several ids: a line on stderr for each that did not get through. */
  verbose?: boolean | undefined;
  /** Ctrl-C stops taking ids instead of quitting: asked for only when several ids are re-sent. */
  stop?: (() => AbortSignal) | undefined;
}

/** One id: the new attempt, as before. Several: re-sent side by side, with the report `deliveries recover` gives. */
export async function run(options: RetryOptions, deps: CommandDeps): Promise<number> {
  const ids = [...new Set(options.ids)];
  if (ids.length === 1) {
    const attempt = await retryDelivery(deps.api, ids[0]!);
    return reportSentAttempt(deps, attempt, 'retry');
  }
  const stop = options.stop?.();
  const report = new ResendReport(deps, ids.length, options.verbose);
  await resendAll(deps, targetsFromIds(ids), { concurrency: options.concurrency, stop, report });
  return report.finish(stop?.aborted === true);
}
