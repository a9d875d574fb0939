import { join } from 'node:path';
import { askServiceNow, deleteWebhook, getAttempt, getWebhook, updateWebhook } from '../../api/endpoints.js';
import { allWebhooks, deliveryKey } from '../../api/log.js';
import type { Webhook } from '../../api/shapes.js';
import { checkEventTypes } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { usageError } from '../../cli/errors.js';
import { boundAt, list, timeBound, withScheme } from '../../cli/parse.js';
import { ensureDirectory } from '../../files/user-file.js';
import { redactUserinfo, webhookUrl } from '../../net.js';
import { run as recover } from '../deliveries/recover.js';
import { run as retry } from '../deliveries/retry.js';
import { ResendReport, resendAll, type ResendTarget } from '../deliveries/shared/resend.js';
import { applyDocument, carryOut, createIntoSecretDir, planDeclared } from '../webhooks/apply.js';
import { takingTurns } from '../webhooks/shared/account-lock.js';
import { sameEvents } from '../webhooks/shared/events.js';
import { checkJournal, Journal } from '../webhooks/apply/secret-dir.js';
import { withSecretFile } from '../webhooks/shared/secret-file.js';
import { checkUrl, urlKey } from '../webhooks/shared/url.js';
import { mergeEvents, updateOptions } from '../webhooks/update.js';
import { callDeps } from './call.js';
import { plannedTool, type Planned } from './plan-tool.js';
import { commonInputs } from './read-tools.js';
import type { AnyTool, Zod } from './tools.js';
import { counted } from '../../render/text.js';

// The writes, each planned first (plan-tool.ts). A plan shows what --dry-run shows (or what the change would be, for
// the commands without one) and fingerprints what it read; its steps are carried out with the API client, or the
// command's own run function, so that the result is the document --json prints.

const eventTypes = (z: Zod) => z.array(z.string().min(1)).min(1).describe('event types (events_list gives them)');

/** What a webhook is, for a fingerprint: what a change to it would change. */
const state = (webhook: Webhook) => ({ id: webhook.id, url: webhook.url, events: webhook.events, active: webhook.active });

/** A list argument checked as the comma-separated flag is: a value given twice is refused, in its words. */
function distinct(name: string, values: string[]): string[] {
  try {
    return list(values.join(','));
  } catch (error) {
    throw usageError(`${name}: ${(error as Error).message.replace(/\.$/, '')}`);
  }
}

/** The URL as the service takes it, scheme added as --url adds it, or a usage error in --url's words. */
function checkedUrl(given: string): string {
  const url = withScheme(given);
  const problem = checkUrl(url);
  if (problem !== true) throw usageError(`url ${JSON.stringify(redactUserinfo(given))}: ${problem}`);
  const form = webhookUrl(url);
  return 'href' in form ? form.href : url;
}

const createTool = (z: Zod) =>
  plannedTool(z, {
    name: 'webhooks_create',
    title: 'Create a webhook',
    description:
      "Plans, then creates a webhook. Its signing secret, given by the service only once, is written to <id>.secret (mode 0600) under the server's --secret-dir and never shown; the result names the file (signing_secret_file), as `whsvc webhooks create --secret-file F --json` does.",
    needsSecretDir: true,
    input: z.strictObject({
      url: z.string().describe('the https endpoint (http only for this machine)'),
      events: eventTypes(z),
      active: z.boolean().optional().describe('false creates it paused; default true'),
    }),
    async plan(args, deps, context) {
      const url = checkedUrl(args.url);
      const events = distinct('events', args.events);
      await checkEventTypes(deps, events, 'events');
      const account: Webhook[] = [];
      for await (const webhook of allWebhooks(deps.api)) account.push(webhook);
      const there = account.filter((webhook) => urlKey(webhook.url) === urlKey(url));
      const twice = events.filter((event) => there.some((webhook) => (webhook.events ?? []).includes(event)));
      const warnings =
        there.length === 0
          ? []
          : [
              `webhook ${there.map((w) => w.id).join(', ')} delivers to ${url} already${twice.length > 0 ? `: ${twice.join(', ')} will arrive there more than once, once from each webhook` : ''}`,
            ];
      const active = args.active ?? true;
      const secretFile = join(context.secretDir!, '<id>.secret');
      return {
        shown: { dry_run: true, url, events, active, signing_secret_file: secretFile },
        reads: there.map(state),
        steps: { url, events, active },
        fixed: undefined,
        warnings,
        extra: account,
      };
    },
    async carryOut(steps, deps, context, fresh) {
      const dir = context.secretDir!;
      ensureDirectory(dir, '--secret-dir');
      const journal = new Journal(dir, checkJournal(dir, fresh.extra ?? []));
      journal.settle();
      try {
        const { webhook, path } = await createIntoSecretDir({ action: 'create', ...steps }, journal, deps, 'call webhooks_create again');
        return {
          value: withSecretFile(webhook, path),
          notes: [`signing secret written to ${path} (mode 0600); it is not shown, and the service never gives it again`],
        };
      } finally {
        journal.close();
      }
    },
  });

