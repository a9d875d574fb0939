import type { Page } from '../../api/shapes.js';
import type { CommandDeps } from '../../cli/context.js';
import { percentage, resourceId, timeBound } from '../../cli/parse.js';
import { DEFAULT_PLATFORM_NAME } from '../../protocol/headers.js';
import { DELIVERY_STATUSES } from '../../protocol/status.js';
import { EVENT_TYPES } from '../../protocol/catalog.js';
import { usageError } from '../../cli/errors.js';
import { run as listDeliveries } from '../deliveries/list.js';
import { run as diagnose } from '../deliveries/diagnose.js';
import { run as showDelivery } from '../deliveries/show.js';
import { run as listEvents } from '../events/list.js';
import { run as getWebhook } from '../webhooks/get.js';
import { run as health } from '../webhooks/health.js';
import { run as listWebhooks } from '../webhooks/list.js';
import { callDeps, type ToolOutcome } from './call.js';
import { type AnyTool, defineTool, parsedBy, type Zod } from './tools.js';

// The reads: each the command's own run function with --json, so that a tool's result is the document `--json`
// prints. Lists come a page at a time (the service's page, 50 unless `limit` says), with how to get the next.

/** The arguments several tools take, in the words of the flags they stand for. */
export function commonInputs(z: Zod) {
  return {
    webhookId: parsedBy(z, resourceId('webhook')).describe('a webhook id (wh_…)'),
    deliveryId: parsedBy(z, resourceId('delivery')).describe('a delivery id (dlv_…), or the id of any of its attempts'),
    limit: z.number().int().min(1).max(200).optional().describe('page size, 1 to 200 (the service gives 50 when not given)'),
    cursor: z.string().min(1).optional().describe("the page after this cursor: the last page's next_cursor"),
    since: parsedBy(z, timeBound).describe('a duration back from now (30m, 2h, 3d) or an ISO 8601 time (2026-11-23T08:00:00Z)'),
  };
}

/** A command's run with --json, its document as the tool's result and what it said on stderr as notes. */
export async function asJson(deps: CommandDeps, run: (deps: CommandDeps) => Promise<number>): Promise<ToolOutcome> {
  const call = callDeps(deps);
  await run(call.deps);
  return { value: call.json.value, notes: call.said() };
}

/** A page, and how to get the next one when there is one. */
async function paged(deps: CommandDeps, tool: string, run: (deps: CommandDeps) => Promise<number>): Promise<ToolOutcome> {
  const outcome = await asJson(deps, run);
  const page = outcome.value as Page<unknown>;
  if (page.has_more && page.next_cursor) {
    outcome.notes = [
      ...(outcome.notes ?? []),
      `${page.data.length} shown, more follow: call ${tool} again with the same arguments and cursor ${JSON.stringify(page.next_cursor)}`,
    ];
  }
  return outcome;
}

/** How many rows a list across webhooks gives when no limit is asked: a page an agent's context holds. */
const ACROSS_PAGE = 50;

/** A list across webhooks (which has no cursor), and how to get older rows when more match. */
async function acrossPage(deps: CommandDeps, run: (deps: CommandDeps) => Promise<number>): Promise<ToolOutcome> {
  const outcome = await asJson(deps, run);
  const page = outcome.value as Page<{ created_at?: string }>;
  const last = page.data.at(-1)?.created_at;
  if (page.has_more && last) {
    outcome.notes = [
      ...(outcome.notes ?? []),
      `${page.data.length} shown, more match: call deliveries_list again with the same arguments and until ${JSON.stringify(last)}`,
    ];
  }
  return outcome;
}

/** The reads: of the webhooks and the catalog, of the deliveries, and over a window. */
export const readTools = (z: Zod): AnyTool[] => [...accountReads(z), ...deliveryReads(z), ...windowReads(z)];

function accountReads(z: Zod): AnyTool[] {
  const { webhookId, limit, cursor } = commonInputs(z);
  return [
    defineTool({
      name: 'webhooks_list',
      title: 'List webhooks',
      description: "One page of the account's webhooks (id, url, events, active, created_at), as `whsvc webhooks list --json` prints it.",
      kind: 'read',
      input: z.strictObject({ active: z.boolean().optional().describe('only active (true) or paused (false) webhooks'), limit, cursor }),
      run: (args, deps) => paged(deps, 'webhooks_list', (d) => listWebhooks({ active: args.active, limit: args.limit, cursor: args.cursor, all: false }, d)),
    }),
    defineTool({
      name: 'webhooks_get',
      title: 'Get a webhook',
      description: 'One webhook, as `whsvc webhooks get ID --json` prints it. Its signing secret is never shown: the service gives it only at creation.',
      kind: 'read',
      input: z.strictObject({ id: webhookId }),
      run: (args, deps) => asJson(deps, (d) => getWebhook({ id: args.id }, d)),
    }),
    defineTool({
      name: 'events_list',
      title: 'List event types',
      description: 'The event-type catalog (type, module, desc), as `whsvc events --json` prints it: the types a webhook can subscribe to.',
      kind: 'read',
      input: z.strictObject({}),
      run: (_args, deps) => asJson(deps, (d) => listEvents({}, d)),
    }),
  ];
}

