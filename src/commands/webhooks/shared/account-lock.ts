import { type CommandDeps, normalAddress } from '../../../cli/context.js';

/**
 * Runs `work` while no other whsvc on this machine changes the webhooks of the same service by a plan made from the
 * account as it is (`webhooks apply`, `webhooks rotate-secret`): the second one plans from what the first made (not a
 * second webhook for one URL, nor a twin with events an apply just changed), and their journals stay whole.
 */
export function takingTurns<T>(deps: Pick<CommandDeps, 'api' | 'config'>, work: () => Promise<T>): Promise<T> {
  const service = serviceAddress(deps.api);
  return deps.config.exclusive(`apply\n${service}`, `the webhooks of ${service}`, work);
}

/**
 * The service's base address as one spelling (normalAddress: `HTTP://127.0.0.1:4010/` is `http://127.0.0.1:4010`):
 * what the locks of a change to its webhooks (this one, update's of a webhook's events) and rotate's journal are keyed on.
 */
export const serviceAddress = (api: CommandDeps['api']): string => normalAddress(api.baseUrl);