/** What an update sends: only the fields that change. */
type UpdateSteps = { id: string; body: { url?: string; events?: string[]; active?: boolean } };

/** An update's arguments: the flags of webhooks update. */
interface UpdateArgs {
  id: string;
  url?: string | undefined;
  events?: string[] | undefined;
  add_events?: string[] | undefined;
  remove_events?: string[] | undefined;
  active?: boolean | undefined;
}

/** The plan of an update: the webhook read, and each field given that differs from it, from and to. */
async function planUpdate(args: UpdateArgs, deps: CommandDeps): Promise<Planned<UpdateSteps, undefined>> {
  const given = { id: args.id, url: args.url, events: args.events, addEvents: args.add_events, removeEvents: args.remove_events, active: args.active };
  // Refused as the flags are: nothing to change, two event lists at once, a URL the service would not take.
  updateOptions({ ...given, url: args.url === undefined ? undefined : withScheme(args.url) });
  const url = args.url === undefined ? undefined : checkedUrl(args.url);
  for (const [name, types] of [
    ['events', args.events],
    ['add_events', args.add_events],
    ['remove_events', args.remove_events],
  ] as const) {
    if (types && types.length > 0) await checkEventTypes(deps, distinct(name, types), name);
  }
  const current = await getWebhook(deps.api, args.id);
  const events = args.add_events || args.remove_events ? mergeEvents(current.events, args.add_events ?? [], args.remove_events ?? []) : args.events;
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const body: UpdateSteps['body'] = {};
  if (url !== undefined && url !== current.url) changes.url = { from: current.url, to: (body.url = url) };
  if (events !== undefined && !sameEvents(events, current.events)) changes.events = { from: current.events, to: (body.events = events) };
  if (args.active !== undefined && args.active !== current.active) changes.active = { from: current.active, to: (body.active = args.active) };
  return {
    shown: { update: { id: current.id, url: current.url, changes } },
    reads: state(current),
    steps: { id: current.id, body },
    fixed: undefined,
    nothing: Object.keys(body).length === 0,
  };
}

const carryOutUpdate = async (steps: UpdateSteps, deps: CommandDeps) => ({ value: await updateWebhook(deps.api, steps.id, steps.body) });

const updateTool = (z: Zod) =>
  plannedTool(z, {
    name: 'webhooks_update',
    title: 'Update a webhook',
    description: 'Plans, then changes only what is given (url, the event list, active), as `whsvc webhooks update` does; the result is the webhook as updated.',
    input: z.strictObject({
      id: commonInputs(z).webhookId,
      url: z.string().optional().describe('a new endpoint'),
      events: z.array(z.string().min(1)).optional().describe('replaces the event list'),
      add_events: z.array(z.string().min(1)).optional().describe('added to the current event list'),
      remove_events: z.array(z.string().min(1)).optional().describe('removed from the current event list'),
      active: z.boolean().optional().describe('false pauses deliveries, true resumes them'),
    }),
    plan: (args, deps) => planUpdate(args, deps),
    carryOut: carryOutUpdate,
  });

/** pause and resume: an update of `active` alone. */
const activeTool = (z: Zod, name: string, active: boolean, words: string) =>
  plannedTool(z, {
    name,
    title: `${words[0]!.toUpperCase()}${words.slice(1)} a webhook`,
    description: `Plans, then ${words}s a webhook's deliveries (active ${active}), as \`whsvc webhooks update ID --${active ? 'active' : 'inactive'}\` does.`,
    input: z.strictObject({ id: commonInputs(z).webhookId }),
    plan: (args, deps) => planUpdate({ id: args.id, active }, deps),
    carryOut: carryOutUpdate,
  });

