import { getWebhook, updateWebhook } from '../../api/endpoints.js';
import { Argument, Command, Option } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { list, resourceId, withScheme } from '../../cli/parse.js';
import { checkEventTypes } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { usageError } from '../../cli/errors.js';
import { printJson } from '../../cli/output.js';
import { checkUrl } from './shared/url.js';
import { redactUserinfo } from '../../net.js';
import { sanitize } from '../../render/text.js';
import { laidOut, terminalColumns } from '../../render/wrap.js';
import { webhookBlock } from './shared/view.js';
import { serviceAddress } from './shared/account-lock.js';

export const command = (runF = run) =>
  new Command('update')
    .description('change only what is given')
    .addArgument(new Argument('<id>', 'webhook id').argParser(resourceId('webhook')))
    .addOption(new Option('--url <url>', 'new endpoint (localhost:3000/x means http://localhost:3000/x)').argParser(withScheme))
    .addOption(new Option('--events <types>', 'replace the event list').argParser(list))
    .addOption(new Option('--add-events <types>', 'add to the current event list').argParser(list))
    .addOption(new Option('--remove-events <types>', 'remove from the current event list').argParser(list))
    .addOption(new Option('--active', 'resume deliveries').conflicts('inactive'))
    .addOption(new Option('--inactive', 'pause deliveries').conflicts('active'))
    .addHelpText('after', examples('whsvc webhooks update wh_… --add-events invoice.paid', 'whsvc webhooks update wh_… --inactive          # pause deliveries'))
    .action(
      apiAction((deps, id, o) =>
        runF(
          updateOptions({
            id,
            url: o.url,
            events: o.events,
            addEvents: o.addEvents,
            removeEvents: o.removeEvents,
            active: o.active ? true : o.inactive ? false : undefined,
          }),
          deps,
        ),
      ),
    );

export interface UpdateOptions {
  id: string;
  url?: string | undefined;
  events?: string[] | undefined;
  addEvents?: string[] | undefined;
  removeEvents?: string[] | undefined;
  active?: boolean | undefined;
}

/** The flags as given, refused when they change nothing, name two event lists at once, or a URL the service would not take. */
export function updateOptions(options: UpdateOptions): UpdateOptions {
  const { url, events, addEvents, removeEvents, active } = options;
  if (url === undefined && events === undefined && addEvents === undefined && removeEvents === undefined && active === undefined) {
    throw usageError('nothing to update: pass --url, --events, --add-events, --remove-events, --active or --inactive');
  }
  if (events !== undefined && (addEvents !== undefined || removeEvents !== undefined)) {
    throw usageError('--events replaces the whole list; it cannot be combined with --add-events or --remove-events');
  }
  const urlProblem = url === undefined ? true : checkUrl(url);
  if (urlProblem !== true) throw usageError(`--url ${JSON.stringify(redactUserinfo(url ?? ''))}: ${urlProblem}`);
  return options;
}

/** Changes what `options` gives (updateOptions has checked them). */
export async function run(options: UpdateOptions, deps: CommandDeps): Promise<number> {
  const { id, url, events, addEvents, removeEvents, active } = options;
  for (const [flag, types] of [
    ['--events', events],
    ['--add-events', addEvents],
    ['--remove-events', removeEvents],
  ] as const) {
    if (types && types.length > 0) await checkEventTypes(deps, types, flag);
  }
  const send = async () => {
    const newEvents = addEvents !== undefined || removeEvents !== undefined ? await mergedEvents(options, deps) : events;
    const body = {
      ...(url === undefined ? {} : { url }),
      ...(newEvents === undefined ? {} : { events: newEvents }),
      ...(active === undefined ? {} : { active }),
    };
    return updateWebhook(deps.api, id, body);
  };
  // A change of the events, from the current list read or not, takes turns with the others of this machine.
  const updated =
    events !== undefined || addEvents !== undefined || removeEvents !== undefined
      ? await deps.config.exclusive(`${serviceAddress(deps.api)}\n${id}`, `webhook ${sanitize(id)}`, send)
      : await send();
  if (deps.json) printJson(deps, updated);
  else deps.stdout.write(webhookBlock(updated, deps.colors, deps.serviceNow(), [], terminalColumns(deps.stdout)));
  return 0;
}

/** The webhook's current events, with --add-events added and --remove-events removed; what changes nothing is said. */
async function mergedEvents({ id, addEvents = [], removeEvents = [] }: UpdateOptions, deps: CommandDeps): Promise<string[]> {
  const current = await getWebhook(deps.api, id);
  // What changes nothing is said, not done silently: a typo in a script shows up here.
  const already = addEvents.filter((e) => current.events.includes(e));
  const absent = removeEvents.filter((e) => !current.events.includes(e));
  if (already.length > 0)
    deps.stderr.write(laidOut(deps.stderr, `whsvc: webhook ${sanitize(id)} is already subscribed to ${already.join(', ')}: nothing to add\n`));
  if (absent.length > 0)
    deps.stderr.write(laidOut(deps.stderr, `whsvc: webhook ${sanitize(id)} is not subscribed to ${absent.join(', ')}: nothing to remove\n`));
  return mergeEvents(current.events, addEvents, removeEvents);
}

/** A webhook's `current` events with `add` added and `remove` removed; refused when none would be left. */
export function mergeEvents(current: string[], add: string[], remove: string[]): string[] {
  const merged = [...current, ...add.filter((e) => !current.includes(e))].filter((e) => !remove.includes(e));
  if (merged.length === 0) throw usageError('that would leave the webhook with no events; delete it, or pause it with --inactive');
  return merged;
}
