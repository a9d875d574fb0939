import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWebhook, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { type McpInProcess, mcpInProcess } from '../helpers/mcp.js';

// `whsvc mcp` in-process against the sandbox in-process (port 0, a manual clock: no automatic retry happens unless
// the test moves it), driven by the SDK's own Client over the run's stdin and stdout. What a tool answers is compared
// with what the command prints with --json; every result and the server's stderr are kept for the last test, which
// looks for the secrets in them.

let sandbox: SandboxInProcess;
let workDir: string;
let configDir: string;
let secretDir: string;
let server: McpInProcess;
/** Webhook `down` (a refused address: its deliveries fail) and `other` (never delivered to). */
const ids: Record<string, string> = {};
/** The signing secret `webhooks create` showed for `down`: it must never come out of the server. */
let downSecret: string;
/** Every result any server gave, as JSON text, and every server's stderr. */
const seen: string[] = [];
/** The secrets of the webhooks the server created (read from their files), looked for in `seen`. */
const secretsToLookFor: string[] = [];

const env = () => sandboxEnv(sandbox.info, configDir);
const cli = inProcessCliWith(env);

/** What `whsvc <args> --json` prints, whatever its exit code (health's is 1 for an unhealthy webhook). */
async function cliJson(args: string[]): Promise<unknown> {
  const result = await cli([...args, '--json']);
  expect(result.stdout, result.stderr).not.toBe('');
  return JSON.parse(result.stdout);
}

async function call(name: string, args: Record<string, unknown> = {}, on: McpInProcess = server): Promise<CallToolResult> {
  const result = (await on.client.callTool({ name, arguments: args })) as CallToolResult;
  seen.push(JSON.stringify(result));
  return result;
}

/** A result that is not an error: its structured content. */
async function ok(name: string, args: Record<string, unknown> = {}, on: McpInProcess = server): Promise<any> {
  const result = await call(name, args, on);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent;
}

/** A result that is an error: its text (`whsvc: …` and `hint: …`). */
async function refused(name: string, args: Record<string, unknown> = {}, on: McpInProcess = server): Promise<string> {
  const result = await call(name, args, on);
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  return (result.content[0] as { text: string }).text;
}

async function toolNames(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<string[]> {
  const other = await mcpInProcess(args, { ...env(), ...extraEnv });
  const { tools } = await other.client.listTools();
  seen.push(other.stderr());
  expect(await other.close()).toBe(0);
  return tools.map((tool) => tool.name);
}

const READS = ['webhooks_list', 'webhooks_get', 'events_list', 'deliveries_list', 'deliveries_show', 'deliveries_diagnose', 'webhooks_health', 'sandbox_clock'];
const WRITES = [
  'webhooks_create',
  'webhooks_update',
  'webhooks_pause',
  'webhooks_resume',
  'webhooks_delete',
  'deliveries_retry',
  'deliveries_recover',
  'webhooks_apply',
  'sandbox_trigger',
  'sandbox_clock_advance',
  'sandbox_clock_set',
];

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--clock', 'manual']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-mcp-'));
  configDir = join(workDir, 'config');
  secretDir = join(workDir, 'secrets');
  const down = await createWebhook(cli, 'http://127.0.0.1:9/down', 'invoice.paid');
  ids.down = down.id;
  downSecret = down.signing_secret!;
  ids.other = (await createWebhook(cli, 'https://example.com/other', 'sales_order.created')).id;
  await trigger(cli, 'invoice.paid', { times: 2 });
  await vi.waitFor(
    async () => {
      const log = (await cliJson(['deliveries', 'list', ids.down!])) as { data: Array<{ status: string }> };
      expect(log.data.map((attempt) => attempt.status)).toEqual(['failed', 'failed']);
    },
    { timeout: 20_000, interval: 50 },
  );
  server = await mcpInProcess(['--secret-dir', secretDir], env());
});

