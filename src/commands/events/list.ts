import type { EventType } from '../../api/shapes.js';
import { listEventTypes } from '../../api/endpoints.js';
import { Command } from '@commander-js/extra-typings';
import { addHiddenVerbs, apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { fetchCatalog } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson, tableLayout } from '../../cli/output.js';
import { renderTable } from '../../render/table.js';
import { EVENT_WIDTH } from '../../cli/columns.js';

/** `events`, and `events list` under it (hidden), as a group's list is typed: the catalog both. */
export const command = (runF = run) => {
  const catalog = catalogCommand('events', runF);
  addHiddenVerbs(catalog, catalogCommand('list', runF));
  return catalog;
};

const catalogCommand = (name: string, runF: typeof run) =>
  new Command(name)
    .description('the event-type catalog, grouped by module')
    .addHelpText('after', examples('whsvc events', "whsvc events --json | jq -r '.data[].type'"))
    .action(apiAction((deps) => runF({}, deps)));

export async function run(_options: object, deps: CommandDeps): Promise<number> {
  if (deps.json) {
    printJson(deps, await listEventTypes(deps.api));
    return 0;
  }
  const catalog = await fetchCatalog(deps);
  const byModule = new Map<string, EventType[]>();
  for (const entry of catalog) byModule.set(entry.module, [...(byModule.get(entry.module) ?? []), entry]);
  const rows = [...byModule.values()].flat().map((e) => [e.module, e.type, e.desc]);
  // The module and the event type whole; the description takes the room left, cut between its words.
  const columns = [{ title: 'MODULE' }, { title: 'EVENT', width: EVENT_WIDTH }, { title: 'DESCRIPTION', kind: 'words' as const, width: 40, min: 12 }];
  deps.stdout.write(await renderTable(columns, rows, deps.colors, tableLayout(deps.stdout)));
  return 0;
}
