import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { runInProcess, type SandboxInProcess, startSandboxInProcess } from '../helpers/in-process.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { type RewritingFront, startRewritingFront } from '../helpers/rewriting-front.js';

// A signing secret never lost or shown, whatever a service does: findings of an attacker's probe, each a test that
// failed before its fix. Hostile services are servers of the test's own on loopback, in front of the in-process sandbox.

let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([startSandboxInProcess(['--quiet', '--max-attempts', '1']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-probe43-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), receiver?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

const cli = (args: string[], more: Record<string, string> = {}) => runInProcess(args, { env: { ...env, ...more } });

async function created(url: string, events: string, file: string): Promise<string> {
  const result = await cli(['webhooks', 'create', '--url', url, '--events', events, '--secret-file', join(workDir, file), '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).id as string;
}

/**
 * A service in front of the sandbox: each request forwarded as it came, unless `hostile` answers it first; `rewrite`
 * changes a forwarded answer's JSON. The signing secret of each create it forwarded is kept, for `hostile` to echo.
 */
function hostileService(
  hostile: (method: string, path: string, secret: string) => { status: number; body: unknown } | undefined,
  rewrite: (method: string, path: string, body: Record<string, unknown>) => void = () => {},
): Promise<RewritingFront> {
  let secret = '';
  return startRewritingFront(
    sandbox.info.base_url,
    (method, path, body) => {
      if (method === 'POST' && path === '/v1/webhooks') secret = String(body.signing_secret);
      rewrite(method, path, body);
    },
    (method, path) => hostile(method, path, secret),
  );
}

describe('signing secrets, against a hostile service', () => {
  it('rotate-secret: a service that echoes the new signing secret in an error does not get it printed (stdout, stderr, --json)', async () => {
    const oldId = await created(`${receiver.url}/echo`, 'invoice.paid', 'echo-old.secret');
    const service = await hostileService((method, path, secret) =>
      method === 'POST' && path.endsWith('/test')
        ? { status: 400, body: { error: { code: 'bad', message: `signature made with ${secret} refused` } } }
        : undefined,
    );
    try {
      const newFile = join(workDir, 'echo-new.secret');
      const result = await cli(['webhooks', 'rotate-secret', oldId, '--secret-file', newFile, '--yes', '--json'], { WHSVC_BASE_URL: service.url });
      expect(result.code).toBe(1);
      const secret = readFileSync(newFile, 'utf8').trim();
      expect(result.stdout + result.stderr).not.toContain(secret);
    } finally {
      await service.close();
    }
  });

  it('deliveries diagnose --secret-file: a service that echoes the secret of the file in an error does not get it printed', async () => {
    const file = join(workDir, 'diagnose.secret');
    await created(`${receiver.url}/diagnose`, 'invoice.paid', 'diagnose.secret');
    const secret = readFileSync(file, 'utf8');
    const service = await hostileService((method, path) =>
      method === 'GET' && path.includes('/webhook-deliveries/') ? { status: 500, body: { message: `no attempt signed with ${secret}` } } : undefined,
    );
    try {
      const result = await cli(['deliveries', 'diagnose', 'dlv_x', '--secret-file', file, '--json'], { WHSVC_BASE_URL: service.url });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('no attempt signed with [redacted]');
      expect(result.stdout + result.stderr).not.toContain(secret);
    } finally {
      await service.close();
    }
  });

  it('webhooks create --json --jq with a filter that fails: the signing secret is not lost without a word (the webhook is deleted again, or named)', async () => {
    const url = `${receiver.url}/jq-typo`;
    const result = await cli(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--json', '--jq', '.data[].id']);
    const listed = await cli(['webhooks', 'list', '--all', '--json', '--jq', `.data[] | select(.url == "${url}") | .id`]);
    const madeIds = listed.stdout.trim() === '' ? [] : listed.stdout.trim().split('\n');
    // Either nothing was left made without its secret, or the error names the webhook made (as a failed --secret-file write does).
    if (madeIds.length > 0) expect(result.stderr).toContain(madeIds[0]);
  });

  it("webhooks create --json --jq with a filter whose error quotes the secret (tonumber): jq's error masks it, the webhook is deleted again", async () => {
    const url = `${receiver.url}/jq-tonumber`;
    const result = await cli(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--json', '--jq', '.signing_secret | tonumber']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^whsvc: --jq: string \("\[redacted\]"\) cannot be parsed as a number\n/);
    expect(result.stderr).toMatch(/whsvc: --jq failed on the webhook created, so its signing secret was not shown; webhook wh_\w+ was deleted again/);
    expect(result.stderr).not.toMatch(/whsec_\w/);
    const listed = await cli(['webhooks', 'list', '--all', '--json', '--jq', `.data[] | select(.url == "${url}") | .id`]);
    expect(listed.stdout).toBe('');
  });
});

describe('signing secrets under --jq (issue 44 probe)', () => {
  const created = (args: string[]) => cli(['api', '-X', 'POST', '/v1/webhooks', '-f', `url=${receiver.url}/api-jq`, '-f', 'events[]=invoice.paid', ...args]);
  const madeAt = async (url: string) => (await cli(['webhooks', 'list', '--all', '--json', '--jq', `.data[] | select(.url == "${url}") | .id`])).stdout;

  it("api: jq's error, halt_error or a cut quote of the answer never shows the new signing secret; the answer is printed as returned", async () => {
    for (const program of ['.signing_secret | fromjson', 'error', 'halt_error', '.signing_secret | tonumber', '.signing_secret | @base64 | error']) {
      const result = await created(['--jq', program]);
      expect(result.code, program).toBe(1);
      const secret = JSON.parse(result.stdout).signing_secret as string;
      expect(secret).toMatch(/^whsec_/);
      expect(result.stderr, program).not.toMatch(/whsec_\w/);
      expect(result.stderr, program).not.toContain(Buffer.from(secret).toString('base64').slice(0, 16));
      expect(result.stderr, program).toMatch(/^whsvc: --jq: .*\[redacted\]/m);
      expect(result.stderr).toMatch(
        /^whsvc: --jq failed on an answer holding a signing secret, which the service gives only once: the answer is printed as returned instead/m,
      );
    }
    const parsing = await created(['--jq', '.signing_secret | fromjson']);
    expect(parsing.stderr).toMatch(/^whsvc: --jq: .*\(while parsing '\[redacted\]'\)\n/);
  });

  it("api: a filter that leaves the secret out is the failure a filter's error is: the answer printed as returned, one line, exit 1", async () => {
    for (const program of ['.id', 'empty']) {
      const result = await created(['--jq', program]);
      expect(result.code, program).toBe(1);
      expect(JSON.parse(result.stdout).signing_secret).toMatch(/^whsec_/);
      expect(result.stderr).toMatch(
        /^whsvc: --jq's results leave out the answer's signing secret, which the service gives only once: the answer is printed as returned instead; save the secret now\n$/,
      );
    }
    const kept = await created(['--jq', '{id, signing_secret}']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout).signing_secret).toMatch(/^whsec_/);
    expect(kept.stderr).toMatch(/The answer holds the webhook's signing secret/);
  });

  it('webhooks create --jq that leaves the secret out: the webhook is deleted again, exit 1, with how to keep it; with --secret-file it is fine', async () => {
    const url = `${receiver.url}/jq-dropped`;
    const result = await cli(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--jq', '.id']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^whsvc: --jq's results leave out the created webhook's signing secret, which the service gives only once; webhook wh_\w+ was deleted again, so nothing was created\nhint: keep \.signing_secret in the --jq program, or write the secret to a file with --secret-file PATH/,
    );
    // With --jq (as with --json) the error is also its JSON line, named by whsvc's own code for the case: no service said it.
    expect(JSON.parse(result.stderr.trimEnd().split('\n').at(-1)!)).toEqual({
      error: { status: null, code: 'secret_not_kept', message: expect.stringContaining('was deleted again') },
    });
    expect(await madeAt(url)).toBe('');
    const file = join(workDir, 'jq-dropped.secret');
    const toFile = await cli(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--secret-file', file, '--jq', '.id']);
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toMatch(/^wh_\w+\n$/);
    expect(readFileSync(file, 'utf8')).toMatch(/^whsec_/);
    const kept = await cli(['webhooks', 'create', '--url', `${url}/kept`, '--events', 'invoice.paid', '--jq', '.signing_secret']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(/^whsec_[\w-]+\n$/);
  });
});