const SECRET_GONE =
  'its signing secret is revoked with it and can never be had again: a webhook made anew gets a new secret, which every receiver must then be given';

const deleteTool = (z: Zod) =>
  plannedTool(z, {
    name: 'webhooks_delete',
    title: 'Delete a webhook',
    description: `Plans, then deletes a webhook: its deliveries stop at once and ${SECRET_GONE}. The result is { id, deleted: true }.`,
    destructive: true,
    input: z.strictObject({ id: commonInputs(z).webhookId }),
    async plan(args, deps) {
      const current = await getWebhook(deps.api, args.id);
      return {
        shown: { delete: state(current) },
        reads: state(current),
        steps: current.id,
        fixed: undefined,
        warnings: [`deleting ${current.id}: ${SECRET_GONE}`],
      };
    },
    async carryOut(id, deps) {
      await deleteWebhook(deps.api, id);
      return { value: { id, deleted: true } };
    },
  });

const retryTool = (z: Zod) =>
  plannedTool(z, {
    name: 'deliveries_retry',
    title: 'Retry deliveries',
    description:
      'Plans, then re-sends failed or pending deliveries now, as `whsvc deliveries retry ID… --json` does: one id answers the new attempt; several, a document of each outcome and a summary.',
    input: z.strictObject({ ids: z.array(commonInputs(z).deliveryId).min(1).max(100).describe('delivery ids (or attempt ids), 1 to 100') }),
    async plan(args, deps) {
      const ids = [...new Set(args.ids)];
      const attempts = [];
      for (const id of ids) attempts.push(await getAttempt(deps.api, id));
      const rows = attempts.map((a) => ({
        attempt_id: a.id,
        delivery_id: deliveryKey(a),
        webhook_id: a.webhook_id ?? null,
        event: a.event,
        status: a.status,
        response_code: a.response_code,
        attempts: a.attempts ?? null,
        next_attempt_at: a.next_attempt_at ?? null,
      }));
      const delivered = rows.filter((row) => row.status === 'delivered').map((row) => row.attempt_id);
      const warnings = delivered.length > 0 ? [`already delivered: ${delivered.join(', ')}; the service refuses to send a delivered one again`] : [];
      return { shown: { retry: rows }, reads: rows, steps: ids, fixed: undefined, warnings };
    },
    async carryOut(ids, deps) {
      const call = callDeps(deps);
      await retry({ ids, concurrency: 8 }, call.deps);
      return { value: call.json.value, notes: call.said() };
    },
  });

/** The window a recover plan read, fixed when it was first made: its second call reads the same window again. */
type Window = { since: number | undefined; until: number };

const recoverTool = (z: Zod) =>
  plannedTool(z, {
    name: 'deliveries_recover',
    title: 'Recover failed deliveries',
    description:
      'Plans, then re-sends each failed (or pending) delivery of a window once, as `whsvc deliveries recover`: the plan is what `--dry-run --json` lists; carried out, the result is what `--yes --json` prints. A window counted back from now is fixed when the plan is made.',
    input: z.strictObject({
      webhook_ids: z.array(commonInputs(z).webhookId).optional().describe('only these webhooks (default: every webhook)'),
      since: commonInputs(z).since.optional().describe('only deliveries tried since then (default: the whole log)'),
      until: commonInputs(z).since.optional().describe('only deliveries tried until then (default: when the plan is made)'),
      events: z.array(z.string().min(1)).optional().describe('only these event types'),
      status: z.enum(['failed', 'pending']).optional().describe('failed (default; also those with a retry due) or pending'),
    }),
    async plan(args, deps, _context, fixed: Window | undefined) {
      const window = fixed ?? (await windowOf(args.since, args.until, deps));
      const call = callDeps(deps);
      await recover(
        {
          status: args.status ?? 'failed',
          webhooks: [...new Set(args.webhook_ids ?? [])],
          events: distinct('events', args.events ?? []),
          since: window.since === undefined ? undefined : { at: window.since },
          until: { at: window.until },
          dryRun: true,
          yes: false,
          concurrency: 8,
        },
        call.deps,
      );
      const shown = call.json.value as {
        deliveries: Array<{ delivery_id: string; attempt_id: string; webhook_id: string | null; event: string; status: string }>;
      };
      const targets: ResendTarget[] = shown.deliveries.map((row) => ({
        attemptId: row.attempt_id,
        deliveryId: row.delivery_id,
        webhookId: row.webhook_id ?? undefined,
        event: row.event,
      }));
      return { shown, reads: shown.deliveries, steps: targets, fixed: window, warnings: call.said(), nothing: targets.length === 0 };
    },
    async carryOut(targets, deps) {
      const call = callDeps(deps);
      const report = new ResendReport(call.deps, targets.length);
      await resendAll(call.deps, targets, { concurrency: 8, report });
      report.finish(false);
      return { value: call.json.value, notes: call.said() };
    },
  });

