import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, login } from '../helpers/cli.js';
import { runInProcess, startSandboxInProcess, usersInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// whsvc's commands as a user runs them, against the sandbox: whsvc and the sandbox in-process. A Node too old for the
// launcher: test/e2e/cli.test.ts; whsvc processes refreshing one token at once: test/e2e/config-files.test.ts.

let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;

beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([startSandboxInProcess(['--quiet', '--retry-base-ms', '200', '--max-attempts', '2']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-cli-'));
});

afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** A fresh config dir per test: each starts logged out. */
function freshConfig(): string {
  return mkdtempSync(join(workDir, 'config-'));
}

/** whsvc as run by a user of the sandbox with the config in the dir given, not logged in to start with. */
const cli = usersInProcess(() => sandbox.info.base_url);

async function loggedIn(): Promise<string> {
  const dir = freshConfig();
  const result = await login(cli.as(dir), sandbox.info.client_id, sandbox.info.client_secret);
  expect(result.code, result.stderr).toBe(0);
  return dir;
}

describe('credentials', () => {
  it('one address written two ways (a trailing slash) shares one cached token: no new token request', async () => {
    const dir = await loggedIn();
    const tokens = readFileSync(join(dir, 'tokens.json'), 'utf8');
    const slashed = await cli(['webhooks', 'list', '--json', '--debug'], dir, { env: { WHSVC_BASE_URL: `${sandbox.info.base_url}/` } });
    expect(slashed.code, slashed.stderr).toBe(0);
    expect(slashed.stderr).toContain('/v1/webhooks');
    expect(slashed.stderr).not.toContain('/v1/oauth/token');
    expect(readFileSync(join(dir, 'tokens.json'), 'utf8')).toBe(tokens);
  });

  it('logs in from stdin, stores the profile 0600, and never shows the secret', async () => {
    const dir = await loggedIn();
    for (const file of ['config.json', 'tokens.json']) {
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    }
    const status = await cli(['auth', 'status'], dir);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(sandbox.info.client_id);
    expect(status.stdout).toContain(sandbox.info.base_url);
    expect(status.stdout).toContain('webhooks:read webhooks:write');
    expect(status.stdout).toMatch(/token expires\s+in (59|60) minutes|in 1 hour/);
    expect(status.stdout + status.stderr).not.toContain(sandbox.info.client_secret);

    const json = await cli(['auth', 'status', '--json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({
      profile: 'default',
      source: 'profile',
      client_id: sandbox.info.client_id,
      scope: 'webhooks:read webhooks:write',
    });

    const token = await cli(['auth', 'token'], dir);
    expect(token.code).toBe(0);
    const response = await fetch(`${sandbox.info.base_url}/v1/webhooks`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
    expect(response.status).toBe(200);

    const logout = await cli(['logout'], dir);
    expect(logout.code).toBe(0);
    const after = await cli(['webhooks', 'list'], dir);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('not logged in');
    expect(readFileSync(join(dir, 'tokens.json'), 'utf8')).not.toContain(token.stdout.trim());
  });

  it('auth list: every profile with its address, client, scope and token expiry, the one in use marked; never a secret', async () => {
    const dir = await loggedIn();
    const second = await login(cli.as(dir), sandbox.info.readonly_client_id, sandbox.info.readonly_client_secret, [
      '--profile',
      'reader',
      '--scope',
      'webhooks:read',
    ]);
    expect(second.code, second.stderr).toBe(0);
    const json = await cli(['auth', 'list', '--json'], dir, { env: { WHSVC_PROFILE: 'reader' } });
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout);
    expect(listed).toEqual({
      profiles: [
        {
          name: 'default',
          active: false,
          base_url: sandbox.info.base_url,
          client_id: sandbox.info.client_id,
          scope: 'webhooks:read webhooks:write',
          token_expires_at: expect.stringMatching(/^\d{4}-/),
        },
        {
          name: 'reader',
          active: true,
          base_url: sandbox.info.base_url,
          client_id: sandbox.info.readonly_client_id,
          scope: 'webhooks:read',
          token_expires_at: expect.stringMatching(/^\d{4}-/),
        },
      ],
      env_credentials: false,
    });
    const human = await cli(['auth', 'list'], dir);
    expect(human.stdout).toBe(
      `*\tdefault\t${sandbox.info.base_url}\t${sandbox.info.client_id}\twebhooks:read webhooks:write\t${listed.profiles[0].token_expires_at}\n` +
        `\treader\t${sandbox.info.base_url}\t${sandbox.info.readonly_client_id}\twebhooks:read\t${listed.profiles[1].token_expires_at}\n`,
    );
    for (const output of [json.stdout, human.stdout, human.stderr]) {
      expect(output).not.toContain(sandbox.info.client_secret);
      expect(output).not.toContain(sandbox.info.readonly_client_secret);
    }
    // In a pipe, stdout holds rows only; the note goes to stderr.
    const empty = await cli(['auth', 'list'], freshConfig());
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toBe('No profiles. Log in with: whsvc login\n');
    // With credentials from the environment, no profile is the one in use.
    const env = await cli(['auth', 'list', '--json'], dir, { env: { WHSVC_CLIENT_ID: 'x', WHSVC_CLIENT_SECRET: 'y' } });
    expect(JSON.parse(env.stdout)).toMatchObject({ env_credentials: true, profiles: [{ active: false }, { active: false }] });
  });

  it('stores nothing when the secret is rejected (exit 3)', async () => {
    const dir = freshConfig();
    const refused = await login(cli.as(dir), sandbox.info.client_id, 'wrong-secret');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('invalid_client');
    expect(refused.stderr).not.toContain('wrong-secret');
    const status = await cli(['auth', 'status'], dir);
    expect(status.code).toBe(3);
    expect(existsSync(join(dir, 'config.json')) ? readFileSync(join(dir, 'config.json'), 'utf8') : '').not.toContain(sandbox.info.client_id);
  });

  it('asks for nothing without a terminal: a missing client id or secret is a usage error', async () => {
    const dir = freshConfig();
    expect((await cli(['login', '--client-secret-stdin'], dir, { input: 'x' })).code).toBe(2);
    const noSecret = await cli(['login', '--client-id', 'someone'], dir);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('--client-secret-stdin');
  });

  it('works with WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET and no login (CI)', async () => {
    const dir = freshConfig();
    const result = await cli(['webhooks', 'list', '--json'], dir, {
      env: { WHSVC_CLIENT_ID: sandbox.info.client_id, WHSVC_CLIENT_SECRET: sandbox.info.client_secret },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(Object.keys(JSON.parse(result.stdout))).toEqual(['data', 'has_more', 'next_cursor']);
  });

  it('never hides a wrong WHSVC_CLIENT_SECRET behind a token cached with the right one', async () => {
    const dir = freshConfig();
    const env = { WHSVC_CLIENT_ID: sandbox.info.client_id, WHSVC_CLIENT_SECRET: sandbox.info.client_secret };
    expect((await cli(['webhooks', 'list'], dir, { env })).code).toBe(0);
    const wrong = await cli(['webhooks', 'list'], dir, { env: { ...env, WHSVC_CLIENT_SECRET: 'mistyped' } });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('invalid_client');
  });

  it('refuses a base URL that is not an http(s) URL, as a usage error', async () => {
    const dir = freshConfig();
    // (127.0.0.1:4010, with no scheme at all, is http://127.0.0.1:4010: test/integration/habits.test.ts.)
    const bare = await cli(['events', '--base-url', 'ftp://127.0.0.1:4010'], dir, { env: { WHSVC_CLIENT_ID: 'a', WHSVC_CLIENT_SECRET: 'b' } });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('is not an http(s) URL');
    expect(bare.stderr).not.toContain('unexpected');
  });

  it('gives the read-only client exit 4 naming the scope, also as JSON on stderr', async () => {
    const dir = freshConfig();
    const env = { WHSVC_CLIENT_ID: sandbox.info.readonly_client_id, WHSVC_CLIENT_SECRET: sandbox.info.readonly_client_secret };
    expect((await cli(['webhooks', 'list'], dir, { env })).code).toBe(0);
    const result = await cli(['webhooks', 'create', '--url', `${receiver.url}/ro`, '--events', 'invoice.paid', '--json'], dir, { env });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('webhooks:write');
    const errorLine = result.stderr.split('\n').find((line) => line.startsWith('{'))!;
    expect(JSON.parse(errorLine)).toEqual({ error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining('webhooks:write') } });
    // The hint's commands name the profile in use: followed as written, they must not replace another profile's login.
    expect(result.stderr).toContain(
      'hint: log in with a client that has webhooks:write: whsvc login --client-id ID; the scope of this one: whsvc auth status\n',
    );
    const reader = await cli(['webhooks', 'delete', 'wh_1', '--yes', '--profile', 'reader'], dir, { env });
    expect(reader.code).toBe(4);
    expect(reader.stderr).toContain(
      'hint: log in with a client that has webhooks:write: whsvc login --profile reader --client-id ID; the scope of this one: whsvc auth status --profile reader\n',
    );
  });

  it('gets one fresh token when the cached one is refused (401), and carries on', async () => {
    const dir = await loggedIn();
    const tokensFile = join(dir, 'tokens.json');
    const cached = JSON.parse(readFileSync(tokensFile, 'utf8'));
    cached.tokens.default.access_token = 'revoked-token';
    writeFileSync(tokensFile, JSON.stringify(cached));
    const result = await cli(['webhooks', 'list', '--json'], dir);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(tokensFile, 'utf8')).not.toContain('revoked-token');
  });

  it('forgets a refused token even when no fresh one can be had, and auth status proves the credentials now', async () => {
    // An in-memory sandbox restarted on the same port: new secrets, and the old tokens are gone.
    const first = await startSandboxInProcess(['--quiet']);
    const port = new URL(first.info.base_url).port;
    const dir = freshConfig();
    const user = usersInProcess(() => first.info.base_url).as(dir);
    const loggedIn = await login(user, first.info.client_id, first.info.client_secret);
    expect(loggedIn.code, loggedIn.stderr).toBe(0);
    const tokensFile = join(dir, 'tokens.json');
    const token = JSON.parse(readFileSync(tokensFile, 'utf8')).tokens.default.access_token as string;
    await first.stop();
    const second = await startSandboxInProcess(['--quiet', '--port', port]);
    try {
      const list = await user(['webhooks', 'list']);
      expect(list.code).toBe(3);
      expect(list.stderr).toContain('invalid_client');
      expect(readFileSync(tokensFile, 'utf8')).not.toContain(token);
      const status = await user(['auth', 'status']);
      expect(status.code).toBe(3);
      expect(status.stdout).toBe('');
    } finally {
      await second.stop();
    }
  });

  it('create, get, list, update and delete, in human and --json modes', async () => {
    const dir = await loggedIn();
    const human = await cli(['webhooks', 'create', '--url', `${receiver.url}/human`, '--events', 'invoice.paid,product.updated'], dir);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/signing secret\s+whsec_\S+/);
    expect(human.stderr).toContain('shown only this once');
    const id = /id\s+(wh_\w+)/.exec(human.stdout)![1]!;

    const created = await createWebhook(cli.as(dir), `${receiver.url}/json`);
    expect(Object.keys(created)).toEqual(['id', 'url', 'events', 'active', 'signing_secret', 'created_at']);

    const got = await cli(['webhooks', 'get', id], dir);
    expect(got.stdout).toMatch(/events\s+invoice\.paid, product\.updated/);
    expect(got.stdout).not.toContain('whsec_');
    const gotJson = JSON.parse((await cli(['webhooks', 'get', id, '--json'], dir)).stdout);
    expect(Object.keys(gotJson)).toEqual(['id', 'url', 'events', 'active', 'created_at']);

    const listed = await cli(['webhooks', 'list'], dir);
    // In a pipe: tab-separated rows, no header, whole values, ISO times.
    expect(listed.stdout).not.toContain('URL');
    const row = listed.stdout
      .split('\n')
      .find((line) => line.startsWith(`${id}\t`))!
      .split('\t');
    expect(row).toEqual([
      id,
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
      'invoice.paid, product.updated',
      'active',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    ]);
    expect(listed.stdout).toContain(`${created.id}\t`);

    const added = await cli(
      ['webhooks', 'update', id, '--add-events', 'sales_order.created', '--remove-events', 'product.updated', '--inactive', '--json'],
      dir,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ id, events: ['invoice.paid', 'sales_order.created'], active: false });
    const paused = await cli(['webhooks', 'list', '--active', 'false', '--json'], dir);
    expect(JSON.parse(paused.stdout).data.map((w: { id: string }) => w.id)).toEqual([id]);

    const noYes = await cli(['webhooks', 'delete', id], dir);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('--yes');
    const deleted = await cli(['webhooks', 'delete', id, '--yes', '--json'], dir);
    expect(JSON.parse(deleted.stdout)).toEqual({ id, deleted: true });
    const gone = await cli(['webhooks', 'get', id], dir);
    expect(gone.code).toBe(5);
    expect(gone.stderr).toBe(`whsvc: no webhook with id ${id} (HTTP 404 not_found)\nhint: see the webhooks and their ids: whsvc webhooks list\n`);
    const deleteGone = await cli(['webhooks', 'delete', id, '--yes'], dir);
    expect(deleteGone.code).toBe(5);
    const deliveryGone = await cli(['deliveries', 'show', 'dlv_000000000000000000000000'], dir);
    expect(deliveryGone.code).toBe(5);
    expect(deliveryGone.stderr).toMatch(/\nhint: see a webhook's deliveries and their ids: whsvc deliveries list WEBHOOK_ID\n$/);
    // An id of the other kind: the hint names the command for it.
    const webhookAsDelivery = await cli(['deliveries', 'show', id], dir);
    expect(webhookAsDelivery.code).toBe(5);
    expect(webhookAsDelivery.stderr).toMatch(new RegExp(`\\nhint: ${id} is a webhook id: its deliveries are listed by whsvc deliveries list ${id}\\n$`));
    const deliveryAsWebhook = await cli(['webhooks', 'get', 'dlv_000000000000000000000000'], dir);
    expect(deliveryAsWebhook.stderr).toMatch(/\nhint: dlv_000000000000000000000000 is a delivery id: whsvc deliveries show dlv_000000000000000000000000\n$/);
    const goneJson = await cli(['webhooks', 'get', id, '--json'], dir);
    const errorLine = JSON.parse(goneJson.stderr.split('\n').find((line) => line.startsWith('{'))!);
    expect(errorLine).toEqual({ error: { status: 404, code: 'not_found', message: `no webhook with id ${id}` } });
  });

  it('checks values before any request, with suggestions', async () => {
    const dir = await loggedIn();
    const badEvent = await cli(['webhooks', 'create', '--url', `${receiver.url}/x`, '--events', 'invoice.payed'], dir);
    expect(badEvent.code).toBe(2);
    expect(badEvent.stderr).toContain('did you mean invoice.paid?');
    const badActive = await cli(['webhooks', 'list', '--active', 'ture'], dir);
    expect(badActive.code).toBe(2);
    expect(badActive.stderr).toContain('did you mean true?');
    const badStatus = await cli(['deliveries', 'list', 'wh_x', '--status', 'faild'], dir);
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toContain('did you mean failed?');
    const both = await cli(['webhooks', 'update', 'wh_x', '--active', '--inactive'], dir);
    expect(both.code).toBe(2);
    const missing = await cli(['webhooks', 'create', '--events', 'invoice.paid'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--url is required');
  });

  it('captures the secret with --secret-file: mode 0600, not on stdout, never overwritten without --force', async () => {
    const dir = await loggedIn();
    const secretFile = join(workDir, `secret-${Date.now()}.txt`);
    const result = await cli(['webhooks', 'create', '--url', `${receiver.url}/sf`, '--events', 'invoice.paid', '--secret-file', secretFile], dir);
    expect(result.code, result.stderr).toBe(0);
    const secret = readFileSync(secretFile, 'utf8').trim();
    expect(secret).toMatch(/^whsec_/);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
    expect(result.stderr).toContain(`written to ${secretFile}`);

    const again = await cli(['webhooks', 'create', '--url', `${receiver.url}/sf2`, '--events', 'invoice.paid', '--secret-file', secretFile], dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists');
    expect(readFileSync(secretFile, 'utf8').trim()).toBe(secret);
    const list = JSON.parse((await cli(['webhooks', 'list', '--json', '--limit', '200'], dir)).stdout);
    expect(list.data.some((w: { url: string }) => w.url.endsWith('/sf2'))).toBe(false);

    const forced = await cli(['webhooks', 'create', '--url', `${receiver.url}/sf3`, '--events', 'invoice.paid', '--secret-file', secretFile, '--force'], dir);
    expect(forced.code).toBe(0);
    expect(readFileSync(secretFile, 'utf8').trim()).not.toBe(secret);
  });

  it('create --secret-file --json: the object says where the secret went, and holds no secret', async () => {
    const dir = await loggedIn();
    const secretFile = join(workDir, `secret-json-${Date.now()}.txt`);
    const result = await cli(['webhooks', 'create', '--url', `${receiver.url}/sfj`, '--events', 'invoice.paid', '--secret-file', secretFile, '--json'], dir);
    expect(result.code, result.stderr).toBe(0);
    const secret = readFileSync(secretFile, 'utf8').trim();
    expect(secret).toMatch(/^whsec_/);
    const created = JSON.parse(result.stdout);
    expect(Object.keys(created)).toEqual(['id', 'url', 'events', 'active', 'signing_secret_file', 'created_at']);
    expect(created.signing_secret_file).toBe(secretFile);
    expect(result.stdout + result.stderr).not.toContain(secret);
  });

  it('streams every page with --all, in JSON as one envelope and in human mode', async () => {
    const dir = await loggedIn();
    for (let i = 0; i < 12; i++) await createWebhook(cli.as(dir), `${receiver.url}/all-${i}`, 'inventory.changed');
    const total = JSON.parse((await cli(['webhooks', 'list', '--limit', '200', '--json'], dir)).stdout).data.length as number;
    const all = await cli(['webhooks', 'list', '--all', '--limit', '5', '--json'], dir);
    expect(all.code, all.stderr).toBe(0);
    const envelope = JSON.parse(all.stdout);
    expect(envelope.has_more).toBe(false);
    expect(envelope.next_cursor).toBeNull();
    expect(envelope.data).toHaveLength(total);
    expect(new Set(envelope.data.map((w: { id: string }) => w.id)).size).toBe(total);

    // In a pipe: one tab-separated row per webhook, every page alike.
    const human = await cli(['webhooks', 'list', '--all', '--limit', '5'], dir);
    expect(human.stdout.match(/wh_\w+/g)).toHaveLength(total);
    expect(
      human.stdout
        .trimEnd()
        .split('\n')
        .every((line) => line.split('\t').length === 5),
    ).toBe(true);

    const page = await cli(['webhooks', 'list', '--limit', '5'], dir);
    const hint = /More than the 5 shown \(--all shows every one\); the next page: (whsvc webhooks list --limit 5 --cursor \S+)$/m.exec(page.stderr);
    expect(hint).not.toBeNull();
    const next = await cli(hint![1]!.split(' ').slice(1), dir);
    expect(next.code).toBe(0);
    expect(next.stdout.match(/wh_\w+/g)).toHaveLength(5);
    expect(next.stdout.match(/wh_\w+/g)![0]).not.toBe(page.stdout.match(/wh_\w+/g)![0]);
  });
});

describe('events, test and deliveries', () => {
  it('lists the catalog by module', async () => {
    const dir = await loggedIn();
    const human = await cli(['events'], dir);
    expect(human.stdout).toMatch(/finance\s+invoice\.paid\s+An invoice was fully settled\./);
    const json = JSON.parse((await cli(['events', '--json'], dir)).stdout);
    expect(json.data).toHaveLength(5);
  });

  it('sends a test event, shows the log and an attempt, and retries a failed one', async () => {
    const dir = await loggedIn();
    receiver.respondWith = (request) => (request.path === '/flaky-cli' ? 500 : 200);
    try {
      const webhook = await createWebhook(cli.as(dir), `${receiver.url}/flaky-cli`, 'product.updated');
      const test = await cli(['test', webhook.id, '--event', 'product.updated'], dir);
      expect(test.code).toBe(1);
      expect(test.stdout).toMatch(/status\s+failed/);
      expect(test.stderr).toContain('the endpoint did not accept the test event (it answered 500)');
      expect(test.stderr).toMatch(/the service retries it automatically, with backoff \(retry due \d\d:\d\d:\d\d\); follow it, or send it again now:$/m);
      // Each command on a line of its own, as pasted; at 60 columns broken at its options, ` \` joining its lines, no prose after.
      expect(test.stderr).toMatch(new RegExp(`^  whsvc deliveries list ${webhook.id} --status failed\n  whsvc deliveries retry dlv_\\w+\n$`, 'm'));
      const at60 = await usersInProcess(() => sandbox.info.base_url, { terminal: { columns: 60 } })(['test', webhook.id, '--event', 'product.updated'], dir);
      expect(at60.code).toBe(1);
      const hint = at60.stderr.slice(at60.stderr.indexOf('hint: '));
      expect(hint).toMatch(new RegExp(`\n {2}whsvc deliveries list ${webhook.id} \\\\\n {4}--status failed\n {2}whsvc deliveries retry dlv_\\w+\n$`));
      expect(test.stdout).toMatch(/response\s+500/);

      const testJson = await cli(['test', webhook.id, '--json'], dir);
      expect(Object.keys(JSON.parse(testJson.stdout))).toEqual([
        'id',
        'webhook_id',
        'event',
        'status',
        'response_code',
        'created_at',
        'next_attempt_at',
        'failure_reason',
      ]);
      // Exit 1 with --json: the failure is a JSON line on stderr too, as every error is.
      expect(testJson.code).toBe(1);
      const errorLine = testJson.stderr.split('\n').find((line) => line.startsWith('{'))!;
      expect(JSON.parse(errorLine)).toEqual({
        error: { status: 500, code: 'not_delivered', message: 'the endpoint did not accept the test event (it answered 500)' },
      });
      expect(test.stderr).not.toContain('is not subscribed');
      const unsubscribed = await cli(['test', webhook.id, '--event', 'invoice.paid'], dir);
      expect(unsubscribed.stderr.split('\n')[0]).toBe(
        `whsvc: webhook ${webhook.id} is not subscribed to invoice.paid: this test is sent to it, real invoice.paid events are not (add it with \`whsvc webhooks update ${webhook.id} --add-events invoice.paid\`)`,
      );
      expect(unsubscribed.stdout).toMatch(/event\s+invoice\.paid/);

      const log = JSON.parse((await cli(['deliveries', 'list', webhook.id, '--json'], dir)).stdout);
      expect(log.data.length).toBeGreaterThanOrEqual(2);
      const first = log.data[log.data.length - 1];

      const shown = await cli(['deliveries', 'show', first.id], dir);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/signature\s+sha256=[0-9a-f]{64}/);
      expect(shown.stdout).toContain('"event": "product.updated"');
      // Why it failed, and what the endpoint said, when the service stored them.
      expect(shown.stdout).toMatch(/failure\s+endpoint answered 500/);
      expect(shown.stdout).toMatch(/answer\nanswer from the test receiver\n/);

      const stillFailing = await cli(['deliveries', 'retry', first.id], dir);
      expect(stillFailing.code).toBe(1);
      expect(stillFailing.stdout).toMatch(/status\s+failed/);

      // Every automatic attempt made (two of each of the three test deliveries, --max-attempts 2), and the manual retry:
      // no automatic retry is left to find the endpoint mended before the manual one below does.
      await receiver.waitFor(7, 20_000, '/flaky-cli');
      receiver.respondWith = () => 200;
      const retried = await cli(['deliveries', 'retry', first.id, '--json'], dir);
      expect(retried.code, retried.stderr).toBe(0);
      expect(JSON.parse(retried.stdout)).toMatchObject({ status: 'delivered', response_code: 200, webhook_id: webhook.id });

      const delivered = await cli(['deliveries', 'list', webhook.id, '--status', 'delivered'], dir);
      // The retry is listed as an attempt of the first delivery (the sandbox's delivery_id).
      expect(delivered.stdout).toContain(`${JSON.parse(retried.stdout).id}\tproduct.updated\tdelivered\t200\t`);
      expect(delivered.stdout).toMatch(new RegExp(`\\tdelivered\\t200\\t\\d+\\t[^\\t]+\\t${first.id}\\n`));

      const again = await cli(['deliveries', 'retry', JSON.parse(retried.stdout).id], dir);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('HTTP 409 already_delivered');
      // Its earlier failed attempt belongs to a delivery that got through: not sent twice.
      const older = await cli(['deliveries', 'retry', first.id], dir);
      expect(older.code).toBe(1);
      expect(older.stderr).toContain('HTTP 409 already_delivered');
      const missing = await cli(['deliveries', 'show', 'dlv_missing'], dir);
      expect(missing.code).toBe(5);
    } finally {
      receiver.respondWith = () => 200;
    }
  });
});

describe('failures a user meets', () => {
  it('a service that never answers: --request-timeout (or WHSVC_TIMEOUT) ends the request, one line, exit 1', async () => {
    const hanging = await startReceiver(() => 'hold');
    try {
      const address = new URL(hanging.url).host;
      const env = { WHSVC_BASE_URL: `http://${address}`, WHSVC_CLIENT_ID: 'client', WHSVC_CLIENT_SECRET: 'secret' };
      const byFlag = await cli(['webhooks', 'list', '--request-timeout', '300ms'], freshConfig(), { env });
      expect(byFlag.code).toBe(1);
      expect(byFlag.stderr.split('\n')[0]).toBe(`whsvc: ${address} did not answer: no answer within 300 ms`);
      // A bare number is seconds.
      const byEnv = await cli(['webhooks', 'list'], freshConfig(), { env: { ...env, WHSVC_TIMEOUT: '0.2' } });
      expect(byEnv.code).toBe(1);
      expect(byEnv.stderr.split('\n')[0]).toBe(`whsvc: ${address} did not answer: no answer within 200 ms`);
    } finally {
      await hanging.close();
    }
  });

  it("--timeout is only ever a command's own wait: before another command it is unknown, and says which flag limits a request", async () => {
    const result = await cli(['--timeout', '2', 'webhooks', 'list'], freshConfig());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^whsvc: unknown option --timeout \(the limit of each request is --request-timeout; .*\)\n/);
    const badEnv = await cli(['webhooks', 'list'], freshConfig(), { env: { WHSVC_TIMEOUT: 'soon' } });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr.split('\n')[0]).toBe('whsvc: WHSVC_TIMEOUT "soon" is not a request timeout');
  });

  it('option errors read in one style: the flag, the value, and why', async () => {
    const cases: Array<[string[], string]> = [
      [['webhooks', 'list', '--limit', '0'], 'whsvc: --limit 0: must be an integer from 1 to 200'],
      [
        ['webhooks', 'list', '--request-timeout', 'soon'],
        'whsvc: --request-timeout soon: must be a duration such as 500ms, 90s, 30m, 2h or 3d (a bare number is seconds)',
      ],
      [['sandbox', 'start', '--clock', 'sundial'], 'whsvc: --clock sundial: allowed choices are wall, manual'],
      [['webhooks', 'create', '--url'], 'whsvc: --url needs a value'],
      [['webhooks', 'get'], 'whsvc: <id> is required'],
    ];
    for (const [args, line] of cases) {
      const result = await cli(args, freshConfig());
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0], args.join(' ')).toBe(line);
    }
  });

  it('says clearly when the service is down (exit 1), with no stack trace', async () => {
    const dir = freshConfig();
    const dead = await startReceiver();
    const url = dead.url;
    await dead.close();
    // Every command says it the same way; on this machine, the hint is the sandbox.
    for (const args of [
      ['webhooks', 'list'],
      ['deliveries', 'list', 'wh_1'],
      ['sandbox', 'clock'],
      ['sandbox', 'trigger', 'invoice.paid'],
      ['test', 'wh_1'],
    ]) {
      const result = await cli(args, dir, { env: { WHSVC_BASE_URL: url, WHSVC_CLIENT_ID: 'a', WHSVC_CLIENT_SECRET: 'b' } });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toBe(
        `whsvc: cannot connect to ${new URL(url).host}: connection refused\nhint: is the sandbox running there? Start it with \`whsvc sandbox start\`, or check --base-url, WHSVC_BASE_URL or the profile's base URL\n`,
      );
    }
  });

  it('with --json, every error is also one JSON line on stderr, usage errors and local ones included', async () => {
    const dir = freshConfig();
    const usage = await cli(['webhooks', 'list', '--json', '--limit', '0'], dir);
    expect(usage.code).toBe(2);
    const usageLine = JSON.parse(usage.stderr.split('\n').find((line) => line.startsWith('{'))!);
    expect(usageLine).toEqual({ error: { status: null, code: 'usage', message: expect.stringContaining('--limit') } });
    const notLoggedIn = await cli(['auth', 'status', '--json'], dir);
    expect(notLoggedIn.code).toBe(3);
    const authLine = JSON.parse(notLoggedIn.stderr.split('\n').find((line) => line.startsWith('{'))!);
    expect(authLine.error).toMatchObject({ status: null, message: expect.stringContaining('not logged in') });
  });

  it('answers unknown commands and flags with suggestions and exit 2', async () => {
    const dir = freshConfig();
    const command = await cli(['webhoks', 'list'], dir);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command webhoks; did you mean webhooks?');
    const flag = await cli(['webhooks', 'list', '--limt', '5'], dir);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown option --limt; did you mean --limit?');
  });

  it('prints the version and help with exit 0', async () => {
    const version = await runInProcess(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    const help = await runInProcess(['webhooks', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--secret-file');
  });

  it('redacts secrets from --debug', async () => {
    const dir = freshConfig();
    const result = await cli(['webhooks', 'create', '--url', `${receiver.url}/dbg`, '--events', 'invoice.paid', '--json', '--debug'], dir, {
      env: { WHSVC_CLIENT_ID: sandbox.info.client_id, WHSVC_CLIENT_SECRET: sandbox.info.client_secret },
    });
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(result.stderr).toContain('> POST');
    expect(result.stderr).toContain('/v1/oauth/token');
    expect(result.stderr).toContain('[redacted]');
    expect(result.stderr).not.toContain(sandbox.info.client_secret);
    expect(result.stderr).not.toContain(created.signing_secret);
    expect(result.stderr).not.toMatch(/sbx_at_/);
  });
});

describe('a token that expires mid-run', () => {
  it('fetches a new token, before any request, when the cached one has expired (sandbox --token-ttl 1)', async () => {
    // A manual clock: a second passes on the sandbox's when it is moved on, and on the token cache's when its expiry is put
    // back by as much.
    const shortLived = await startSandboxInProcess(['--quiet', '--token-ttl', '1', '--clock', 'manual']);
    try {
      const dir = freshConfig();
      const user = usersInProcess(() => shortLived.info.base_url).as(dir);
      const loggedIn = await login(user, shortLived.info.client_id, shortLived.info.client_secret);
      expect(loggedIn.code, loggedIn.stderr).toBe(0);
      const moved = await user(['sandbox', 'clock', 'advance', '2s']);
      expect(moved.code, moved.stderr).toBe(0);
      const tokensFile = join(dir, 'tokens.json');
      const cache = JSON.parse(readFileSync(tokensFile, 'utf8'));
      const firstToken = cache.tokens.default.access_token;
      cache.tokens.default.expires_at -= 2_000;
      writeFileSync(tokensFile, JSON.stringify(cache), { mode: 0o600 });
      const result = await user(['webhooks', 'list', '--json', '--debug']);
      expect(result.code, result.stderr).toBe(0);
      // Known to have expired, the cached token is never sent: the first request asks for a new one, and none is refused.
      const requests = result.stderr.match(/^> \w+ \S+/gm)?.map((line) => line.replace(/^> (\w+) https?:\/\/[^/]+([^?]*).*$/, '$1 $2'));
      expect(requests).toEqual(['POST /v1/oauth/token', 'GET /v1/webhooks']);
      expect(result.stderr).not.toContain('< 401');
      expect(JSON.parse(readFileSync(tokensFile, 'utf8')).tokens.default.access_token).not.toBe(firstToken);
    } finally {
      await shortLived.stop();
    }
  });
});
