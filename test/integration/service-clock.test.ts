import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, sandboxEnv, trigger, type Cli } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// One clock and one vocabulary: times are counted from the service's now (its
// Date header), and a failed delivery whose automatic retry is scheduled says
// "failed · retry due HH:MM:SS" in the CLI, the sandbox's log and the inspector.

let workDir: string;
let sandbox: SandboxInProcess;
let receiver: Receiver;
let cli: Cli;

const MINUTE = 60_000;
/** A local time of day as `toTimeString` writes it, independently of the code under test. */
const timeOfDay = (iso: string) => new Date(iso).toTimeString().slice(0, 8);

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-service-clock-'));
  sandbox = await startSandboxInProcess(['--clock', 'manual', '--retry-base-ms', String(MINUTE), '--max-attempts', '3']);
  receiver = await startReceiver(() => 500);
  const configDir = mkdtempSync(join(workDir, 'config-'));
  cli = inProcessCliWith(sandboxEnv(sandbox.info, configDir));
});

afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
  rmSync(workDir, { recursive: true, force: true });
});

async function inspectorOverview(): Promise<{ webhooks: Array<{ id: string; deliveries: Record<string, number> }> }> {
  const response = await fetch(new URL('/_sandbox/inspector/api/overview', sandbox.info.base_url));
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

describe("one clock (the service's) and one word for each state", () => {
  it('a failed delivery with its retry scheduled reads "failed · retry due" everywhere; times count from the moved clock', async () => {
    const webhookId = (await createWebhook(cli, `${receiver.url}/fail`, 'invoice.paid', ['--secret-file', join(workDir, 'whsec.txt')])).id;
    await trigger(cli);
    await receiver.waitFor(1);

    // The API: the newest attempt of the failed delivery says when its automatic retry is due.
    let first: Record<string, any> | undefined;
    await expect
      .poll(async () => {
        const listed = await cli(['deliveries', 'list', webhookId, '--json']);
        first = JSON.parse(listed.stdout).data[0];
        return first?.status;
      })
      .toBe('failed');
    expect(Date.parse(first!.next_attempt_at) - Date.parse(first!.created_at)).toBe(MINUTE);
    const due = timeOfDay(first!.next_attempt_at);

    // deliveries show, the sandbox's own log and the inspector use the same words.
    const shown = await cli(['deliveries', 'show', first!.id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^status\\s+failed · retry due ${due}$`, 'm'));
    const logLine = `failed · retry due ${due} invoice.paid -> ${receiver.url}/fail`;
    await sandbox.until(() => sandbox.stderr().includes(logLine), `its log line ${logLine}`);
    const before = (await inspectorOverview()).webhooks.find((w) => w.id === webhookId)!;
    expect(before.deliveries).toEqual({ total: 1, delivered: 0, failed: 1, pending: 0, retry_due: 1 });

    const health = await cli(['webhooks', 'health', webhookId, '--json']);
    expect(JSON.parse(health.stdout).webhooks[0]).toMatchObject({ failed: 1, retry_due: 1, pending: 0 });

    // Three days on the sandbox's clock: the retries play out, the last one has none due.
    const advanced = await cli(['sandbox', 'clock', 'advance', '3d']);
    expect(advanced.code, advanced.stderr).toBe(0);
    const listed = JSON.parse((await cli(['deliveries', 'list', webhookId, '--json'])).stdout).data as Array<Record<string, any>>;
    expect(listed.map((a) => [a.attempts, a.status, a.next_attempt_at])).toEqual([
      [3, 'failed', null],
      [2, 'failed', null],
      [1, 'failed', null],
    ]);
    const after = (await inspectorOverview()).webhooks.find((w) => w.id === webhookId)!;
    expect(after.deliveries).toEqual({ total: 1, delivered: 0, failed: 1, pending: 0, retry_due: 0 });

    // Relative times count from the sandbox's now (three days on), not this machine's.
    const webhook = await cli(['webhooks', 'get', webhookId]);
    expect(webhook.stdout).toMatch(/^created\s+3 days ago \(/m);
    // The newest attempt of a delivery with no retry due: its retries ran out.
    const last = await cli(['deliveries', 'show', listed[0]!.id]);
    expect(last.stdout).toMatch(/^status\s+failed · no more retries$/m);
    expect(last.stdout).toMatch(/^created\s+3 days ago \(/m);
  });

  it("a tail's checkpoint, saved on the moved clock, reads as saved just now when the tail starts again (not hours ahead)", async () => {
    const checkpoint = join(workDir, 'tail.json');
    const tail = (...since: string[]) => cli(['deliveries', 'tail', ...since, '--count', '1', '--checkpoint', checkpoint, '--timeout', '20']);
    await trigger(cli);
    expect((await tail('--since', '5d')).code).toBe(0);
    await trigger(cli);
    // No --since: nothing before this line has asked the service anything.
    const again = await tail();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^whsvc: catching up from the checkpoint \S+ \(saved (now|\d+ seconds? ago), /m);
  });
});