function deliveryReads(z: Zod): AnyTool[] {
  const { webhookId, deliveryId, limit, cursor, since } = commonInputs(z);
  return [
    defineTool({
      name: 'deliveries_list',
      title: 'List deliveries',
      description:
        "Delivery attempts, newest first (id, event, status, response_code, attempts, created_at). With webhook_id alone: one page of that webhook's log, as `whsvc deliveries list WEBHOOK_ID --json` prints it, paged by cursor. Without it, or with a filter (event, since, until, payload_id): every webhook's, each item with its webhook_id, the `limit` newest (50 when not given), as `whsvc deliveries list --json` prints it; older ones with until set to the last item's created_at.",
      kind: 'read',
      input: z.strictObject({
        webhook_id: webhookId.optional(),
        status: z.enum(DELIVERY_STATUSES).optional().describe('only this status'),
        event: z.array(z.enum(EVENT_TYPES)).optional().describe('only these event types (across webhooks)'),
        since: since.optional().describe('only attempts since then (across webhooks)'),
        until: since.optional().describe('only attempts until then (across webhooks): a duration back from now or an ISO 8601 time'),
        payload_id: z.string().min(1).optional().describe("only deliveries whose payload's own id is this, such as inv_… (across webhooks)"),
        limit,
        cursor,
      }),
      run: (args, deps) => {
        const across =
          args.webhook_id === undefined || args.event !== undefined || args.since !== undefined || args.until !== undefined || args.payload_id !== undefined;
        if (!across) {
          return paged(deps, 'deliveries_list', (d) =>
            listDeliveries({ webhookId: args.webhook_id, status: args.status, limit: args.limit, cursor: args.cursor, all: false }, d),
          );
        }
        if (args.cursor !== undefined) throw usageError("cursor pages one webhook's log: give webhook_id alone, or page across webhooks with until");
        return acrossPage(deps, (d) =>
          listDeliveries(
            {
              status: args.status,
              limit: args.limit ?? ACROSS_PAGE,
              all: false,
              across: {
                webhooks: args.webhook_id ? [args.webhook_id] : [],
                events: args.event ?? [],
                since: args.since === undefined ? undefined : timeBound(args.since),
                until: args.until === undefined ? undefined : timeBound(args.until),
                payloadId: args.payload_id,
              },
            },
            d,
          ),
        );
      },
    }),
    defineTool({
      name: 'deliveries_show',
      title: 'Show a delivery attempt',
      description: 'One attempt whole, with its payload and stored signature, as `whsvc deliveries show ID --json` prints it.',
      kind: 'read',
      // The seam for a delivery's fate (being built): this shows what `deliveries show --json` shows, fate included once it does.
      input: z.strictObject({ id: deliveryId }),
      run: (args, deps) => asJson(deps, (d) => showDelivery({ id: args.id }, d)),
    }),
    defineTool({
      name: 'deliveries_diagnose',
      title: 'Diagnose a delivery',
      description:
        'Why a delivery failed and what to do: every attempt, what was sent and answered, the failure in plain words and the next steps, as `whsvc deliveries diagnose ID --json` prints it.',
      kind: 'read',
      input: z.strictObject({ id: deliveryId }),
      run: (args, deps) => asJson(deps, (d) => diagnose({ id: args.id, platformName: DEFAULT_PLATFORM_NAME }, d)),
    }),
  ];
}

function windowReads(z: Zod): AnyTool[] {
  const { webhookId, since } = commonInputs(z);
  return [
    defineTool({
      name: 'webhooks_health',
      title: 'Webhook health',
      description:
        'Delivered share, failures, the last outcomes and a verdict per webhook over a window, worst first, as `whsvc webhooks health --json` prints it.',
      kind: 'read',
      input: z.strictObject({
        ids: z.array(webhookId).optional().describe('the webhooks to look at (default: every webhook)'),
        since: since.optional().describe('the window: a duration back from now or an ISO 8601 time; default 24h'),
        fail_under: parsedBy(z, percentage).optional().describe('the delivered percentage under which a webhook is unhealthy (default 95)'),
      }),
      run: (args, deps) =>
        asJson(deps, (d) =>
          health(
            {
              ids: args.ids ?? [],
              since: args.since === undefined ? undefined : timeBound(args.since),
              failUnder: args.fail_under === undefined ? undefined : percentage(args.fail_under),
            },
            d,
          ),
        ),
    }),
  ];
}
