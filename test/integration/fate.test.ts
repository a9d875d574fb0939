import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Fate } from '../../src/protocol/fate.js';
import type { InspectorDelivery, InspectorDeliveryPage, InspectorOverview } from '../../src/sandbox/inspector/types.js';
import { clockTime, fateSentence, fateWords } from '../../src/render/words.js';
import { shortId } from '../../src/render/width.js';
import { createWebhook, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// A delivery's fate, said the same in every place a user reads it (issue 44): `deliveries show`, `deliveries list`,
// `deliveries tail`, `deliveries recover`, the inspector and the sandbox's log. Three deliveries on a manual clock,
// retries 1 s apart, at most 3 automatic attempts:
//   delivered  its receiver fails the first 2 attempts: delivered by attempt 3
//   ran out    its receiver always fails: failed · no more retries after attempt 3
//   due        its receiver always fails, its clock not moved on: failed · retry due (1 s after its first attempt)

interface Attempt {
  id: string;
  status: string;
  attempts: number;
  created_at: string;
  delivery_id: string;
  next_attempt_at: string | null;
}

let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;
const hooks: Record<'delivered' | 'ranOut' | 'due', { id: string; delivery: string; log: Attempt[] }> = {} as never;
/** The sandbox's now, its clock still. */
let now: number;

const env = () => sandboxEnv(sandbox.info, join(workDir, 'config'));
const cli = inProcessCliWith(env);
/** Its stdout, once it ended with exit 0; on a terminal `columns` wide when given. */
const ok = async (args: string[], columns?: number) => {
  const result = columns === undefined ? await cli(args) : await runInProcess(args, { env: env(), terminal: { columns } });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};
const logOf = async (webhook: string) => JSON.parse(await ok(['deliveries', 'list', webhook, '--json'])).data as Attempt[];

/** The words every place must say. */
const words = () => ({
  deliveredBy: `delivered by attempt 3 at ${clockTime(hooks.delivered.log[0]!.created_at, now)}`,
  ranOut: 'failed · no more retries',
  due: `failed · retry due ${clockTime(hooks.due.log[0]!.next_attempt_at!, now)}`,
});

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-fate-'));
  let delivering = 0;
  receiver = await startReceiver((request) => (request.path === '/delivered' && ++delivering > 2 ? 200 : 500));
  sandbox = await startSandboxInProcess(['--clock', 'manual', '--retry-base-ms', '1s', '--max-attempts', '3']);
  const events = { delivered: 'invoice.paid', ranOut: 'product.updated', due: 'sales_order.created' } as const;
  for (const [name, event] of Object.entries(events) as Array<[keyof typeof events, string]>) {
    hooks[name] = { id: (await createWebhook(cli, `${receiver.url}/${name}`, event)).id, delivery: '', log: [] };
  }
  hooks.delivered.delivery = (await trigger(cli, 'invoice.paid'))[0]!;
  hooks.ranOut.delivery = (await trigger(cli, 'product.updated'))[0]!;
  // Every retry of those two, played out: the jump returns once each attempt inside it has ended.
  await ok(['sandbox', 'clock', 'advance', '10s']);
  hooks.due.delivery = (await trigger(cli, 'sales_order.created'))[0]!;
  for (const hook of Object.values(hooks)) {
    hook.log = await vi.waitFor(
      async () => {
        const log = await logOf(hook.id);
        expect(log.length > 0 && log.every((a) => a.status !== 'pending'), JSON.stringify(log)).toBe(true);
        return log;
      },
      { timeout: 20_000, interval: 50 },
    );
  }
  expect(hooks.delivered.log.map((a) => `${a.attempts} ${a.status}`)).toEqual(['3 delivered', '2 failed', '1 failed']);
  expect(hooks.ranOut.log.map((a) => `${a.attempts} ${a.status}`)).toEqual(['3 failed', '2 failed', '1 failed']);
  expect(hooks.due.log.map((a) => `${a.attempts} ${a.status}`)).toEqual(['1 failed']);
  now = Date.parse(JSON.parse(await ok(['sandbox', 'clock', '--json'])).now);
});

afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe("a delivery's fate, one wording everywhere", () => {
  it('deliveries show: an earlier attempt says its own status and the fate; the newest says the fate as its status', async () => {
    const { deliveredBy, ranOut, due } = words();
    const first = await ok(['deliveries', 'show', hooks.delivered.delivery]);
    expect(first).toMatch(/^status +failed$/m);
    expect(first).toMatch(new RegExp(`^fate +${deliveredBy}$`, 'm'));
    expect(first).toMatch(new RegExp(`^delivery +${hooks.delivered.delivery} #1$`, 'm'));
    expect(await ok(['deliveries', 'show', hooks.ranOut.delivery])).toMatch(new RegExp(`^fate +${ranOut}$`, 'm'));
    expect(await ok(['deliveries', 'show', hooks.ranOut.log[0]!.id])).toMatch(new RegExp(`^status +${ranOut}$`, 'm'));
    expect(await ok(['deliveries', 'show', hooks.due.delivery])).toMatch(new RegExp(`^status +${due}$`, 'm'));
    // --json is the service's answer alone.
    expect(Object.keys(JSON.parse(await ok(['deliveries', 'show', hooks.delivered.delivery, '--json'])))).not.toContain('fate');
  });

  it('deliveries list at 80 columns: each row named by its delivery and number (short where a wide status needs the room), the newest saying the fate', async () => {
    const { ranOut } = words();
    const rows = async (hook: keyof typeof hooks) => (await ok(['deliveries', 'list', hooks[hook].id], 80)).trimEnd().split('\n').slice(1);
    const short = (hook: keyof typeof hooks) => shortId(hooks[hook].delivery);
    expect(await rows('ranOut')).toEqual([
      expect.stringMatching(new RegExp(`^${short('ranOut')} #3 .* ${ranOut} +500 `)),
      expect.stringMatching(new RegExp(`^${short('ranOut')} #2 .* failed +500 `)),
      expect.stringMatching(new RegExp(`^${short('ranOut')} #1 .* failed +500 `)),
    ]);
    // Statuses narrower than `failed · no more retries` leave room for the id whole (issue 44).
    expect((await rows('delivered'))[0]).toMatch(new RegExp(`^${hooks.delivered.delivery} #3 .* delivered +200 `));
    expect((await rows('due'))[0]).toMatch(new RegExp(`^${hooks.due.delivery} #1 .* failed · retry due +500 `));
  });

  it('deliveries tail: the newest attempt of each delivery says its fate, the earlier ones their own status', async () => {
    const { ranOut, due } = words();
    const tail = await runInProcess(['deliveries', 'tail', '--since', '1h', '--interval', '200ms', '--count', '7'], { env: env() });
    expect(tail.code, tail.stderr).toBe(0);
    const line = (hook: keyof typeof hooks, n: number) => tail.stdout.split('\n').find((l) => l.includes(` ${hooks[hook].delivery} #${n}`)) ?? '';
    expect(line('ranOut', 3)).toContain(`  ${ranOut}  `);
    expect(line('ranOut', 2)).toMatch(/ {2}failed {2,}500 /);
    expect(line('delivered', 3)).toMatch(/ {2}delivered {2,}200 /);
    expect(line('delivered', 2)).toMatch(/ {2}failed {2,}500 /);
    expect(line('due', 1)).toContain(`  ${due}  `);
  });

  it('deliveries recover: its dry run and its summary say what follows each', async () => {
    const { ranOut } = words();
    const dryRun = await ok(['deliveries', 'recover', '--webhook', hooks.ranOut.id, '--dry-run'], 132);
    expect(dryRun).toMatch(new RegExp(`^${hooks.ranOut.delivery} .* ${ranOut} `, 'm'));
    const recovered = await cli(['deliveries', 'recover', '--webhook', hooks.ranOut.id, '--yes']);
    expect(recovered.code, recovered.stderr).toBe(1);
    expect(recovered.stdout).toContain('Re-sent 1 delivery: 0 delivered, 1 failed again');
    expect(recovered.stdout).toMatch(new RegExp(`^Failed again, now: 1 ${ranOut}$`, 'm'));
  });

  it("the inspector's views carry the fate, said in the same words", async () => {
    const { deliveredBy, ranOut, due } = words();
    const get = async <T>(path: string): Promise<T> => {
      const answer = await fetch(`${sandbox.info.base_url}/_sandbox/inspector/api${path}`);
      expect(answer.status).toBe(200);
      return (await answer.json()) as T;
    };
    const sandboxNow = Date.parse((await get<InspectorOverview>('/overview')).sandbox.now);
    const fateOf = async (hook: keyof typeof hooks): Promise<Fate> => (await get<InspectorDelivery>(`/deliveries/${hooks[hook].delivery}`)).fate!;
    expect(fateSentence(await fateOf('delivered'), sandboxNow)).toBe(deliveredBy);
    expect(fateWords(await fateOf('ranOut'), sandboxNow)).toBe(ranOut);
    expect(fateWords(await fateOf('due'), sandboxNow)).toBe(due);
    // The list's rows, told from each delivery's newest attempt, the same.
    const listed = async (hook: keyof typeof hooks) => (await get<InspectorDeliveryPage>(`/deliveries?webhook=${hooks[hook].id}`)).data[0]!.fate!;
    expect(fateSentence(await listed('delivered'), sandboxNow)).toBe(deliveredBy);
    expect(fateWords(await listed('due'), sandboxNow)).toBe(due);
  });

  it("the sandbox's log says each attempt's fate as it ends: a retry due, then no more retries after the last", () => {
    const { ranOut } = words();
    const line = (n: number) =>
      sandbox
        .stderr()
        .split('\n')
        .find((l) => l.endsWith(`(${hooks.ranOut.delivery} #${n})`)) ?? '';
    expect(line(3)).toMatch(new RegExp(`^\\S+ ${ranOut} product\\.updated -> \\S+/ranOut `));
    expect(line(2)).toMatch(/^\S+ failed · retry due \S+ product\.updated -> /);
  });
});
