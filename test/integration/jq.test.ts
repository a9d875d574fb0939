import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { runInProcess, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// --jq against the sandbox, both in-process: a real jq over what --json prints. A jq program that never ends, stopped
// by Ctrl-C, takes a process of its own: test/e2e/jq.test.ts.

let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;
let env: Record<string, string>;
const ids: string[] = [];

/** The requests a --debug run sent, as `METHOD path` (the lines that start an exchange). */
const sent = (stderr: string) => [...stderr.matchAll(/^> (\w+) (\S+)$/gm)].map((m) => `${m[1]} ${new URL(m[2]!).pathname}${new URL(m[2]!).search}`);

beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([startSandboxInProcess(['--quiet', '--max-attempts', '1']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-jq-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
  for (let i = 0; i < 5; i++) {
    const created = await runInProcess(
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
    const result = await runInProcess(['webhooks', 'list', '--all', '--limit', '2', '--jq', '.data | length', '--debug'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('5\n');
    expect(sent(result.stderr).filter((line) => line.startsWith('GET /v1/webhooks'))).toHaveLength(3);
  });

  it('strings print raw, one a line, as jq -r', async () => {
    const result = await runInProcess(['webhooks', 'list', '--all', '--jq', '.data[].url'], { env });
    expect(result.stdout.trim().split('\n').sort()).toEqual([0, 1, 2, 3, 4].map((i) => `${receiver.url}/h${i}`));
    const one = await runInProcess(['webhooks', 'get', ids[0]!, '--jq', '{id, events}'], { env });
    expect(one.stdout).toBe(`{"id":"${ids[0]}","events":["invoice.paid"]}\n`);
  });

  it('a bad expression is exit 2 naming the problem, before any request (not even the token)', async () => {
    const result = await runInProcess(['webhooks', 'list', '--jq', '.data | lenght', '--debug'], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('whsvc: --jq ".data | lenght": lenght/0 is not defined (line 1, column 9)');
    expect(sent(result.stderr)).toEqual([]);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it("jq's runtime error is said on stderr, exit 1", async () => {
    const result = await runInProcess(['webhooks', 'list', '--jq', '.data[0].id | .x'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^whsvc: --jq: Cannot index string with .*"x"/m);
  });

  it("the command's own error keeps its exit code (a 404 is 5)", async () => {
    const result = await runInProcess(['webhooks', 'get', 'wh_nope', '--jq', '.id'], { env });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
  });

  it("listen --json --jq: each delivery's line through the filter as it comes; the address line on stderr, out of the program's way (issue 44)", async () => {
    const secret = join(workDir, 'listen-secret');
    const listen = await startListenInProcess([
      '--secret-file',
      secret,
      '--count',
      '1',
      '--timeout',
      '30',
      '--json',
      '--jq',
      '[.event, .signature_check] | @tsv',
    ]);
    const url = listen.url;
    await listen.until(() => listen.stderr().includes(`${JSON.stringify({ url })}\n`), 'its address line on stderr');
    const created = await runInProcess(
      ['webhooks', 'create', '--url', `${url}/in`, '--events', 'sales_order.created', '--secret-file', secret, '--json', '--jq', '.id'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^wh_\w+\n$/);
    expect((await runInProcess(['sandbox', 'trigger', 'sales_order.created', '--jq', '.type'], { env })).stdout).toBe('sales_order.created\n');
    expect(await listen.exit).toBe(0);
    expect(listen.stdout()).toBe('sales_order.created\tverified\n');
  });

  it('deliveries tail --json --jq: per line', async () => {
    const trigger = await runInProcess(['sandbox', 'trigger', 'invoice.paid'], { env });
    expect(trigger.code, trigger.stderr).toBe(0);
    const tail = await runInProcess(
      ['deliveries', 'tail', '--webhook', ids[0]!, '--since', '1h', '--count', '1', '--timeout', '20', '--interval', '200ms', '--json', '--jq', '.event'],
      { env },
    );
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout.trim().split('\n')[0]).toBe('invoice.paid');
    // A filter that fails makes tail's exit 1, as it does any command's, though tail ends the run on its own path.
    const failing = await runInProcess(
      ['deliveries', 'tail', '--webhook', ids[0]!, '--since', '1h', '--count', '1', '--timeout', '20', '--interval', '200ms', '--jq', 'error("boom")'],
      { env },
    );
    expect(failing.stderr).toContain('whsvc: --jq: boom');
    expect(failing.code).toBe(1);
  });

  it('replay --json --jq: per line, the summary last', async () => {
    const record = join(workDir, 'record.ndjson');
    const secret = join(workDir, 'r-secret');
    const listen = await startListenInProcess(['--secret-file', secret, '--record', record, '--count', '1', '--timeout', '30']);
    const url = listen.url;
    const created = await runInProcess(['webhooks', 'create', '--url', `${url}/r`, '--events', 'product.updated', '--secret-file', secret, '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect((await runInProcess(['sandbox', 'trigger', 'product.updated'], { env })).code).toBe(0);
    expect(await listen.exit).toBe(0);
    expect(readFileSync(record, 'utf8')).toContain('product.updated');
    const replayed = await runInProcess([
      'replay',
      record,
      '--to',
      `${receiver.url}/replayed`,
      '--json',
      '--jq',
      '.replayed.status // "summary \\(.summary.sent)"',
    ]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toBe('200\nsummary 1\n');
  });

  it('without --jq, --json prints the document as before', async () => {
    const result = await runInProcess(['webhooks', 'list', '--json'], { env });
    expect(JSON.parse(result.stdout)).toMatchObject({ has_more: false, next_cursor: null });
  });

  it("$ENV holds no secret of the run's under another name: a profile's client secret, a --secret-file's secret", async () => {
    const { WHSVC_CLIENT_ID: _id, WHSVC_CLIENT_SECRET: _secret, ...rest } = env;
    const profileEnv = { ...rest, WHSVC_CONFIG_DIR: join(workDir, 'profile-config') };
    const login = await runInProcess(['login', '--client-id', sandbox.info.client_id, '--client-secret-stdin'], {
      env: profileEnv,
      input: sandbox.info.client_secret,
    });
    expect(login.code, login.stderr).toBe(0);
    const copies = { COPY_OF_CLIENT: sandbox.info.client_secret, COPY_OF_FILE: 'a-key-of-my-own-0123', PAGER: 'less' };
    const listed = await runInProcess(['webhooks', 'list', '--jq', '$ENV | [.COPY_OF_CLIENT, .PAGER] | join(",")'], { env: { ...profileEnv, ...copies } });
    expect(listed.stdout, listed.stderr).toBe(',less\n');
    const keyFile = join(workDir, 'own.key');
    writeFileSync(keyFile, copies.COPY_OF_FILE);
    const signed = await runInProcess(['sign', '--secret-file', keyFile, '--jq', '$ENV | [.COPY_OF_FILE, .PAGER] | join(",")'], {
      env: { ...env, ...copies },
      input: '{}',
    });
    expect(signed.stdout, signed.stderr).toBe(',less\n');
  });
});
