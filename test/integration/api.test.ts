import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// whsvc api against the sandbox, both in-process.

let sandbox: SandboxInProcess;
let workDir: string;
let env: Record<string, string>;

/** The requests a --debug run sent, as `METHOD host path`. */
const sent = (stderr: string) => [...stderr.matchAll(/^> (\w+) (\S+)$/gm)].map((m) => `${m[1]} ${new URL(m[2]!).host} ${new URL(m[2]!).pathname}`);
const api = (args: string[], extra: Record<string, string> = {}, input?: string) => runInProcess(['api', ...args], { env: { ...env, ...extra }, input });

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet', '--max-attempts', '1']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-api-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('whsvc api', () => {
  it("-X POST /v1/webhooks -f url=… -f 'events[]=invoice.paid' creates one; the answer printed as returned", async () => {
    const result = await api([
      '-X',
      'POST',
      '/v1/webhooks',
      '-f',
      'url=https://example.com/api-made',
      '-f',
      'events[]=invoice.paid',
      '-f',
      'events[]=product.updated',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created).toMatchObject({ url: 'https://example.com/api-made', events: ['invoice.paid', 'product.updated'], active: true });
    expect(created.signing_secret).toMatch(/^whsec_/);
    expect(result.stderr).toMatch(/signing secret: the service gives it only this once/);
    const got = await runInProcess(['webhooks', 'get', created.id, '--json'], { env });
    expect(JSON.parse(got.stdout)).toMatchObject({ id: created.id, url: 'https://example.com/api-made' });
  });

  it('--jq that fails on a created webhook keeps its signing secret: the answer printed as returned, said in one line, exit 1', async () => {
    const result = await api([
      '-X',
      'POST',
      '/v1/webhooks',
      '-f',
      'url=https://example.com/jq-failed',
      '-f',
      'events[]=invoice.paid',
      '--jq',
      '.nope.x | error',
    ]);
    expect(result.code).toBe(1);
    const created = JSON.parse(result.stdout);
    expect(created.signing_secret).toMatch(/^whsec_/);
    expect(result.stderr).not.toContain(created.signing_secret);
    expect(result.stderr).toMatch(
      /^whsvc: --jq failed on an answer holding a signing secret, which the service gives only once: the answer is printed as returned instead/m,
    );
    const got = await runInProcess(['webhooks', 'get', created.id, '--json'], { env });
    expect(JSON.parse(got.stdout)).toMatchObject({ id: created.id, url: 'https://example.com/jq-failed' });
  });

  it('-F typed fields and --input: a PATCH with false, a body from stdin', async () => {
    const made = JSON.parse((await api(['/v1/webhooks', '-f', 'url=https://example.com/typed', '-f', 'events[]=invoice.paid', '--jq', '{id}'])).stdout);
    const paused = await api(['-X', 'PATCH', `/v1/webhooks/${made.id}`, '-F', 'active=false', '--jq', '.active']);
    expect(paused.stdout).toBe('false\n');
    const body = join(workDir, 'events.json');
    writeFileSync(body, '{"events": ["sales_order.created"]}');
    const fromFile = await api(['-X', 'PATCH', `/v1/webhooks/${made.id}`, '--input', body, '--jq', '.events[]']);
    expect(fromFile.stdout).toBe('sales_order.created\n');
    const fromStdin = await api(['-X', 'PATCH', `/v1/webhooks/${made.id}`, '--input', '-', '--jq', '.active'], {}, '{"active": true}');
    expect(fromStdin.stdout).toBe('true\n');
  });

  it('/v1/webhooks --paginate prints one envelope holding every webhook, page after page', async () => {
    for (let i = 0; i < 3; i++) expect((await api(['/v1/webhooks', '-f', `url=https://example.com/p${i}`, '-f', 'events[]=invoice.paid'])).code).toBe(0);
    const all = JSON.parse((await runInProcess(['webhooks', 'list', '--all', '--json'], { env })).stdout).data as Array<{ id: string }>;
    expect(all.length).toBeGreaterThanOrEqual(5);
    const result = await api(['/v1/webhooks?limit=2', '--paginate', '--debug']);
    expect(result.code, result.stderr).toBe(0);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.has_more).toBe(false);
    expect(envelope.next_cursor).toBeNull();
    expect(envelope.data.map((w: { id: string }) => w.id)).toEqual(all.map((w) => w.id));
    expect(sent(result.stderr).filter((line) => line.endsWith('/v1/webhooks'))).toHaveLength(Math.ceil(all.length / 2));
    const count = await api(['/v1/webhooks', '--paginate', '-F', 'limit=1', '--jq', '.data | length']);
    expect(count.stdout).toBe(`${all.length}\n`);
  });

  it("an unknown id exits 5, with the service's words", async () => {
    const result = await api(['/v1/webhooks/wh_doesnotexist']);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^whsvc: .*wh_doesnotexist.*\(HTTP 404 not_found\)$/m);
  });

  it('a 403 (the read-only client writing) exits 4, naming the scope', async () => {
    const result = await api(['-X', 'POST', '/v1/webhooks', '-f', 'url=https://example.com/ro', '-f', 'events[]=invoice.paid'], {
      WHSVC_CLIENT_ID: sandbox.info.readonly_client_id,
      WHSVC_CLIENT_SECRET: sandbox.info.readonly_client_secret,
      WHSVC_CONFIG_DIR: join(workDir, 'config-ro'),
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('webhooks:write');
  });

  it('a URL of another host is refused (exit 2) and nothing is sent, token request included', async () => {
    const result = await api(['https://other.host/v1/webhooks', '--debug']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("whsvc: https://other.host/v1/webhooks is not at the service's address");
    expect(sent(result.stderr)).toEqual([]);
    const samePort = await api([`http://localhost:${new URL(sandbox.info.base_url).port}/v1/webhooks`]);
    expect(samePort.code).toBe(2);
  });

  it("a full URL at the service's own address is a path there", async () => {
    const result = await api([`${sandbox.info.base_url}/v1/webhooks/webhook-events`, '--jq', '.data | map(.type) | index("invoice.paid") != null']);
    expect(result.stdout).toBe('true\n');
  });

  it('--debug redacts the token and the signing secret of the answer, as elsewhere; stdout keeps the answer', async () => {
    const result = await api(['-X', 'POST', '/v1/webhooks', '-f', 'url=https://example.com/debugged', '-f', 'events[]=invoice.paid', '--debug']);
    expect(result.code, result.stderr).toBe(0);
    const secret = JSON.parse(result.stdout).signing_secret as string;
    expect(result.stderr).not.toContain(secret);
    expect(result.stderr).not.toContain(sandbox.info.client_secret);
    expect(result.stderr).toMatch(/authorization: \[redacted\]/);
    expect(result.stderr).toMatch(/"signing_secret":\s*"\[redacted\]"/);
  });

  it('--debug redacts a header named as a credential is (X-Api-Key, X-Auth-Token), as Authorization', async () => {
    const result = await api(['/v1/webhooks/webhook-events', '-H', 'X-Api-Key: apikey-v4lue', '-H', 'X-Auth-Token: auth-t0ken-v4lue', '--debug']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^x-api-key: \[redacted\]$/im);
    expect(result.stderr).toMatch(/^x-auth-token: \[redacted\]$/im);
    expect(result.stderr).not.toMatch(/v4lue/);
  });

  it('bad flags are one line and exit 2: a field without =, an Authorization header, --paginate with POST', async () => {
    for (const args of [
      ['/v1/webhooks', '-f', 'url'],
      ['/v1/webhooks', '-H', 'Authorization: Bearer x'],
      ['-X', 'POST', '/v1/webhooks', '--paginate'],
      ['-X', 'GET /x', '/v1/webhooks'],
    ]) {
      const result = await api(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^whsvc: /);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
