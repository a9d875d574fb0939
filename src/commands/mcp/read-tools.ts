import { askServiceNow } from '../../api/endpoints.js';
import { allWebhooks, attemptsOf } from '../../api/log.js';
import type { Attempt, Page } from '../../api/shapes.js';
import type { CommandDeps } from '../../cli/context.js';
import { boundAt, percentage, resourceId, timeBound } from '../../cli/parse.js';
import { DEFAULT_PLATFORM_NAME } from '../../protocol/headers.js';
import { DELIVERY_STATUSES } from '../../protocol/status.js';
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
  const { webhookId, deliveryId, limit, cursor } = commonInputs(z);
  return [
    defineTool({
      name: 'deliveries_list',
      title: "List a webhook's deliveries",
      description:
        "One page of a webhook's delivery attempts, newest first (id, event, status, response_code, attempts, created_at), as `whsvc deliveries list WEBHOOK_ID --json` prints it.",
      kind: 'read',
      // The seam for deliveries across every webhook (`deliveries list` with no webhook id, being built): webhook_id
      // becomes optional, with its filters, and this tool calls that run function.
      input: z.strictObject({ webhook_id: webhookId, status: z.enum(DELIVERY_STATUSES).optional().describe('only this status'), limit, cursor }),
      run: (args, deps) =>
        paged(deps, 'deliveries_list', (d) =>
          listDeliveries({ webhookId: args.webhook_id, status: args.status, limit: args.limit, cursor: args.cursor, all: false }, d),
        ),
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
    defineTool({
      name: 'deliveries_recent',
      title: 'Newest deliveries since a time',
      description:
        'The newest delivery attempts of every webhook (or of those named) since a time, newest first, each with its webhook_id: at most `limit`; has_more says that older ones in the window were left out (narrow `since` or name webhooks to see them).',
      kind: 'read',
      input: z.strictObject({
        since,
        webhook_ids: z.array(webhookId).optional().describe('only these webhooks (default: every webhook)'),
        status: z.enum(DELIVERY_STATUSES).optional().describe('only this status'),
        limit: z.number().int().min(1).max(200).optional().describe('at most this many attempts, 1 to 200 (default 50)'),
      }),
      run: (args, deps) => recent(deps, { ...args, since: timeBound(args.since) }),
    }),
  ];
}

/**
 * The newest attempts since a time across webhooks: each webhook's log is newest first, so the newest `limit` of all
 * are among the newest `limit` of each; those are read (one walk a log, stopped there) and merged.
 */
async function recent(
  deps: CommandDeps,
  options: { since: ReturnType<typeof timeBound>; webhook_ids?: string[] | undefined; status?: Attempt['status'] | undefined; limit?: number | undefined },
): Promise<ToolOutcome> {
  const limit = options.limit ?? 50;
  const since = boundAt(options.since, 'ago' in options.since ? await askServiceNow(deps.api) : 0);
  const webhooks = options.webhook_ids ? options.webhook_ids.map((id) => ({ id })) : allWebhooks(deps.api);
  const found: Array<Attempt & { webhook_id: string }> = [];
  let more = false;
  for await (const webhook of webhooks) {
    let taken = 0;
    for await (const attempt of attemptsOf(deps.api, webhook.id, { status: options.status, since })) {
      if (taken === limit) {
        more = true;
        break;
      }
      found.push({ ...attempt, webhook_id: webhook.id });
      taken += 1;
    }
  }
  found.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  const data = found.slice(0, limit);
  const has_more = more || found.length > limit;
  const notes = has_more ? [`the newest ${data.length} shown; older ones in the window were left out: narrow since, or name webhook_ids`] : [];
  return { value: { since: new Date(since).toISOString(), data, has_more }, notes };
}