/** A recover window as times on the service's clock: a duration counts back from its now, which also ends a window given no end. */
async function windowOf(sinceGiven: string | undefined, untilGiven: string | undefined, deps: CommandDeps): Promise<Window> {
  const now = await askServiceNow(deps.api);
  return {
    since: sinceGiven === undefined ? undefined : boundAt(timeBound(sinceGiven), now),
    until: untilGiven === undefined ? now : boundAt(timeBound(untilGiven), now),
  };
}

/** Where apply's document says the declared webhooks came from (its `file`): the tool call. */
const APPLY_SOURCE = 'webhooks_apply';

const applyTool = (z: Zod) =>
  plannedTool(z, {
    name: 'webhooks_apply',
    title: 'Apply a declared set of webhooks',
    description:
      "Plans, then makes the account's webhooks as declared, keyed by URL, as `whsvc webhooks apply` does: creates (secrets to --secret-dir), updates what differs, and with prune deletes the rest. The plan is what `--dry-run --json` prints; carried out, what `--json` prints.",
    destructive: true,
    input: z.strictObject({
      webhooks: z
        .array(z.object({ url: z.string(), events: z.array(z.string()), active: z.boolean().optional() }).loose())
        .describe('the declared webhooks, as the file of webhooks apply holds them'),
      prune: z.boolean().optional().describe('also delete the webhooks not declared (their secrets can never be had again)'),
    }),
    async plan(args, deps, context) {
      const prune = args.prune ?? false;
      const planned = await planDeclared({ webhooks: args.webhooks }, 'the declared webhooks', { prune, secretDir: context.secretDir }, deps);
      const { plan, secretless, account } = planned;
      if (plan.create.length > 0 && context.secretDir === undefined) {
        throw usageError(
          `the plan creates ${counted(plan.create.length, 'webhook')}, whose signing secrets are given once: this server was started without --secret-dir, where they would go; nothing was changed`,
          'start whsvc mcp with --secret-dir DIR to create webhooks',
        );
      }
      const warnings = plan.delete.length > 0 ? [`the plan deletes ${plan.delete.map((w) => w.id).join(', ')}: ${SECRET_GONE}`] : [];
      return {
        shown: applyDocument({ file: APPLY_SOURCE, dryRun: true, prune }, plan, null, secretless),
        reads: account.map(state),
        steps: { plan, prune },
        fixed: undefined,
        warnings,
        nothing: plan.create.length + plan.update.length + plan.delete.length === 0,
        extra: planned,
      };
    },
    async carryOut({ plan, prune }, deps, context, fresh) {
      const { secretless, journal } = fresh.extra!;
      const call = callDeps(deps);
      await takingTurns(deps, () =>
        carryOut({ file: APPLY_SOURCE, dryRun: false, prune, secretDir: context.secretDir }, { plan, secretless, journal }, call.deps),
      );
      return { value: call.json.value, notes: call.said() };
    },
  });

export const writeTools = (z: Zod): AnyTool[] => [
  createTool(z),
  updateTool(z),
  activeTool(z, 'webhooks_pause', false, 'pause'),
  activeTool(z, 'webhooks_resume', true, 'resume'),
  deleteTool(z),
  retryTool(z),
  recoverTool(z),
  applyTool(z),
];
