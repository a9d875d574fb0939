import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runInShell } from '../../src/commands/check-receiver/effects.js';
import { createWebhook, listenedDeliveries, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { closeLeftoverReceivers, startReceiver } from '../helpers/receiver.js';
import {
  acceptsEverything,
  actingReceiver,
  correctReceiver,
  failsOnMismatch,
  rejectsRepeatedDeliveryId,
  slowReceiver,
  verifiesReserializedJson,
} from '../helpers/receivers.js';

// The sender's side (issue 36), whsvc in-process against real receivers on 127.0.0.1: send, sign, check-receiver, and
// several secret files in listen, verify and check-receiver. Signatures are checked apart from src/: Python's hmac.

let dir: string;
const SECRET = 'whsec_sender_e2e_0123456789';
const NEW_SECRET = 'whsec_sender_e2e_the_new_one';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-sender-'));
  writeFileSync(join(dir, 'whsec.txt'), `${SECRET}\n`);
  writeFileSync(join(dir, 'new.txt'), `${NEW_SECRET}\n`);
});

// Its receivers are closed when the file ends.
afterAll(async () => {
  await closeLeftoverReceivers();
  rmSync(dir, { recursive: true, force: true });
});

const secretFile = () => join(dir, 'whsec.txt');
const newSecretFile = () => join(dir, 'new.txt');

