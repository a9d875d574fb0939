import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, runCli, sandboxEnv, startSandboxProcess, startWhsvcUntil, type SandboxProcess } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// --jq against the real sandbox, through the built binary: a real jq over what --json prints.

let sandbox: SandboxProcess;
let receiver: Receiver;
let workDir: string;
let env: Record<string, string>;
const ids: string[] = [];

/** The requests a --debug run sent, as `METHOD path` (the lines that start an exchange). */
const sent = (stderr: string) => [...stderr.matchAll(/^> (\w+) (\S+)$/gm)].map((m) => `${m[1]} ${new URL(m[2]!).pathname}${new URL(m[2]!).search}`);

beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([startSandboxProcess(['--quiet', '--max-attempts', '1']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-jq-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
  for (let i = 0; i < 5; i++) {
    const created = await runCli(
      ['webhooks', 'create', '--url', `${receiver.url}/h${i}`, '--events', 'invoice.paid', '--secret-file', join(workDir, `s${i}`), '--json'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    ids.push(JSON.parse(created.stdout).id);
  }
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), receiver?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

describe('--jq', () => {
  it("webhooks list --all --jq '.data | length' counts over every page (three pages of two, here)", async () => {
    const result = await runCli(['webhooks', 'list', '--all', '--limit', '2', '--jq', '.data | length', '--debug'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('5\n');
    expect(sent(result.stderr).filter((line) => line.startsWith('GET /v1/webhooks'))).toHaveLength(3);
  });

  it('strings print raw, one a line, as jq -r', async () => {
    const result = await runCli(['webhooks', 'list', '--all', '--jq', '.data[].url'], { env });
    expect(result.stdout.trim().split('\n').sort()).toEqual([0, 1, 2, 3, 4].map((i) => `${receiver.url}/h${i}`));
    const one = await runCli(['webhooks', 'get', ids[0]!, '--jq', '{id, events}'], { env });
    expect(one.stdout).toBe(`{"id":"${ids[0]}","events":["invoice.paid"]}\n`);
  });

  it('a bad expression is exit 2 naming the problem, before any request (not even the token)', async () => {
    const result = await runCli(['webhooks', 'list', '--jq', '.data | lenght', '--debug'], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('whsvc: --jq ".data | lenght": lenght/0 is not defined (line 1, column 9)');
    expect(sent(result.stderr)).toEqual([]);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it("jq's runtime error is said on stderr, exit 1", async () => {
    const result = await runCli(['webhooks', 'list', '--jq', '.data[0].id | .x'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^whsvc: --jq: Cannot index string with .*"x"/m);
  });

  it("the command's own error keeps its exit code (a 404 is 5)", async () => {
    const result = await runCli(['webhooks', 'get', 'wh_nope', '--jq', '.id'], { env });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
  });

  it('listen --json --jq: each line through the filter as it comes (its address line first)', async () => {
    const secret = join(workDir, 'listen-secret');
    const listen = await startWhsvcUntil(
      [
        'listen',
        '--port',
        '0',
        '--secret-file',
        secret,
        '--count',
        '1',
        '--timeout',
        '30',
        '--json',
        '--jq',
        'if .url then "at " + .url else [.event, .signature_check] | @tsv end',
      ],
      /ready at (http:\/\/\S+)/,
      'listen',
    );
    const url = /ready at (http:\/\/\S+)/.exec(listen.stderr())![1]!;
    await expect.poll(() => listen.stdout(), { timeout: 10_000 }).toBe(`at ${url}\n`);
    const created = await runCli(
      ['webhooks', 'create', '--url', `${url}/in`, '--events', 'sales_order.created', '--secret-file', secret, '--json', '--jq', '.id'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^wh_\w+\n$/);
    expect((await runCli(['sandbox', 'trigger', 'sales_order.created', '--jq', '.type'], { env })).stdout).toBe('sales_order.created\n');
    expect(await listen.exit).toBe(0);
    expect(listen.stdout()).toBe(`at ${url}\nsales_order.created\tverified\n`);
  });

  it('deliveries tail --json --jq: per line', async () => {
    const trigger = await runCli(['sandbox', 'trigger', 'invoice.paid'], { env });
    expect(trigger.code, trigger.stderr).toBe(0);
    const tail = await runCli(
      ['deliveries', 'tail', '--webhook', ids[0]!, '--since', '1h', '--count', '1', '--timeout', '20', '--interval', '200ms', '--json', '--jq', '.event'],
      { env },
    );
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout.trim().split('\n')[0]).toBe('invoice.paid');
  });

  it('replay --json --jq: per line, the summary last', async () => {
    const record = join(workDir, 'record.ndjson');
    const secret = join(workDir, 'r-secret');
    const listen = await startWhsvcUntil(
      ['listen', '--port', '0', '--secret-file', secret, '--record', record, '--count', '1', '--timeout', '30'],
      /ready at (http:\/\/\S+)/,
      'listen',
    );
    const url = /ready at (http:\/\/\S+)/.exec(listen.stderr())![1]!;
    const created = await runCli(['webhooks', 'create', '--url', `${url}/r`, '--events', 'product.updated', '--secret-file', secret, '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect((await runCli(['sandbox', 'trigger', 'product.updated'], { env })).code).toBe(0);
    expect(await listen.exit).toBe(0);
    expect(readFileSync(record, 'utf8')).toContain('product.updated');
    const replayed = await runCli(['replay', record, '--to', `${receiver.url}/replayed`, '--json', '--jq', '.replayed.status // "summary \\(.summary.sent)"']);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toBe('200\nsummary 1\n');
  });

  it('a jq program that never ends still stops at Ctrl-C (jq holds the thread: the system ends the process)', async () => {
    const child = spawn(process.execPath, [WHSVC_BIN, 'webhooks', 'list', '--jq', 'last(range(1e18))'], { env: { ...process.env, ...env } });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
    // Inside jq for sure once the process has spent a second of CPU: starting and the request take a fraction of that.
    const cpuSeconds = () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    await expect.poll(cpuSeconds, { timeout: 60_000, interval: 50 }).toBeGreaterThan(1);
    child.kill('SIGINT');
    expect(await exited).toEqual({ code: null, signal: 'SIGINT' });
  });

  it('without --jq, --json prints the document as before', async () => {
    const result = await runCli(['webhooks', 'list', '--json'], { env });
    expect(JSON.parse(result.stdout)).toMatchObject({ has_more: false, next_cursor: null });
  });
});
