import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { shortId } from '../../src/render/width.js';
import { createWebhook, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// `webhooks health` against the sandbox in-process (manual clock: every time in the
// log is known) and real receivers whose answers the test decides:
//   ok     answers 200
//   down   answers 500
//   mixed  fails the first attempt of the first event (500) and takes the retry,
//          takes the next two events, then answers 503
//   slow   holds its answer until the test lets it go (a delivery in flight: pending)
//   idle   subscribed to an event never triggered

let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;
let configDir: string;
let mixedMode: 'first-fails' | 'ok' | 'down' = 'first-fails';
let slowUrl: string;
let token: string;
const ids: Record<string, string> = {};
/** The sandbox's time when the test began: everything in the log is at t0 + a known offset. */
let t0: number;

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const iso = (offset: number) => new Date(t0 + offset).toISOString();

/** whsvc as the user of the sandbox. */
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, configDir));

async function cliJson(args: string[], exitCode = 0) {
  const result = await cli([...args, '--json']);
  expect(result.code, result.stderr).toBe(exitCode);
  return JSON.parse(result.stdout);
}

/** A webhook's attempt log, straight from the service. */
async function attempts(webhookId: string): Promise<Array<{ status: string }>> {
  const response = await fetch(`${sandbox.info.base_url}/v1/webhooks/${webhookId}/deliveries?limit=200`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Array<{ status: string }> }).data;
}

/** Waits until each webhook's log holds `count` attempts, none of them in flight. */
async function settled(expected: Record<string, number>, timeout = 30_000): Promise<void> {
  await vi.waitFor(
    async () => {
      const logs = await Promise.all(Object.entries(expected).map(async ([name, count]) => ({ name, count, log: await attempts(ids[name]!) })));
      const summary = JSON.stringify(logs.map(({ name, count, log }) => [name, count, log.map((a) => a.status)]));
      expect(
        logs.every(({ count, log }) => log.length === count && log.every((a) => a.status !== 'pending')),
        `logs not settled: ${summary}`,
      ).toBe(true);
    },
    { timeout, interval: 50 },
  );
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-health-'));
  configDir = mkdtempSync(join(workDir, 'config-'));
  [sandbox, receiver] = await Promise.all([
    // A long delivery timeout keeps the slow delivery pending; a day-long token outlives the clock's jump.
    startSandboxInProcess(['--quiet', '--clock', 'manual', '--max-attempts', '3', '--delivery-timeout-ms', '120000', '--token-ttl', '86400']),
    startReceiver((request) => {
      if (request.path === '/slow') return 'hold';
      if (request.path === '/ok') return 200;
      if (request.path === '/mixed') {
        if (mixedMode === 'first-fails') return request.headers['x-service-attempt'] === '1' ? 500 : 200;
        return mixedMode === 'ok' ? 200 : 503;
      }
      return 500;
    }),
  ]);
  slowUrl = `${receiver.url}/slow`;
  token = (await cli(['auth', 'token'])).stdout.trim();
  for (const [name, url, events] of [
    ['ok', `${receiver.url}/ok`, 'invoice.paid'],
    ['down', `${receiver.url}/down`, 'invoice.paid'],
    ['mixed', `${receiver.url}/mixed`, 'invoice.paid'],
    ['slow', slowUrl, 'sales_order.created'],
    ['idle', `${receiver.url}/idle`, 'product.updated'],
  ] as const) {
    ids[name] = (await createWebhook(cli, url, events)).id;
  }
  t0 = Date.parse((await cliJson(['sandbox', 'clock'])).now);

  // At t0: one event. ok takes it; down and mixed fail their first attempt.
  await trigger(cli, 'invoice.paid');
  await settled({ ok: 1, down: 1, mixed: 1 });
  // An hour on: the retries play out. down fails at 5 s and 15 s (3 attempts, the most); mixed is taken at 5 s.
  const moved = await cliJson(['sandbox', 'clock', 'advance', '1h']);
  expect(moved).toMatchObject({ sent: 3, delivered: 1, failed: 2 });
  await settled({ ok: 1, down: 3, mixed: 2 });
  // At t0 + 1 h: two events mixed takes, then two it refuses (503); down refuses all (their retries are left due).
  mixedMode = 'ok';
  await trigger(cli, 'invoice.paid');
  await trigger(cli, 'invoice.paid');
  await settled({ ok: 3, down: 5, mixed: 4 });
  mixedMode = 'down';
  await trigger(cli, 'invoice.paid');
  await trigger(cli, 'invoice.paid');
  await settled({ ok: 5, down: 7, mixed: 6 });
  // And one delivery in flight to slow.
  await trigger(cli, 'sales_order.created');
  await vi.waitFor(() => expect(receiver.held(), 'the slow receiver got nothing').toBeGreaterThan(0), { timeout: 30_000, interval: 50 });
});