/** `sha256=` and the hex HMAC-SHA256 of `body` under the secret in `file`, as Python's hmac computes it. */
function pythonSignature(file: string, body: Buffer): string {
  const script =
    'import hmac, hashlib, sys\nkey = open(sys.argv[1], "rb").read().strip()\nprint("sha256=" + hmac.new(key, sys.stdin.buffer.read(), hashlib.sha256).hexdigest())';
  const result = spawnSync('python3', ['-c', script, file], { input: body, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`python3: ${result.stderr}`);
  return result.stdout.trim();
}

/** check-receiver --json against `url`: its exit code, its document, and the numbers of the checks that failed. */
async function checkReceiver(url: string, ...args: string[]) {
  const result = await runInProcess(['check-receiver', url, '--secret-file', secretFile(), '--json', ...args]);
  const document = JSON.parse(result.stdout);
  const failed = (document.checks as Array<{ number: number; result: string }>).filter((c) => c.result === 'fail').map((c) => c.number);
  return { ...result, document, failed, check: (n: number) => document.checks[n - 1] };
}

describe('whsvc send', () => {
  it("delivers the sample with the overrides and the service's headers, signed as Python's hmac computes it over the bytes received", async () => {
    const app = await startReceiver(() => ({ status: 202, body: 'queued' }));
    const result = await runInProcess([
      'send',
      `${app.url}/hooks`,
      '--event',
      'sales_order.created',
      '--set',
      'total.amount=500',
      '--set',
      'total.currency=USD',
      '--set',
      'customer_id=cus_42',
      '--secret-file',
      secretFile(),
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [request] = await app.waitFor(1);
    expect(request!.path).toBe('/hooks');
    expect(JSON.parse(request!.body)).toMatchObject({
      event: 'sales_order.created',
      total: { amount: 500, currency: 'USD' },
      customer_id: 'cus_42',
      line_count: 3,
    });
    expect(request!.headers['x-service-signature']).toBe(pythonSignature(secretFile(), request!.bytes));
    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'x-service-event': 'sales_order.created', 'x-service-attempt': '1' });
    expect(request!.headers['x-service-delivery-id']).toMatch(/^dlv_[0-9a-f]{24}$/);
    expect(request!.headers['x-service-attempt-id']).toBe(request!.headers['x-service-delivery-id']);
    expect(Number.isNaN(Date.parse(String(request!.headers.date)))).toBe(false);
    // What was sent and what came back; never the secret.
    expect(result.stdout).toMatch(/^answer +202 in \d+ ms$/m);
    expect(result.stdout).toMatch(/^answered +queued$/m);
    expect(result.stdout).toContain(request!.headers['x-service-signature']);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('--data @file goes byte for byte; --json says it; --record writes what replay sends again, the same bytes and signature', async () => {
    const app = await startReceiver(() => 200);
    const data = '{ "id": "inv_77",\n  "event": "invoice.paid", "amount": {"amount": 1, "currency": "EUR"} }';
    writeFileSync(join(dir, 'body.json'), data);
    const record = join(dir, 'sent.ndjson');
    const sent = await runInProcess([
      'send',
      `${app.url}/in`,
      '--data',
      `@${join(dir, 'body.json')}`,
      '--secret-file',
      secretFile(),
      '--record',
      record,
      '--json',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const document = JSON.parse(sent.stdout);
    expect(document).toMatchObject({ event: 'invoice.paid', attempt: 1, signature_check: 'verified', signed_with: secretFile(), body: data, status: 200 });
    const replayed = await runInProcess(['replay', record, '--to', app.url]);
    expect(replayed.code, replayed.stderr).toBe(0);
    const [first, again] = await app.waitFor(2);
    expect(first!.body).toBe(data);
    expect(again!.path).toBe('/in');
    expect(again!.bytes.equals(first!.bytes)).toBe(true);
    expect(again!.headers['x-service-signature']).toBe(pythonSignature(secretFile(), again!.bytes));
    expect(again!.headers['x-service-delivery-id']).toBe(document.delivery_id);
  });

  it('unsigned without --secret-file, said so; exit 1 when refused or when nothing answers, in the words replay uses', async () => {
    const app = await startReceiver(() => ({ status: 400, body: 'signature missing' }));
    const unsigned = await runInProcess(['send', app.url]);
    expect(unsigned.code).toBe(1);
    const [request] = await app.waitFor(1);
    expect(request!.headers['x-service-signature']).toBeUndefined();
    expect(unsigned.stderr).toContain('sent unsigned (no --secret-file)');
    expect(unsigned.stdout).toMatch(/^answer +400 in \d+ ms$/m);
    const closed = await startReceiver();
    const { url } = closed;
    await closed.close();
    const down = await runInProcess(['send', url, '--secret-file', secretFile()]);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^answer +no answer: connection refused$/m);
    const late = await startReceiver(() => 'hold');
    const slow = await runInProcess(['send', late.url, '--request-timeout', '300ms', '--json']);
    expect(slow.code).toBe(1);
    expect(JSON.parse(slow.stdout)).toMatchObject({ status: null, error: 'no answer within 300 ms' });
    late.release();
  });

  it('bad flags: exit 2 before anything is sent', async () => {
    const app = await startReceiver(() => 200);
    for (const args of [
      ['--event', 'invoice.payed'],
      ['--set', 'amount'],
      ['--data', '{"a":1}', '--set', 'a=2'],
      ['--data', 'not json'],
      ['--secret-file', secretFile(), '--secret-file', newSecretFile()],
    ]) {
      const result = await runInProcess(['send', app.url, ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(/^whsvc: /);
    }
    expect((await runInProcess(['send', app.url, '--event', 'invoice.payed'])).stderr).toContain('did you mean invoice.paid?');
    expect(app.received).toEqual([]);
  });
});

describe('whsvc sign', () => {
  let sandbox: SandboxInProcess;
  beforeAll(async () => {
    sandbox = await startSandboxInProcess(['--quiet', '--max-attempts', '1']);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("agrees with Python's hmac, with the header the sandbox sent and with the signature it stored, for the same body and secret", async () => {
    const cli = inProcessCliWith(sandboxEnv(sandbox.info, join(dir, 'config')));
    const app = await startReceiver(() => 200);
    const sandboxSecret = join(dir, 'sandbox-secret.txt');
    await createWebhook(cli, `${app.url}/wh`, 'invoice.paid', ['--secret-file', sandboxSecret]);
    await trigger(cli);
    const [delivered] = await app.waitFor(1);
    const body = join(dir, 'delivered.json');
    writeFileSync(body, delivered!.bytes);
    const signed = await runInProcess(['sign', '--secret-file', sandboxSecret, '--payload-file', body]);
    expect(signed.code, signed.stderr).toBe(0);
    const signature = signed.stdout.trim();
    expect(signature).toBe(pythonSignature(sandboxSecret, delivered!.bytes));
    expect(signature).toBe(delivered!.headers['x-service-signature']);
    const id = String(delivered!.headers['x-service-delivery-id']);
    const stored = JSON.parse((await cli(['deliveries', 'show', id, '--json'])).stdout);
    expect(stored.signature).toBe(signature);
    // From stdin too, and --json names the header.
    const fromStdin = await runInProcess(['sign', '--secret-file', sandboxSecret, '--json'], { input: delivered!.body });
    expect(JSON.parse(fromStdin.stdout)).toEqual({ signature, header: { name: 'X-Service-Signature', value: signature }, body_bytes: delivered!.bytes.length });
    expect(signed.stdout + signed.stderr + fromStdin.stdout).not.toContain(readFileSync(sandboxSecret, 'utf8').trim());
  });
});

describe('whsvc check-receiver', () => {
  it('passes a receiver done right: raw-body verification, idempotent, fast; it says what it sends first, and sends only to the URL given', async () => {
    const app = await startReceiver(correctReceiver(SECRET));
    const result = await runInProcess(['check-receiver', `${app.url}/hooks`, '--secret-file', secretFile()]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('pass  '))).toHaveLength(9);
    // What passing shows, and what HTTP cannot show.
    expect(lines.at(-1)).toBe(
      'all 9 checks passed: it takes valid deliveries by their raw bytes, refuses forged ones, answers a repeat 2xx and answers within 10 s; whether it acts twice on a repeat cannot be seen over HTTP (see 7)',
    );
    expect(result.stderr.split('\n')[0]).toMatch(
      /^whsvc check-receiver: 9 checks of http:\/\/127\.0\.0\.1:\d+\/hooks: 15 deliveries, one at a time, sent there and nowhere else$/,
    );
    expect(result.stderr).toContain('sending 3/9: invoice.paid with a digit 0 made 1 after it was signed');
    expect(app.received).toHaveLength(15);
    expect(new Set(app.received.map((r) => r.path))).toEqual(new Set(['/hooks']));
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('fails a receiver that takes everything: the four refusal checks', async () => {
    const app = await startReceiver(acceptsEverything());
    const result = await checkReceiver(app.url);
    expect(result.code).toBe(1);
    expect(result.failed).toEqual([3, 4, 5, 6]);
    expect(result.check(3)).toMatchObject({ check: 'tampered_body', summary: 'answered 200 "ok"' });
    expect(result.check(3).cause).toContain('does not check the signature');
  });

  it('fails a receiver that verifies re-serialized JSON: check 2 alone, with the raw body as the fix', async () => {
    const app = await startReceiver(verifiesReserializedJson(SECRET));
    const result = await checkReceiver(app.url);
    expect(result.failed).toEqual([2]);
    expect(result.check(2).cause).toContain('it verifies the JSON written again by JSON.stringify(JSON.parse(…))');
    expect(result.check(2).fix).toContain('raw body');
  });

  it('fails a receiver that refuses a repeated delivery id: check 7', async () => {
    const app = await startReceiver(rejectsRepeatedDeliveryId(SECRET));
    const result = await checkReceiver(app.url);
    expect(result.failed).toEqual([7]);
    expect(result.check(7)).toMatchObject({ check: 'repeated_delivery', summary: 'answered 200, then 409 "duplicate delivery"' });
  });

  it('fails a receiver that answers a tampered body 500: checks 3 and 4, a 5xx being no refusal', async () => {
    const app = await startReceiver(failsOnMismatch(SECRET));
    const result = await checkReceiver(app.url);
    expect(result.failed).toEqual([3, 4]);
    expect(result.check(3).summary).toBe('answered 500 "Internal Server Error"');
    expect(result.check(3).cause).toContain('sends the forgery again');
  });

  it('fails a receiver that takes 12 s: check 9 names the limit (given here by --request-timeout, so the test waits no 12 s)', async () => {
    const app = await startReceiver(slowReceiver(SECRET, 12_000));
    const result = await checkReceiver(app.url, '--request-timeout', '50ms', '--event', 'invoice.paid');
    expect(result.code).toBe(1);
    expect(result.check(9)).toMatchObject({ check: 'time_limit', result: 'fail', summary: '2 of 2 got no answer within 50 ms; 9 more not sent' });
    expect(result.check(9).cause).toContain('waits 50 ms');
    expect(result.check(1).cause).toContain('no answer within 50 ms');
    expect(result.document.time_limit_ms).toBe(50);
  });

  it('a receiver that never answers costs two time-outs, not fifteen: two deliveries sent, the rest said and not sent', async () => {
    const app = await startReceiver(() => 'hold');
    try {
      const result = await runInProcess(['check-receiver', `${app.url}/hooks`, '--secret-file', secretFile(), '--request-timeout', '50ms']);
      expect(result.code).toBe(1);
      // Counted where they arrive: the first two of check 1's five, and nothing after them.
      expect(app.received).toHaveLength(2);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(
        'fail  1  a valid delivery of each event type is taken: product.updated: no answer within 50 ms; inventory.changed: no answer within 50 ms; 3 more not sent',
      );
      expect(lines).toContain('skip  4  a delivery signed with another secret is refused: not run: stopped after 2 time-outs (see 9)');
      expect(lines).toContain('fail  9  every answer within 50 ms; the largest payload taken: 2 of 2 got no answer within 50 ms; 13 more not sent');
      // Checks 2 to 8 sent nothing: not run, not failed.
      expect(lines.at(-1)).toBe('0 of 9 checks passed; failed: 1, 9; not run: 2–8');
      expect(result.stderr).toContain('whsvc check-receiver: 2 deliveries got no answer within 50 ms: 13 more deliveries would wait up to 650 ms; not sent\n');
      expect(result.stdout + result.stderr).not.toContain('answered no answer');
    } finally {
      app.release();
    }
  });

  it('on a terminal its lines are laid out for the width, as --help is: at 60, 80 and 132 columns no line wider, no word cut, each continuation under its text; in a pipe, each line whole', async () => {
    const app = await startReceiver(acceptsEverything());
    const args = ['check-receiver', `${app.url}/hooks`, '--secret-file', secretFile()];
    // What is drawn and wiped on a terminal (the progress line), and said a line each in a pipe, is left out; and
    // the times, which differ from run to run.
    const said = (text: string) =>
      text
        .replace(/\r\u001b\[2K[^\r\n]*/g, '')
        .replace(/^ {2}sending .*\n/gm, '')
        .replace(/\d+(\.\d+)? (ms|s)\b/g, 'T');
    const whole = (text: string) => said(text).replace(/\n +/g, ' ');
    const piped = await runInProcess(args);
    expect(piped.stdout.split('\n').some((line) => line.length > 132)).toBe(true);
    for (const columns of [60, 80, 132]) {
      const shown = await runInProcess(args, { terminal: { columns } });
      expect(shown.code).toBe(1);
      for (const [stream, text] of [
        ['stdout', shown.stdout],
        ['stderr', said(shown.stderr)],
      ] as const) {
        const lines = text.trimEnd().split('\n');
        for (const line of lines) expect(line.length, `${stream} at ${columns}:\n${text}`).toBeLessThanOrEqual(columns);
        // The same words as in a pipe, in the same order: the lines joined again are the pipe's lines.
        expect(whole(text), `${stream} at ${columns}`).toBe(whole(stream === 'stdout' ? piped.stdout : piped.stderr));
      }
      // A check's line goes on under its title; its cause and its fix two further, under their label.
      let under = '';
      for (const line of shown.stdout.trimEnd().split('\n').slice(0, -1)) {
        if (/^(pass|fail) {2}\d/.test(line)) under = ' '.repeat(9);
        else if (/^ {9}(likely cause|fix):/.test(line)) under = ' '.repeat(11);
        else expect(line, `at ${columns}:\n${shown.stdout}`).toMatch(new RegExp(`^${under}\\S`));
      }
    }
  });

  it('two secret files: a receiver that holds both passes; one that holds the old alone fails check 1, naming the new file', async () => {
    const both = await startReceiver(correctReceiver(SECRET, NEW_SECRET));
    const passed = await checkReceiver(both.url, '--secret-file', newSecretFile());
    expect(passed.code, JSON.stringify(passed.document.checks.filter((c: { result: string }) => c.result === 'fail'))).toBe(0);
    expect(passed.document.secrets).toEqual([secretFile(), newSecretFile()]);
    expect(passed.check(1).sent.map((s: { signed_with: string }) => s.signed_with)).toContain(newSecretFile());
    const oldOnly = await startReceiver(correctReceiver(SECRET));
    const failed = await checkReceiver(oldOnly.url, '--secret-file', newSecretFile());
    expect(failed.failed).toEqual([1]);
    expect(failed.check(1).cause).toContain(`does not take a delivery signed with ${newSecretFile()}`);
  });

  it('nothing listening: the rest is not sent, exit 1; bad flags are exit 2 before anything is sent', async () => {
    const closed = await startReceiver();
    const { url } = closed;
    await closed.close();
    const down = await checkReceiver(url);
    expect(down.code).toBe(1);
    expect(down.check(1)).toMatchObject({ summary: 'no answer: connection refused', cause: 'nothing listens at that address and port' });
    expect(down.check(1).sent).toHaveLength(1);
    expect(down.check(2)).toMatchObject({ result: 'not_run', summary: `not run: no connection to ${url}/`, sent: [] });
    expect(down.document).toMatchObject({ passed: 0, failed: 1, not_run: 8 });
    const app = await startReceiver(() => 200);
    expect((await runInProcess(['check-receiver', app.url])).code).toBe(2);
    expect((await runInProcess(['check-receiver', app.url, '--secret-file', secretFile(), '--event', 'nope'])).code).toBe(2);
    expect((await runInProcess(['check-receiver', 'ftp://x', '--secret-file', secretFile()])).code).toBe(2);
    expect((await runInProcess(['check-receiver', app.url, '--secret-file', join(dir, 'none.txt')])).code).toBe(2);
    expect(app.received).toEqual([]);
  });
});

describe('check-receiver --effects, run by sh', () => {
  it('a receiver that acts again on a repeated delivery fails check 7; one that drops repeats by delivery id passes 9/9', async () => {
    for (const dedupe of [false, true]) {
      const rows = join(dir, `rows-${dedupe}.txt`);
      writeFileSync(rows, '');
      const app = await startReceiver(actingReceiver(SECRET, rows, dedupe));
      const result = await checkReceiver(app.url, '--event', 'invoice.paid', '--effects', `wc -l < '${rows}'`);
      // invoice.paid in check 1 and check 2 made two rows before check 7.
      if (dedupe) {
        expect(result.code, JSON.stringify(result.document.checks.filter((c: { result: string }) => c.result === 'fail'))).toBe(0);
        expect(result.check(7).summary).toBe('answered 200, then 200; the --effects output changed after the first send ("2" → "3"), not after the repeat');
      } else {
        expect(result.failed).toEqual([7]);
        expect(result.check(7).summary).toBe('answered 200, then 200, and the --effects output changed after each ("2" → "3" → "4"): it acted twice');
        expect(result.check(7).fix).toContain('X-Service-Delivery-Id');
      }
    }
  });

  it('a command that fails is exit 2 before anything is sent, in one line with what it said', async () => {
    const app = await startReceiver(correctReceiver(SECRET));
    const result = await runInProcess(['check-receiver', app.url, '--secret-file', secretFile(), '--effects', 'no-such-probe-command']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(/^whsvc: --effects: its command was not found \(exit 127\): .*no-such-probe-command/);
    expect(result.stderr).toContain('hint: it is run by sh -c');
    // A command that reads a password from the environment finds none there, and the hint says why.
    expect(app.received).toEqual([]);
  });

  it('the shell: what it prints read up to a bound, its failures and its time limit in words', async () => {
    const limits = { env: { PATH: process.env.PATH, NAME: 'x' }, timeoutMs: 10_000, maxBytes: 64 };
    expect(await runInShell('printf "%s %s" 3 "$NAME"', limits)).toEqual({ output: '3 x' });
    expect(await runInShell('echo locked >&2; exit 3', limits)).toEqual({ failure: 'it exited 3: locked' });
    expect(await runInShell('yes', limits)).toEqual({ failure: 'it printed more than 64 bytes: a count, or a few lines, is what it is for' });
    expect(await runInShell('sleep 30; echo late', { ...limits, timeoutMs: 200 })).toEqual({ failure: 'it did not end within 200 ms' });
  });

  it("its environment has none of the client secrets whsvc holds, the profile's or WHSVC_CLIENT_SECRET's, under any name, nor a variable named like a credential", async () => {
    const configDir = mkdtempSync(join(dir, 'config-'));
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ profiles: { work: { base_url: 'http://127.0.0.1:4010', client_id: 'cli_work', client_secret: 'sbx_the_profiles_secret' } } }),
    );
    // The rows of a receiver that acts once on a delivery: the output changes after check 7's first send, not after its repeat.
    const rows = join(dir, 'rows-env.txt');
    writeFileSync(rows, '');
    const app = await startReceiver(actingReceiver(SECRET, rows, true));
    const probe = `printf "%s|%s|%s|%s|%s|" "$SAME_AS_PROFILE" "$SAME_AS_ENV" "$WHSVC_CLIENT_SECRET" "$PGPASSWORD" "$KEPT"; wc -l < '${rows}'`;
    const result = await runInProcess(
      ['check-receiver', app.url, '--secret-file', secretFile(), '--json', '--event', 'invoice.paid', '--profile', 'work', '--effects', probe],
      {
        env: {
          WHSVC_CONFIG_DIR: configDir,
          WHSVC_CLIENT_SECRET: ' sbx_the_variables_secret\n',
          SAME_AS_PROFILE: 'sbx_the_profiles_secret',
          SAME_AS_ENV: 'sbx_the_variables_secret',
          PGPASSWORD: 'pw',
          KEPT: 'kept',
        },
      },
    );
    // whsvc's own credentials are gone, under any name; the user's own (PGPASSWORD) stay, as the user's shell has them.
    expect(JSON.parse(result.stdout).effects).toMatchObject({ result: 'acted_once', before: '|||pw|kept|2\n' });
  });

  /** Kills, when the test ends (passed, failed or timed out), the processes whose pids a probe wrote to `file`, one a line. */
  function killListedAtEnd(file: string): void {
    onTestFinished(() => {
      for (const pid of existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // Ended.
        }
      }
    });
  }

  /**
   * A FIFO the test holds open for writing, and reads until every writer has closed it: a probe that starts with
   * `exec 3>FIFO` passes it to whatever it leaves running, so `allEnded` comes once the test lets go of its own end
   * (release) and nothing the probe started is left. (Not `kill -0` on a pid: this machine's init does not reap orphans,
   * and a zombie answers it.) What the probe left, by the pids it wrote to `pids`, is killed when the test ends.
   */
  function heldFifo(name: string) {
    const path = join(dir, `${name}.fifo`);
    const pids = join(dir, `${name}.pids`);
    execFileSync('mkfifo', [path]);
    const reader = new Socket({ fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
    const writer = openSync(path, 'w');
    const allEnded = once(reader, 'end');
    const closed = once(reader, 'close');
    reader.resume();
    killListedAtEnd(pids);
    onTestFinished(async () => {
      reader.destroy();
      await closed;
    });
    return { path, pids, release: () => closeSync(writer), allEnded };
  }

  /** The pipes this process has open: one a probe left behind would keep whsvc running. */
  const openPipes = () => process.getActiveResourcesInfo().filter((kind) => kind === 'PipeWrap').length;

  it('a probe that exits 0 at once, leaving a child with its stdout, gives its output; the child is stopped with it (probe-43)', async () => {
    const fifo = heldFifo('left-behind');
    const run = await runInShell(`exec 3>'${fifo.path}'; echo 3; sleep 987 & echo $! > '${fifo.pids}'`, {
      env: { PATH: process.env.PATH },
      timeoutMs: 2_000,
      maxBytes: 64,
    });
    expect(run).toEqual({ output: '3\n' });
    fifo.release();
    await fifo.allEnded;
  });

  it('check-receiver with such a probe reads it, judges check 7, and ends with nothing of it left running or open', async () => {
    const fifo = heldFifo('each-read');
    const rows = join(dir, 'rows-left-behind.txt');
    writeFileSync(rows, '');
    const app = await startReceiver(actingReceiver(SECRET, rows, true));
    const pipes = openPipes();
    const probe = `exec 3>'${fifo.path}'; wc -l < '${rows}'; sleep 987 & echo $! >> '${fifo.pids}'`;
    const result = await runInProcess(['check-receiver', app.url, '--secret-file', secretFile(), '--json', '--event', 'invoice.paid', '--effects', probe]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).checks[6].summary).toBe(
      'answered 200, then 200; the --effects output changed after the first send ("2" → "3"), not after the repeat',
    );
    expect(openPipes()).toBe(pipes);
    fifo.release();
    await fifo.allEnded;
  });

  it("a child that leaves the probe's process group (setsid) is not waited for, and leaves no pipe open in whsvc", async () => {
    const pids = join(dir, 'setsid.pids');
    killListedAtEnd(pids);
    const pipes = openPipes();
    const run = await runInShell(`echo 4; setsid sleep 987 & echo $! > '${pids}'`, { env: { PATH: process.env.PATH }, timeoutMs: 2_000, maxBytes: 64 });
    expect(run).toEqual({ output: '4\n' });
    expect(openPipes()).toBe(pipes);
  });
});

describe('several secret files: listen and verify', () => {
  it('listen takes a delivery signed with either, and says which file verified it', async () => {
    const listener = await startListenInProcess(['--secret-file', secretFile(), '--secret-file', newSecretFile(), '--count', '2', '--timeout', '60', '--json']);
    try {
      const verifying = `verifying with the secrets in ${secretFile()} and ${newSecretFile()} (any of them verifies)`;
      await listener.until(() => listener.stderr().includes(verifying), 'the line naming both files');
      expect(listener.stderr()).toContain(verifying);
      for (const file of [secretFile(), newSecretFile()]) expect((await runInProcess(['send', listener.url, '--secret-file', file])).code).toBe(0);
      expect(await listener.exit).toBe(0);
      expect(listenedDeliveries(listener.stdout()).map((line) => [line.signature_check, line.verified_by])).toEqual([
        ['verified', secretFile()],
        ['verified', newSecretFile()],
      ]);
      expect(listener.stdout() + listener.stderr()).not.toContain(NEW_SECRET);
    } finally {
      await listener.stop('SIGTERM');
    }
  });

  it('verify checks against each, and names the one that verified', async () => {
    const body = '{"id":"inv_1","event":"invoice.paid"}';
    writeFileSync(join(dir, 'verify-body.json'), body);
    const signature = pythonSignature(newSecretFile(), Buffer.from(body));
    const verified = await runInProcess([
      'verify',
      '--signature',
      signature,
      '--secret-file',
      secretFile(),
      '--secret-file',
      newSecretFile(),
      '--payload-file',
      join(dir, 'verify-body.json'),
    ]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toBe(`verified by ${newSecretFile()}: the signature matches the ${body.length}-byte body\n`);
    const json = await runInProcess(['verify', '--signature', signature, '--secret-file', secretFile(), '--secret-file', newSecretFile(), '--json'], {
      input: body,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ signature_check: 'verified', verified_by: newSecretFile() });
    const neither = await runInProcess(['verify', '--signature', signature, '--secret-file', secretFile(), '--json'], { input: body });
    expect(neither.code).toBe(1);
    expect(JSON.parse(neither.stdout)).toMatchObject({ signature_check: 'mismatch', verified_by: null });
    expect(verified.stdout + json.stdout + neither.stdout + neither.stderr).not.toContain(NEW_SECRET);
  });
});
