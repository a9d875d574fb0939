import type { EventType } from '../../api/shapes.js';
import { listEventTypes } from '../../api/endpoints.js';
import { Command } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { fetchCatalog } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { printJson, tableLayout } from '../../cli/output.js';
import { renderTable } from '../../render/table.js';

export const command = (name = 'events') =>
  new Command(name)
    .description('the event-type catalog, grouped by module')
    .addHelpText('after', examples('whsvc events', "whsvc events --json | jq -r '.data[].type'"))
    .action(apiAction((deps) => run({}, deps)));

export async function run(_options: object, deps: CommandDeps): Promise<number> {
  if (deps.json) {
    printJson(deps, await listEventTypes(deps.api));
    return 0;
  }
  const catalog = await fetchCatalog(deps);
  const byModule = new Map<string, EventType[]>();
  for (const entry of catalog) byModule.set(entry.module, [...(byModule.get(entry.module) ?? []), entry]);
  const rows = [...byModule.values()].flat().map((e) => [e.module, e.type, e.desc]);
  deps.stdout.write(await renderTable(['MODULE', 'EVENT', 'DESCRIPTION'], rows, deps.colors, { ...tableLayout(deps.stdout), whole: [], reluctant: [1] }));
  return 0;
}
