import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, login, ownConfigEnv, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// The edges where a promise about secrets, configuration and names used to break.
let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;

beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([startSandboxInProcess(['--quiet']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-edges-'));
});

afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** whsvc as the user of the sandbox, with a config dir of its own at each run. */
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, mkdtempSync(join(workDir, 'config-'))));

async function webhookIds(): Promise<string[]> {
  const listed = await cli(['webhooks', 'list', '--all', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout).data.map((w: { id: string }) => w.id);
}

describe('the signing secret is never lost nor shown when a file was asked for', () => {
  it('an empty --secret-file (an unset variable in CI) is a usage error before any request, with or without --json', async () => {
    const before = await webhookIds();
    for (const json of [[], ['--json']]) {
      const result = await cli(['webhooks', 'create', '--url', `${receiver.url}/empty`, '--events', 'invoice.paid', '--secret-file', '', ...json]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')[0]).toBe('whsvc: --secret-file is empty: give the path of the file to write the secret to');
      expect(result.stdout + result.stderr).not.toMatch(/whsec_/);
    }
    expect(await webhookIds()).toEqual(before);
  });

  // A secret file that fails at write time (a full disk): test/e2e/files.test.ts, on a private tmpfs.
});

describe('configuration and names', () => {
  it('WHSVC_CONFIG_DIR="" is read as unset: the OS config dir (under XDG_CONFIG_HOME), not an error', async () => {
    const xdg = mkdtempSync(join(workDir, 'xdg-'));
    const loggedIn = await login(
      inProcessCliWith({ ...ownConfigEnv('', sandbox.info.base_url), XDG_CONFIG_HOME: xdg }),
      sandbox.info.client_id,
      sandbox.info.client_secret,
    );
    expect(loggedIn.code, loggedIn.stderr).toBe(0);
    expect(readdirSync(join(xdg, 'whsvc'))).toContain('config.json');
  });

  it('a profile name with control characters is refused, and shown escaped, never raw', async () => {
    for (const [args, extra, source] of [
      [['--profile', 'a\u001b[31mb', 'webhooks', 'list'], {}, '--profile'],
      [['webhooks', 'list'], { WHSVC_PROFILE: 'x\u009b2Jy\nz' }, 'WHSVC_PROFILE'],
    ] as const) {
      const result = await cli([...args], { env: { ...extra, WHSVC_CLIENT_ID: undefined, WHSVC_CLIENT_SECRET: undefined } });
      expect(result.code).toBe(2);
      expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(result.stderr.split('\n')[0]).toMatch(new RegExp(`^whsvc: the profile name ".*\\\\u00(1b|9b).*" \\(from ${source}\\) holds control characters$`));
    }
  });

  it('a *.localhost address goes to 127.0.0.1 because whsvc sends it there, not because a resolver said so', async () => {
    const { port } = new URL(sandbox.info.base_url);
    const local = inProcessCliWith(() => ({
      ...sandboxEnv(sandbox.info, mkdtempSync(join(workDir, 'config-'))),
      WHSVC_BASE_URL: `http://api.localhost:${port}`,
    }));
    const created = await createWebhook(local, `http://app.localhost:${new URL(receiver.url).port}/local`);
    await trigger(local);
    const [request] = await receiver.waitFor(1, 20_000, '/local');
    expect(request!.headers.host).toBe(`app.localhost:${new URL(receiver.url).port}`);
    await local(['webhooks', 'delete', created.id, '--yes']);
  });
});

describe('what changes nothing is said', () => {
  it('update --add-events of an event already subscribed, or --remove-events of one not subscribed, says so on stderr and goes on', async () => {
    const { id } = await createWebhook(cli, `${receiver.url}/update`);
    const result = await cli(['webhooks', 'update', id, '--add-events', 'invoice.paid,product.updated', '--remove-events', 'sales_order.created', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).events).toEqual(['invoice.paid', 'product.updated']);
    expect(result.stderr).toBe(
      `whsvc: webhook ${id} is already subscribed to invoice.paid: nothing to add\nwhsvc: webhook ${id} is not subscribed to sales_order.created: nothing to remove\n`,
    );
    await cli(['webhooks', 'delete', id, '--yes']);
  });
});
