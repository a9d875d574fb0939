import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { CommandDeps } from '../../../../src/cli/context.js';
import { CapturedJson, Secrets, toolResult } from '../../../../src/commands/mcp/call.js';
import { plannedTool } from '../../../../src/commands/mcp/plan-tool.js';
import { fingerprint, PLAN_TTL_MS, PLANS_KEPT, PlanBook, planDigest } from '../../../../src/commands/mcp/plans.js';
import { CliError } from '../../../../src/cli/errors.js';

const ACCOUNT = 'http://127.0.0.1:4010 client_1';

describe('PlanBook', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'whsvc-plans-')), 'mcp-plans');
  });
  afterEach(() => rmSync(dirname(dir), { recursive: true, force: true }));

  const refusal = (take: () => unknown): CliError => {
    try {
      take();
    } catch (caught) {
      return caught as CliError;
    }
    throw new Error('not refused');
  };

  it('gives a plan back once, to the tool that made it, for the same arguments in any key order, before it expires', () => {
    let now = 1_000;
    const book = new PlanBook(dir, ACCOUNT, () => now);
    const plan = book.keep('webhooks_delete', { id: 'wh_1', also: [1, 2] }, { read: 1 }, 'wh_1', undefined);
    expect(plan.id).toMatch(/^plan_[\w-]{16}$/);
    expect(plan.expiresAt).toBe(1_000 + PLAN_TTL_MS);
    expect(() => book.take(plan.id, 'webhooks_update', { id: 'wh_1', also: [1, 2] })).toThrow(/made by webhooks_delete, not webhooks_update/);
    expect(() => book.take(plan.id, 'webhooks_delete', { id: 'wh_2', also: [1, 2] })).toThrow(/made for other arguments/);
    expect(book.take(plan.id, 'webhooks_delete', { also: [1, 2], id: 'wh_1', none: undefined }).steps).toBe(planDigest(plan.id, 'wh_1'));
    expect(() => book.take(plan.id, 'webhooks_delete', { id: 'wh_1', also: [1, 2] })).toThrow(/carried out already/);

    const late = book.keep('webhooks_delete', { id: 'wh_1' }, {}, 'wh_1', undefined);
    now += PLAN_TTL_MS + 60_000;
    const error = refusal(() => book.take(late.id, 'webhooks_delete', { id: 'wh_1' }));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toMatch(/expired 1 min ago .*nothing was changed/);
    expect(error.hint).toBe('call webhooks_delete without plan_id to plan it again');
  });

  it('keeps each plan in a file of its own (0600), which a book made after it (a server started again) carries out once', () => {
    const now = () => 1_000;
    const plan = new PlanBook(dir, ACCOUNT, now).keep('deliveries_recover', { since: '2h' }, { read: 1 }, [{ attemptId: 'att_1' }], { until: 5 });
    const file = join(dir, `${plan.id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const restarted = new PlanBook(dir, ACCOUNT, now);
    const taken = restarted.take(plan.id, 'deliveries_recover', { since: '2h' });
    expect(taken).toMatchObject({ steps: planDigest(plan.id, [{ attemptId: 'att_1' }]), fixed: { until: 5 }, fingerprint: plan.fingerprint });
    expect(existsSync(file)).toBe(false);
    const again = refusal(() => new PlanBook(dir, ACCOUNT, now).take(plan.id, 'deliveries_recover', { since: '2h' }));
    expect(again.message).toMatch(
      /^no plan "plan_\S+": it was never made \(plans are kept in .*mcp-plans.*carried out already, or it expired; nothing was changed$/,
    );
  });

  it("refuses another account's plan, an id that is no plan's (no path is looked at), and keeps only the newest", () => {
    let now = 1_000;
    const plan = new PlanBook(dir, ACCOUNT, () => now).keep('webhooks_delete', { id: 'wh_1' }, {}, 'wh_1', undefined);
    expect(() => new PlanBook(dir, 'https://other.example client_2', () => now).take(plan.id, 'webhooks_delete', { id: 'wh_1' })).toThrow(
      /made for another service or client/,
    );
    expect(() => new PlanBook(dir, ACCOUNT, () => now).take('../config', 'webhooks_delete', { id: 'wh_1' })).toThrow(/^no plan "..\/config"/);

    const book = new PlanBook(dir, ACCOUNT, () => now);
    const ids: string[] = [];
    for (let n = 0; n < PLANS_KEPT + 5; n++) {
      now += 1;
      ids.push(book.keep('webhooks_delete', { id: `wh_${n}` }, {}, `wh_${n}`, undefined).id);
    }
    expect(readdirSync(dir)).toHaveLength(PLANS_KEPT);
    expect(() => book.take(ids[0]!, 'webhooks_delete', { id: 'wh_0' })).toThrow(/^no plan/);
    expect(book.take(ids.at(-1)!, 'webhooks_delete', { id: `wh_${PLANS_KEPT + 4}` }).steps).toBe(planDigest(ids.at(-1)!, `wh_${PLANS_KEPT + 4}`));
  });

  it("keeps no URL's password on disk: digests of the arguments and steps, which the second call's must match", () => {
    const book = new PlanBook(dir, ACCOUNT, () => 1_000);
    const url = 'https://agent:pl4n-passw0rd@hooks.example.com/in';
    const args = { url, events: ['invoice.paid'] };
    const plan = book.keep('webhooks_create', args, [{ id: 'wh_9', url }], { url, events: ['invoice.paid'], active: true }, undefined);
    expect(readFileSync(join(dir, `${plan.id}.json`), 'utf8')).not.toMatch(/pl4n-passw0rd|agent:/);
    expect(() => book.take(plan.id, 'webhooks_create', { ...args, url: url.replace('pl4n', 'other') })).toThrow(/made for other arguments/);
    expect(book.take(plan.id, 'webhooks_create', args).steps).toBe(planDigest(plan.id, { url, events: ['invoice.paid'], active: true }));
    // Salted with the plan's id: one digest tells nothing of another plan's same arguments.
    expect(planDigest(plan.id, args)).not.toBe(planDigest('plan_another', args));
  });

  it('refuses a plan an earlier whsvc kept (its arguments themselves, no version) as made by another version, not for other arguments', () => {
    const id = 'plan_AAAAAAAAAAAAAAAA';
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // As whsvc kept a plan before its files held digests: the arguments in canonical JSON, the steps as they were.
    const earlier = {
      id,
      tool: 'webhooks_delete',
      args: '{"id":"wh_1"}',
      expiresAt: 1_000 + PLAN_TTL_MS,
      account: ACCOUNT,
      fingerprint: fingerprint({}),
      steps: 'wh_1',
    };
    writeFileSync(join(dir, `${id}.json`), `${JSON.stringify(earlier)}\n`, { mode: 0o600 });
    const error = refusal(() => new PlanBook(dir, ACCOUNT, () => 1_000).take(id, 'webhooks_delete', { id: 'wh_1' }));
    expect(error.message).toBe(`plan ${id} was made by another version of whsvc, whose plans this one does not read: nothing was changed`);
    expect(error.hint).toBe('call webhooks_delete without plan_id to plan it again');
  });

  it('fingerprints what was read whatever the order of its keys, and any change to it', () => {
    expect(fingerprint({ id: 'wh_1', active: true })).toBe(fingerprint({ active: true, id: 'wh_1' }));
    expect(fingerprint({ id: 'wh_1', active: true })).not.toBe(fingerprint({ id: 'wh_1', active: false }));
  });
});

describe('a planned tool called with its plan_id', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'whsvc-plans-')), 'mcp-plans');
  });
  afterEach(() => rmSync(dirname(dir), { recursive: true, force: true }));

  /** A tool whose plan reads `world.reads` and comes to `world.steps`, and what it carried out. */
  function toolOver(world: { reads: unknown; steps: string }) {
    const carried: string[] = [];
    const tool = plannedTool(z, {
      name: 'webhooks_delete',
      title: 'Delete',
      description: 'a test tool',
      input: z.object({ id: z.string() }),
      plan: async () => ({ shown: world.steps, reads: world.reads, steps: world.steps, fixed: undefined }),
      carryOut: async (steps) => {
        carried.push(steps);
        return { value: { done: steps } };
      },
    });
    const context = { plans: new PlanBook(dir, ACCOUNT, () => 1_000), secretDir: undefined, alone: <T>(work: () => Promise<T>) => work() };
    const call = (args: Record<string, unknown>) => tool.run(args, {} as CommandDeps, context);
    return { call, carried };
  }

  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('not refused');
      },
      (error: CliError) => error,
    );

  it('refuses it when what it read changed, and says otherwise when only what it would do changed', async () => {
    const world = { reads: { active: true }, steps: 'delete wh_1' };
    const { call, carried } = toolOver(world);
    const first = (await call({ id: 'wh_1' })).value as { plan_id: string };
    world.reads = { active: false };
    expect((await rejection(call({ id: 'wh_1', plan_id: first.plan_id }))).message).toMatch(
      /^the account changed since plan plan_\S+ was made \(what it read is not as it was\): nothing was changed$/,
    );

    world.reads = { active: true };
    const second = (await call({ id: 'wh_1' })).value as { plan_id: string };
    world.steps = 'delete wh_1 and more';
    const error = await rejection(call({ id: 'wh_1', plan_id: second.plan_id }));
    expect(error.message).toBe(`what plan ${second.plan_id} would do now differs from the plan shown (what it read is as it was): nothing was changed`);
    expect(error.hint).toBe('call webhooks_delete without plan_id for a new plan');
    expect(carried).toEqual([]);
  });
});

describe('a tool result', () => {
  it('never holds a signing_secret field, the client secret nor a token, in its structured content or its text', () => {
    const secrets = new Secrets('cs_client_secret_1234', () => 'tok_access_token_5678');
    const result = toolResult(
      {
        value: { id: 'wh_1', signing_secret: 'whsec_abcdef', said: 'echo cs_client_secret_1234 and tok_access_token_5678' },
        notes: ['note tok_access_token_5678'],
      },
      secrets,
    );
    const text = JSON.stringify(result);
    for (const secret of ['whsec_abcdef', 'cs_client_secret_1234', 'tok_access_token_5678']) expect(text).not.toContain(secret);
    expect(result.structuredContent).toEqual({ id: 'wh_1', said: 'echo [redacted] and [redacted]' });
  });

  it('keeps the numbers of the service that a double would change, as --json does', () => {
    const json = new CapturedJson();
    json.text('{"attempts":12345678901234567890123}');
    const result = toolResult({ value: json.value }, new Secrets(undefined, () => undefined));
    expect((result.content[0] as { text: string }).text).toContain('12345678901234567890123');
  });
});