afterAll(async () => {
  if (server) expect(await server.close()).toBe(0);
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('whsvc mcp', () => {
  it("lists the reads, the writes (each planned) and the sandbox's tools; --read-only, a read-only client and no --secret-dir offer less", async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READS, ...WRITES].sort());
    const deleteTool = tools.find((tool) => tool.name === 'webhooks_delete')!;
    expect(deleteTool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(Object.keys(deleteTool.inputSchema.properties ?? {})).toEqual(['id', 'plan_id']);
    expect(tools.find((tool) => tool.name === 'webhooks_list')!.annotations).toMatchObject({ readOnlyHint: true });

    expect((await toolNames(['--read-only', '--secret-dir', secretDir])).sort()).toEqual([...READS].sort());
    const readOnlyClient = { WHSVC_CLIENT_ID: sandbox.info.readonly_client_id, WHSVC_CLIENT_SECRET: sandbox.info.readonly_client_secret };
    expect((await toolNames(['--secret-dir', secretDir], readOnlyClient)).sort()).toEqual([...READS].sort());
    expect(await toolNames([])).not.toContain('webhooks_create');
    expect(await toolNames([])).toContain('webhooks_delete');
  });

  it("answers each read with the document the command's --json prints", async () => {
    const attempt = ((await cliJson(['deliveries', 'list', ids.down!])) as { data: Array<{ id: string }> }).data[0]!.id;
    const now = ((await cliJson(['sandbox', 'clock'])) as { now: string }).now;
    const since = new Date(Date.parse(now) - 3_600_000).toISOString();
    const pairs: Array<[string, Record<string, unknown>, string[]]> = [
      ['webhooks_list', {}, ['webhooks', 'list']],
      ['webhooks_list', { active: true, limit: 1 }, ['webhooks', 'list', '--active', 'true', '--limit', '1']],
      ['webhooks_get', { id: ids.down }, ['webhooks', 'get', ids.down!]],
      ['events_list', {}, ['events']],
      ['deliveries_list', { webhook_id: ids.down, status: 'failed' }, ['deliveries', 'list', ids.down!, '--status', 'failed']],
      ['deliveries_show', { id: attempt }, ['deliveries', 'show', attempt]],
      ['deliveries_diagnose', { id: attempt }, ['deliveries', 'diagnose', attempt]],
      ['webhooks_health', { since }, ['webhooks', 'health', '--since', since]],
      ['sandbox_clock', {}, ['sandbox', 'clock']],
    ];
    for (const [tool, args, command] of pairs) expect(await ok(tool, args), tool).toEqual(await cliJson(command));

    // A page that has more says how to get the next, and the next is --cursor's.
    const first = await call('webhooks_list', { limit: 1 });
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    expect(first.content.map((block) => (block as { text: string }).text).join('\n')).toContain(`cursor ${JSON.stringify(cursor)}`);
    expect(await ok('webhooks_list', { limit: 1, cursor })).toEqual(await cliJson(['webhooks', 'list', '--limit', '1', '--cursor', cursor]));

    // Across every webhook, since a time: what `deliveries list --since` prints, each item with its webhook_id.
    expect(await ok('deliveries_list', { since: '1h' })).toEqual(await cliJson(['deliveries', 'list', '--since', '1h']));
    const recent = await ok('deliveries_list', { webhook_id: ids.down, since: '1h' });
    expect(recent.data.length).toBeGreaterThan(0);
    expect(recent.data.every((a: { webhook_id: string }) => a.webhook_id === ids.down)).toBe(true);
  });

  it('changes nothing for a write called without a plan id: it answers the plan', async () => {
    const plan = await ok('webhooks_delete', { id: ids.other });
    expect(plan.plan_id).toMatch(/^plan_/);
    expect(plan.plan).toEqual({ delete: { id: ids.other, url: 'https://example.com/other', events: ['sales_order.created'], active: true } });
    expect(plan.warnings.join(' ')).toMatch(/signing secret is revoked with it and can never be had again/);
    const update = await ok('webhooks_update', { id: ids.other, add_events: ['invoice.paid'], active: false });
    expect(update.plan.update.changes).toEqual({
      events: { from: ['sales_order.created'], to: ['sales_order.created', 'invoice.paid'] },
      active: { from: true, to: false },
    });
    expect(await cliJson(['webhooks', 'get', ids.other!])).toMatchObject({ events: ['sales_order.created'], active: true });
  });

  it('carries out a plan given its id, doing what the plan showed', async () => {
    const args = { id: ids.other, add_events: ['invoice.paid'], active: false };
    const plan = await ok('webhooks_update', args);
    const done = await ok('webhooks_update', { ...args, plan_id: plan.plan_id });
    const after = (await cliJson(['webhooks', 'get', ids.other!])) as { events: string[]; active: boolean };
    expect(after.events).toEqual(plan.plan.update.changes.events.to);
    expect(after.active).toBe(plan.plan.update.changes.active.to);
    expect(done).toMatchObject({ id: ids.other, events: after.events, active: false });

    // A create: its secret in a 0600 file under --secret-dir, named in the result in place of the secret.
    const createArgs = { url: 'https://example.com/created', events: ['invoice.paid'] };
    const created = await ok('webhooks_create', { ...createArgs, plan_id: (await ok('webhooks_create', createArgs)).plan_id });
    expect(created).not.toHaveProperty('signing_secret');
    expect(created.signing_secret_file).toBe(join(secretDir, `${created.id}.secret`));
    expect(statSync(created.signing_secret_file).mode & 0o777).toBe(0o600);
    const secret = readFileSync(created.signing_secret_file, 'utf8');
    expect(secret.length).toBeGreaterThan(8);
    secretsToLookFor.push(secret);
    expect(await cliJson(['webhooks', 'get', created.id])).toMatchObject({ url: 'https://example.com/created', events: ['invoice.paid'] });

    // recover: the plan lists the failed deliveries, and carried out re-sends exactly those.
    const recoverPlan = await ok('deliveries_recover', { webhook_ids: [ids.down] });
    const planned = recoverPlan.plan.deliveries.map((row: { attempt_id: string }) => row.attempt_id).sort();
    expect(planned).toHaveLength(2);
    const recovered = await ok('deliveries_recover', { webhook_ids: [ids.down], plan_id: recoverPlan.plan_id });
    expect(recovered.summary).toMatchObject({ selected: 2, resent: 2 });
    expect(recovered.deliveries.map((row: { retried_attempt_id: string }) => row.retried_attempt_id).sort()).toEqual(planned);
  });

  it('carries out a create at a URL holding a token, which no plan file holds; the same URL with another token is another call', async () => {
    // A user name and password (user:pass@) is refused before any plan; a token in the query or the path is not.
    const url = 'https://example.com/with-token?token=pl4n-t0ken';
    const args = { url, events: ['invoice.paid'] };
    const plan = await ok('webhooks_create', args);
    const plansDir = join(configDir, 'mcp-plans');
    for (const name of readdirSync(plansDir)) expect(readFileSync(join(plansDir, name), 'utf8')).not.toContain('pl4n-t0ken');
    expect(await refused('webhooks_create', { ...args, url: url.replace('pl4n', 'other'), plan_id: plan.plan_id })).toMatch(/was made for other arguments/);
    const created = await ok('webhooks_create', { ...args, plan_id: (await ok('webhooks_create', args)).plan_id });
    secretsToLookFor.push(readFileSync(created.signing_secret_file, 'utf8'));
    expect(await cliJson(['webhooks', 'get', created.id])).toMatchObject({ url });
    expect((await cli(['webhooks', 'delete', created.id, '--yes'])).code).toBe(0);
  });

  it('refuses a plan made before another change, a plan used twice, a plan for other arguments, and an expired one', async () => {
    const plan = await ok('webhooks_delete', { id: ids.down });
    expect((await cli(['webhooks', 'update', ids.down!, '--inactive'])).code).toBe(0);
    expect(await refused('webhooks_delete', { id: ids.down, plan_id: plan.plan_id })).toMatch(
      /^whsvc: the account changed since plan plan_\S+ was made .*nothing was changed\nhint: call webhooks_delete without plan_id/,
    );
    expect(await cliJson(['webhooks', 'get', ids.down!])).toMatchObject({ id: ids.down, active: false });
    expect(await refused('webhooks_delete', { id: ids.down, plan_id: plan.plan_id })).toMatch(/^whsvc: no plan "plan_\S+": .*carried out already/);

    const resume = await ok('webhooks_resume', { id: ids.down });
    expect(await refused('webhooks_resume', { id: ids.other, plan_id: resume.plan_id })).toMatch(/was made for other arguments/);
    expect(await refused('webhooks_pause', { id: ids.down, plan_id: resume.plan_id })).toMatch(/was made by webhooks_resume, not webhooks_pause/);

    let now = Date.now();
    const clocked = await mcpInProcess([], env(), () => now);
    try {
      const late = await ok('webhooks_resume', { id: ids.down }, clocked);
      now += 11 * 60_000;
      expect(await refused('webhooks_resume', { id: ids.down, plan_id: late.plan_id }, clocked)).toMatch(/^whsvc: plan plan_\S+ expired 1 min ago/);
    } finally {
      seen.push(clocked.stderr());
      await clocked.close();
    }
    expect(await cliJson(['webhooks', 'get', ids.down!])).toMatchObject({ active: false });
  });

  it('carries out a plan one server made with a server started after it (a one-shot client), once; an expired one is refused', async () => {
    const own = (await createWebhook(cli, 'https://example.com/one-shot', 'invoice.paid')).id;
    let now = Date.now();
    const oneShot = async <T>(use: (on: McpInProcess) => Promise<T>): Promise<T> => {
      const started = await mcpInProcess([], env(), () => now);
      try {
        return await use(started);
      } finally {
        seen.push(started.stderr());
        expect(await started.close()).toBe(0);
      }
    };
    const plan = await oneShot((on) => ok('webhooks_pause', { id: own }, on));
    expect(await oneShot((on) => ok('webhooks_pause', { id: own, plan_id: plan.plan_id }, on))).toMatchObject({ id: own, active: false });
    expect(await cliJson(['webhooks', 'get', own])).toMatchObject({ active: false });
    expect(await oneShot((on) => refused('webhooks_pause', { id: own, plan_id: plan.plan_id }, on))).toMatch(
      /^whsvc: no plan "plan_\S+": .*carried out already/,
    );

    const late = await oneShot((on) => ok('webhooks_resume', { id: own }, on));
    now += 11 * 60_000;
    expect(await oneShot((on) => refused('webhooks_resume', { id: own, plan_id: late.plan_id }, on))).toMatch(/^whsvc: plan plan_\S+ expired 1 min ago/);
    expect(await cliJson(['webhooks', 'get', own])).toMatchObject({ active: false });
    expect((await cli(['webhooks', 'delete', own, '--yes'])).code).toBe(0);
  });

  it('carries out apply, retry and delete as planned; an apply that would create needs --secret-dir', async () => {
    const declared = {
      webhooks: [
        { url: 'https://example.com/other', events: ['sales_order.created'], active: true },
        { url: 'https://example.com/applied', events: ['product.updated'] },
      ],
    };
    const plan = await ok('webhooks_apply', declared);
    expect(plan.plan).toMatchObject({ dry_run: true, prune: false, outcome: null });
    expect(plan.plan.plan.create).toEqual([{ url: 'https://example.com/applied', events: ['product.updated'], active: true }]);
    expect(plan.plan.plan.update.map((w: { id: string }) => w.id)).toEqual([ids.other]);
    const applied = await ok('webhooks_apply', { ...declared, plan_id: plan.plan_id });
    expect(applied).toMatchObject({ dry_run: false, changed: true, outcome: { updated: [{ id: ids.other }], deleted: [], not_done: [] } });
    const [created] = applied.outcome.created;
    secretsToLookFor.push(readFileSync(created.signing_secret_file, 'utf8'));
    expect(await cliJson(['webhooks', 'get', ids.other!])).toMatchObject({ events: ['sales_order.created'], active: true });

    const noDir = await mcpInProcess([], env());
    try {
      const more = { webhooks: [...declared.webhooks, { url: 'https://example.com/third', events: ['invoice.paid'] }] };
      expect(await refused('webhooks_apply', more, noDir)).toMatch(/^whsvc: the plan creates 1 webhook, .*started without --secret-dir/);
    } finally {
      seen.push(noDir.stderr());
      await noDir.close();
    }

    const attempt = ((await cliJson(['deliveries', 'list', ids.down!])) as { data: Array<{ id: string }> }).data[0]!.id;
    const retryPlan = await ok('deliveries_retry', { ids: [attempt] });
    expect(retryPlan.plan.retry.map((row: { attempt_id: string }) => row.attempt_id)).toEqual([attempt]);
    const retried = await ok('deliveries_retry', { ids: [attempt], plan_id: retryPlan.plan_id });
    expect(retried).toMatchObject({ event: 'invoice.paid', status: 'failed' });
    expect(((await cliJson(['deliveries', 'list', ids.down!])) as { data: Array<{ id: string }> }).data[0]!.id).toBe(retried.id);

    const deletePlan = await ok('webhooks_delete', { id: created.id });
    expect(await ok('webhooks_delete', { id: created.id, plan_id: deletePlan.plan_id })).toEqual({ id: created.id, deleted: true });
    expect((await cli(['webhooks', 'get', created.id])).code).toBe(5);
  });

  it('answers a bad input with a tool error in the command line words, and goes on answering', async () => {
    expect(await refused('webhooks_list', { limit: 500 })).toBe(
      "whsvc: webhooks_list: limit 500: too big: expected number to be <=200\nhint: the tool's input schema (tools/list) says what each argument takes",
    );
    expect(await refused('webhooks_get', { id: 3 })).toMatch(/^whsvc: webhooks_get: id 3: invalid input: expected string, received number/);
    expect(await refused('webhooks_get', { id: 'webhook-events' })).toMatch(/"webhook-events" is not a webhook id: it is the path of the event catalog/);
    expect(await refused('webhooks_get', { id: 'wh_a05…69e3' })).toMatch(
      /^whsvc: webhooks_get: id "wh_a05…69e3": "wh_a05…69e3" is an id in the short form tables show/,
    );
    expect(await refused('webhooks_list', { colour: 'red' })).toMatch(/unrecognized key: "colour"/);
    expect(await refused('webhooks_get', { id: 'dlv_nope' })).toBe(
      'whsvc: no webhook with id dlv_nope (HTTP 404 not_found)\nhint: dlv_nope is a delivery id: whsvc deliveries show dlv_nope',
    );
    expect(await refused('sandbox_trigger', { event_type: 'invoice.payd' })).toMatch(/did you mean invoice\.paid\?/);
    const error = (await call('webhooks_create', { url: 'http://example.com/x', events: ['invoice.paid'] })).structuredContent;
    expect(error).toEqual({
      error: {
        status: null,
        code: 'usage',
        message: expect.stringMatching(/^url "http:\/\/example.com\/x": the URL must use https/),
        hint: null,
        exit_code: 2,
      },
    });
    server.write('this line is not JSON-RPC');
    server.write('{"jsonrpc":"2.0","method":42}');
    expect(await ok('events_list')).toHaveProperty('data');
  });

  it('writes nothing but the protocol on stdout, and no secret in any result nor on stderr', async () => {
    for (const line of server.stdout().split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    const token = (await cli(['auth', 'token'])).stdout.trim();
    expect(token.length).toBeGreaterThan(8);
    const everything = [...seen, server.stderr()].join('\n');
    expect(everything).toContain(ids.down);
    for (const secret of [sandbox.info.client_secret, sandbox.info.readonly_client_secret, token, downSecret, ...secretsToLookFor]) {
      expect(everything.includes(secret), `a secret (${secret.slice(0, 6)}…) came out`).toBe(false);
    }
  });
});
