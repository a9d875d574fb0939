import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxInProcess, usersInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// Messages that say what to do: each mistake gets one line, the right exit
// code, and the way out.

let sandbox: SandboxInProcess;
let configDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-messages-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

/** whsvc as run by a user of the sandbox, the config in the dir given (configDir unless another), not logged in to start with. */
const cli = usersInProcess(() => sandbox.info.base_url);

describe('messages that say what to do', () => {
  it('--status fail: did you mean failed?', async () => {
    const result = await cli(['deliveries', 'list', 'wh_x', '--status', 'fail'], configDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean failed?');
  });

  it('--client-secret points to --client-secret-stdin, and never echoes the secret', async () => {
    const result = await cli(['login', '--client-id', sandbox.info.client_id, '--client-secret', 'hunter2-value'], configDir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--client-secret-stdin');
    expect(result.stderr).not.toContain('hunter2-value');
  });

  it('--secret-file "" is a usage error, for listen and verify alike', async () => {
    for (const args of [
      ['listen', '--port', '0', '--secret-file', '', '--timeout', '5'],
      ['verify', '--signature', 'a'.repeat(64), '--secret-file', ''],
    ]) {
      const result = await cli(args, configDir, { input: '{}' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('--secret-file is empty');
    }
  });

  it('a URL the service would refuse, and an event type given twice, are usage errors before any request', async () => {
    // Nothing listens at this address: a request would end in a network error (exit 1), not exit 2.
    const closed = await new Promise<string>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(`http://127.0.0.1:${port}`));
      });
    });
    const env = { WHSVC_BASE_URL: closed, WHSVC_CLIENT_ID: 'someone', WHSVC_CLIENT_SECRET: 'something' };
    const cases: Array<[string[], string]> = [
      [['webhooks', 'create', '--url', 'http://example.com/hooks', '--events', 'invoice.paid'], 'must use https'],
      [['webhooks', 'create', '--url', 'https://user:pw@example.com/hooks', '--events', 'invoice.paid'], 'must not carry a user name or password'],
      [['webhooks', 'create', '--url', 'https://example.com/hooks', '--events', 'invoice.paid,invoice.paid'], 'invoice.paid is listed twice'],
      // A word that names no host (example.com/hooks is https://example.com/hooks, what stripe users mean).
      [['webhooks', 'update', 'wh_1', '--url', 'hooks'], 'must be an absolute URL'],
      [['webhooks', 'update', 'wh_1', '--add-events', 'a.b, a.b'], 'a.b is listed twice'],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args, configDir, { env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr.trimEnd().split('\n').length, result.stderr).toBeLessThanOrEqual(2);
    }
  });

  describe('auth failures name what was used, where it came from, and the command that fixes it', () => {
    const lines = (stderr: string) => stderr.trimEnd().split('\n');

    it('not logged in', async () => {
      const dir = mkdtempSync(join(configDir, 'none-'));
      const result = await cli(['webhooks', 'list', '--profile', 'ci'], dir);
      expect(result.code).toBe(3);
      const [message, hint] = lines(result.stderr);
      expect(message).toBe(
        `whsvc: not logged in: nothing to send to ${sandbox.info.base_url} (from WHSVC_BASE_URL): profile ci (from --profile) holds no credentials, and WHSVC_CLIENT_ID/WHSVC_CLIENT_SECRET are not set`,
      );
      expect(hint).toBe(
        'hint: set WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET, or log in (a sandbox prints its client id and secret when it starts): whsvc login --profile ci --client-id ID',
      );
    });

    it('not logged in, with the default profile: named as the default, not "(from the default)"', async () => {
      const dir = mkdtempSync(join(configDir, 'default-'));
      const result = await cli(['webhooks', 'list'], dir, { env: { WHSVC_BASE_URL: undefined } });
      expect(result.code).toBe(3);
      const [message] = lines(result.stderr);
      expect(message).toBe(
        'whsvc: not logged in: nothing to send to http://127.0.0.1:4010 (the default address): profile default (the default profile) holds no credentials, and WHSVC_CLIENT_ID/WHSVC_CLIENT_SECRET are not set',
      );
    });

    it('a profile whose secret the service no longer takes (a sandbox restarted)', async () => {
      const dir = mkdtempSync(join(configDir, 'stale-'));
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({
          profiles: { old: { base_url: sandbox.info.base_url, client_id: sandbox.info.client_id, client_secret: 'sbx_secret_of_an_earlier_run' } },
        }),
      );
      const result = await cli(['webhooks', 'list'], dir, { env: { WHSVC_PROFILE: 'old', WHSVC_BASE_URL: undefined } });
      expect(result.code).toBe(3);
      const [message, hint] = lines(result.stderr);
      expect(message).toContain('refused the credentials (invalid_client)');
      expect(message).toContain(`(client ${sandbox.info.client_id} of profile old (from WHSVC_PROFILE), at ${sandbox.info.base_url} (from profile old))`);
      expect(hint).toBe(
        `hint: log in again (a sandbox started again without --data-dir has new client secrets: take them from its start-up output): whsvc login --profile old --client-id ${sandbox.info.client_id}`,
      );
      expect(result.stderr).not.toContain('sbx_secret_of_an_earlier_run');
      // Given with --base-url, the address is part of the fix.
      const flagged = await cli(['webhooks', 'list', '--base-url', sandbox.info.base_url], dir, { env: { WHSVC_PROFILE: 'old', WHSVC_BASE_URL: undefined } });
      expect(lines(flagged.stderr)[1]).toContain(`whsvc login --profile old --base-url ${sandbox.info.base_url} --client-id ${sandbox.info.client_id}`);
    });

    it('at 80 columns, the command in the hint ends its line: a line pasted whole runs it and no prose after it', async () => {
      const at80 = usersInProcess(() => sandbox.info.base_url, { terminal: { columns: 80 } });
      const none = await at80(['webhooks', 'list', '--profile', 'nobody'], mkdtempSync(join(configDir, 'none80-')));
      const stale = mkdtempSync(join(configDir, 'stale80-'));
      writeFileSync(
        join(stale, 'config.json'),
        JSON.stringify({ profiles: { sandbox: { base_url: sandbox.info.base_url, client_id: 'sbx_demo_readwrite', client_secret: 'sbx_secret_gone' } } }),
      );
      const refused = await at80(['webhooks', 'list', '--profile', 'sandbox'], stale);
      for (const result of [none, refused]) {
        expect(result.code).toBe(3);
        const commandLines = lines(result.stderr).filter((line) => line.includes('whsvc login'));
        expect(commandLines, result.stderr).toHaveLength(1);
        expect(commandLines[0], result.stderr).toMatch(/(?:^|: | )whsvc login(?: --[\w-]+ \S+)+$/);
      }
    });

    it('the command in the hint is quoted for the shell; a password in a URL is never printed', async () => {
      const dir = mkdtempSync(join(configDir, 'quoted-'));
      const spaced = await cli(['webhooks', 'list', '--profile', 'my prof'], dir);
      expect(lines(spaced.stderr)[1]).toContain(`whsvc login --profile 'my prof' --client-id ID`);
      const withPassword = await cli(['webhooks', 'list', '--base-url', 'http://me:hunter2@127.0.0.1:9/'], configDir);
      expect(withPassword.code).toBe(2);
      expect(withPassword.stderr).toContain('must not carry a user name or password');
      const webhookUrl = await cli(['webhooks', 'create', '--url', 'https://me:hunter3@example.com/x', '--events', 'invoice.paid'], configDir);
      expect(webhookUrl.code).toBe(2);
      for (const result of [withPassword, webhookUrl]) expect(result.stderr).not.toMatch(/hunter[23]/);
    });

    it('credentials from the environment: never told to set what is set', async () => {
      const result = await cli(['webhooks', 'list'], configDir, { env: { WHSVC_CLIENT_ID: sandbox.info.client_id, WHSVC_CLIENT_SECRET: 'wrong-env-secret' } });
      expect(result.code).toBe(3);
      const [message, hint] = lines(result.stderr);
      expect(message).toContain(
        `(client ${sandbox.info.client_id} from WHSVC_CLIENT_ID/WHSVC_CLIENT_SECRET, at ${sandbox.info.base_url} (from WHSVC_BASE_URL))`,
      );
      expect(hint).toMatch(/^hint: check the values of WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET/);
      expect(result.stderr).not.toMatch(/\bset WHSVC_CLIENT_ID|whsvc login/);
      expect(result.stderr).not.toContain('wrong-env-secret');
    });
  });

  it('only one of WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET: exit 2 naming the missing one', async () => {
    const onlyId = await cli(['webhooks', 'list'], configDir, { env: { WHSVC_CLIENT_ID: sandbox.info.client_id } });
    expect(onlyId.code).toBe(2);
    expect(onlyId.stderr).toContain('WHSVC_CLIENT_SECRET is not');
    const onlySecret = await cli(['webhooks', 'list'], configDir, { env: { WHSVC_CLIENT_SECRET: sandbox.info.client_secret } });
    expect(onlySecret.code).toBe(2);
    expect(onlySecret.stderr).toContain('WHSVC_CLIENT_ID is not');
    expect(onlySecret.stderr).not.toContain(sandbox.info.client_secret);
  });

  it('login --json with a wrong secret: the JSON error carries what the service answered', async () => {
    const result = await cli(['login', '--client-id', sandbox.info.client_id, '--client-secret-stdin', '--json'], configDir, { input: 'wrong-secret' });
    expect(result.code).toBe(3);
    const jsonLine = result.stderr.split('\n').find((line) => line.startsWith('{'))!;
    expect(JSON.parse(jsonLine).error).toMatchObject({ status: 401, code: 'invalid_client' });
    expect(result.stderr).toContain('nothing was stored');
  });
});