afterAll(async () => {
  receiver?.release();
  await sandbox?.stop();
  await receiver?.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** The figures of a webhook with no deliveries in the window. */
const NOTHING = {
  deliveries: 0,
  delivered: 0,
  failed: 0,
  retry_due: 0,
  pending: 0,
  delivered_share: null,
  failed_share: null,
  pending_share: null,
  last_delivered_at: null,
  last_failed_at: null,
  last_failure_code: null,
  failing_streak: 0,
  healthy: true,
  health: 'no_data',
};

describe('webhooks health against the sandbox', () => {
  it('--json: the figures of the log built above, worst first', async () => {
    // Unhealthy webhooks among them: exit 1.
    const result = await cliJson(['webhooks', 'health'], 1);
    // 24 hours back from the sandbox's now (its clock was moved on an hour), not this machine's: its Date header counts whole seconds.
    const sandboxNow = Date.parse((await cliJson(['sandbox', 'clock'])).now);
    expect(Math.abs(sandboxNow - 24 * HOUR - Date.parse(result.since))).toBeLessThan(2000);
    // No --fail-under: the default, 95%.
    expect(result.fail_under).toBe(0.95);
    const url = (path: string) => `${receiver.url}${path}`;
    expect(result.webhooks).toEqual([
      {
        id: ids.down,
        url: url('/down'),
        active: true,
        deliveries: 5,
        delivered: 0,
        failed: 5,
        // One of the five used its three attempts; the others have their next one due.
        retry_due: 4,
        pending: 0,
        delivered_share: 0,
        failed_share: 1,
        pending_share: 0,
        last_delivered_at: null,
        last_failed_at: iso(HOUR),
        last_failure_code: 500,
        failing_streak: 5,
        healthy: false,
        health: 'unhealthy',
      },
      {
        id: ids.mixed,
        url: url('/mixed'),
        active: true,
        // 6 attempts, 5 deliveries: the first was taken on its retry.
        deliveries: 5,
        delivered: 3,
        failed: 2,
        retry_due: 2,
        pending: 0,
        delivered_share: 0.6,
        failed_share: 0.4,
        pending_share: 0,
        last_delivered_at: iso(HOUR),
        last_failed_at: iso(HOUR),
        last_failure_code: 503,
        failing_streak: 2,
        healthy: false,
        health: 'unhealthy',
      },
      {
        id: ids.slow,
        url: slowUrl,
        active: true,
        deliveries: 1,
        delivered: 0,
        failed: 0,
        retry_due: 0,
        pending: 1,
        delivered_share: 0,
        failed_share: 0,
        pending_share: 1,
        last_delivered_at: null,
        last_failed_at: null,
        last_failure_code: null,
        failing_streak: 0,
        // Its one delivery in flight: none delivered yet, under the default 95%.
        healthy: false,
        health: 'unhealthy',
      },
      {
        id: ids.ok,
        url: url('/ok'),
        active: true,
        deliveries: 5,
        delivered: 5,
        failed: 0,
        retry_due: 0,
        pending: 0,
        delivered_share: 1,
        failed_share: 0,
        pending_share: 0,
        last_delivered_at: iso(HOUR),
        last_failed_at: null,
        last_failure_code: null,
        failing_streak: 0,
        healthy: true,
        health: 'healthy',
      },
      { id: ids.idle, url: url('/idle'), active: true, ...NOTHING },
    ]);
  });

  it('--since: a delivery counts when its newest attempt is in the window', async () => {
    const figures = async (since: number) => {
      const result = await cliJson(['webhooks', 'health', ids.ok!, ids.down!, ids.mixed!, '--since', iso(since)], 1);
      expect(result.since).toBe(iso(since));
      return Object.fromEntries(result.webhooks.map((w: Record<string, unknown>) => [w.id, [w.deliveries, w.delivered, w.failed]]));
    };
    // From 3 s: ok's first delivery (t0) is out; down's and mixed's first are in (their newest attempts: 15 s and 5 s).
    expect(await figures(3 * SECOND)).toEqual({ [ids.ok!]: [4, 4, 0], [ids.down!]: [5, 0, 5], [ids.mixed!]: [5, 3, 2] });
    // From 10 s: mixed's first (taken at 5 s) is out; down's, retried last at 15 s, still in.
    expect(await figures(10 * SECOND)).toEqual({ [ids.ok!]: [4, 4, 0], [ids.down!]: [5, 0, 5], [ids.mixed!]: [4, 2, 2] });
    // From half an hour: only the four events at t0 + 1 h.
    expect(await figures(HOUR / 2)).toEqual({ [ids.ok!]: [4, 4, 0], [ids.down!]: [4, 0, 4], [ids.mixed!]: [4, 2, 2] });
  });

  it('in a pipe: tab-separated rows worst first, ISO times; exit 1 with one line naming the unhealthy', async () => {
    const result = await cli(['webhooks', 'health']);
    expect(result.code, result.stderr).toBe(1);
    // Each named with why (the HEALTH column says only unhealthy).
    expect(result.stderr).toBe(
      `whsvc: 3 webhooks are unhealthy:\n  ${ids.down}: its newest 5 deliveries failed; 0% delivered, under 95%\n` +
        `  ${ids.mixed}: its newest 2 deliveries failed; 60% delivered, under 95%\n  ${ids.slow}: 0% delivered, under 95%\n`,
    );
    const rows = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows.map((row) => row[0])).toEqual([ids.down, ids.mixed, ids.slow, ids.ok, ids.idle]);
    expect(rows[1]).toEqual([ids.mixed, `${receiver.url}/mixed`, 'active', '5', '0.6', '0.4', '0', '2', iso(HOUR), iso(HOUR), '503', 'unhealthy']);
    expect(rows[4]).toEqual([ids.idle, `${receiver.url}/idle`, 'active', '0', '-', '-', '-', '0', '-', '-', '-', 'no data']);
  });

  it('on a terminal at 80 and 60 columns: each row names its endpoint by URL, its host whole (the id short, DELIVERED left out first), the column in one form', async () => {
    // Two webhooks no event reaches, at hosts too long for the room a URL has beside an id whole.
    const far = (await createWebhook(cli, 'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices', 'product.updated')).id;
    const staging = (await createWebhook(cli, 'https://hooks.staging.example-company.com/api/v2/webhooks/erp/invoices', 'product.updated')).id;
    try {
      const args = ['webhooks', 'health', ids.down!, ids.mixed!, far, staging];
      const port = new URL(receiver.url).port;
      for (const columns of [80, 60]) {
        const result = await inProcessCliWith(() => sandboxEnv(sandbox.info, configDir), { terminal: { columns } })(args);
        const lines = result.stdout.trimEnd().split('\n');
        const shown = `at ${columns}:\n${result.stdout}`;
        expect(result.code, shown).toBe(1);
        for (const line of lines) expect(line.length, shown).toBeLessThanOrEqual(columns);
        // At 60 the delivered share goes, so that the hosts stay whole.
        expect(lines[0], shown).toMatch(columns === 60 ? /^ID +URL +HEALTH$/ : /^ID +URL +HEALTH +DELIVERED$/);
        const row = (id: string) => lines.find((line) => line.startsWith(`${shortId(id)} `)) ?? '';
        const delivered = (share: string) => (columns === 60 ? '' : ` +${share}`);
        // One form down the column: the long hosts keep whole only without `https://`, dropped on every https row;
        // `http://` (sent unencrypted) is always shown.
        expect(
          lines.filter((line) => line.includes('https://')),
          shown,
        ).toEqual([]);
        expect(row(ids.down!), shown).toMatch(new RegExp(`^\\S+ +http://127\\.0\\.0\\.1:${port}/down +unhealthy${delivered('0% of 5')}$`));
        expect(row(ids.mixed!), shown).toMatch(new RegExp(`^\\S+ +http://127\\.0\\.0\\.1:${port}/mixed +unhealthy${delivered('60% of 5')}$`));
        expect(row(far), shown).toMatch(new RegExp(`^\\S+ +hooks\\.production\\.example-company\\.com\\S* +no data${delivered('-')}$`));
        expect(row(staging), shown).toMatch(new RegExp(`^\\S+ +hooks\\.staging\\.example-company\\.com\\S* +no data${delivered('-')}$`));
      }
    } finally {
      for (const id of [far, staging]) expect((await cli(['webhooks', 'delete', id, '--yes'])).code).toBe(0);
    }
  });

  it('--fail-under sets the exit code and names the webhooks below it', async () => {
    const under50 = await cli(['webhooks', 'health', '--fail-under', '50']);
    expect(under50.code).toBe(1);
    expect(under50.stderr).toBe(
      `whsvc: 3 webhooks are unhealthy:\n  ${ids.down}: its newest 5 deliveries failed; 0% delivered, under 50%\n` +
        `  ${ids.mixed}: its newest 2 deliveries failed\n  ${ids.slow}: 0% delivered, under 50%\n`,
    );
    // 3 of 5 is exactly 60%: not below.
    const under60 = await cli(['webhooks', 'health', ids.mixed!, ids.ok!, ids.idle!, '--fail-under', '60%', '--json']);
    expect(under60.code, under60.stderr).toBe(1);
    expect(JSON.parse(under60.stdout).webhooks.map((w: { healthy: boolean }) => w.healthy)).toEqual([false, true, true]);
    const under61 = await cli(['webhooks', 'health', ids.mixed!, ids.ok!, '--fail-under', '61%', '--json']);
    expect(under61.code).toBe(1);
    expect(JSON.parse(under61.stdout).fail_under).toBe(0.61);
    expect(under61.stderr).toBe(`whsvc: 1 webhook is unhealthy: ${ids.mixed} (its newest 2 deliveries failed; 60% delivered, under 61%)\n`);
    expect((await cli(['webhooks', 'health', ids.ok!, ids.idle!, '--fail-under', '100'])).code).toBe(0);
  });

  it('usage errors are exit 2 before any request; an unknown webhook is exit 5', async () => {
    const fraction = await cli(['webhooks', 'health', '--fail-under', '0.95']);
    expect(fraction.code).toBe(2);
    expect(fraction.stderr).toContain('write 95 for 95%');
    expect((await cli(['webhooks', 'health', '--since', 'yesterday'])).code).toBe(2);
    expect((await cli(['webhooks', 'health', 'webhook-events'])).code).toBe(2);
    const unknown = await cli(['webhooks', 'health', ids.ok!, 'wh_000000000000000000000000']);
    expect(unknown.code).toBe(5);
    expect(unknown.stdout).toBe('');
  });

  it('the delivery in flight counts as delivered once it is taken', async () => {
    receiver.release(200);
    await settled({ slow: 1 });
    const result = await cliJson(['webhooks', 'health', ids.slow!]);
    expect(result.webhooks[0]).toMatchObject({ deliveries: 1, delivered: 1, pending: 0, delivered_share: 1, last_delivered_at: iso(HOUR) });
  });
});
