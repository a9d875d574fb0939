import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError } from '../../../../src/api/errors.js';
import { run as login } from '../../../../src/commands/auth/login.js';
import { run as logout } from '../../../../src/commands/auth/logout.js';
import { run as status } from '../../../../src/commands/auth/status.js';
import { run as token } from '../../../../src/commands/auth/token.js';
import { tokenIdentity } from '../../../../src/cli/context.js';
import { CliError } from '../../../../src/cli/errors.js';
import { ConfigStore } from '../../../../src/config/store.js';
import { CLIENT_ID, CLIENT_SECRET, ORIGIN, T0, fakeDeps, finishFakeDeps, mockToken, rejectionOf } from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const NEW_SECRET = 'cs_live_L0g1nS3cret_abcdef';

/** Every file under dir, with its text. */
function filesIn(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path, text: readFileSync(path, 'utf8') });
  }
  return out;
}

describe('login', () => {
  it('a rejected secret stores nothing', async () => {
    const fake = fakeDeps({ credentials: null, stdin: 'cs_wrong_secret\n' });
    const bodies = mockToken(fake.mock, { status: 401 });
    const error = await rejectionOf(login({ clientId: 'cli_new', clientSecretStdin: true }, fake.deps));
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status: 401, hint: expect.stringContaining('check the client id and secret') });
    expect(error.message).toContain('nothing was stored');
    expect(bodies).toHaveLength(1);
    expect(new ConfigStore(fake.configDir).getProfile('default')).toBeUndefined();
    for (const file of filesIn(fake.configDir)) expect(file.text).not.toContain('cs_wrong_secret');
  });

  it('an accepted secret stores the profile (mode 0600) and the token; the secret is read from stdin, trailing newline stripped', async () => {
    const fake = fakeDeps({ credentials: null, stdin: `${NEW_SECRET}\n` });
    const bodies = mockToken(fake.mock, { token: 'tok_login', scope: 'webhooks:read webhooks:write', expiresIn: 3600 });
    const code = await login({ clientId: 'cli_new', clientSecretStdin: true, scope: 'webhooks:read webhooks:write' }, fake.deps);
    expect(code).toBe(0);
    expect(bodies).toEqual([{ grant_type: 'client_credentials', client_id: 'cli_new', client_secret: NEW_SECRET, scope: 'webhooks:read webhooks:write' }]);
    const store = new ConfigStore(fake.configDir);
    expect(store.getProfile('default')).toEqual({
      base_url: ORIGIN,
      client_id: 'cli_new',
      client_secret: NEW_SECRET,
      scope: 'webhooks:read webhooks:write',
    });
    expect(statSync(store.path('config')).mode & 0o777).toBe(0o600);
    const cached = store
      .tokenCache('default', tokenIdentity(ORIGIN, { clientId: 'cli_new', clientSecret: NEW_SECRET, scope: 'webhooks:read webhooks:write' }))
      .read();
    expect(cached).toMatchObject({ access_token: 'tok_login', expires_at: T0 + 3600_000 });
    for (const file of filesIn(fake.configDir)) expect(statSync(file.path).mode & 0o777, file.path).toBe(0o600);
    const out = fake.stdout.text + fake.stderr.text;
    expect(out).not.toContain(NEW_SECRET);
    expect(fake.stderr.text).toContain('cli_new');
  });

  it('a secret arriving in several chunks, with CRLF, is read whole', async () => {
    const fake = fakeDeps({ credentials: null, stdin: ['cs_live_', 'chunked\r\n'] });
    const bodies = mockToken(fake.mock);
    await login({ clientId: 'cli_new', clientSecretStdin: true }, fake.deps);
    expect(bodies[0]!.client_secret).toBe('cs_live_chunked');
  });

  it('whitespace at the ends of a pasted secret is no part of it (a trailing space, CR, newline), as gh reads a token', async () => {
    for (const pasted of [`${NEW_SECRET} `, ` ${NEW_SECRET}\r\n`, `${NEW_SECRET}\t\n\n`]) {
      const fake = fakeDeps({ credentials: null, stdin: pasted });
      const bodies = mockToken(fake.mock);
      await login({ clientId: ' cli_new ', clientSecretStdin: true }, fake.deps);
      expect(bodies[0], JSON.stringify(pasted)).toMatchObject({ client_id: 'cli_new', client_secret: NEW_SECRET });
      expect(new ConfigStore(fake.configDir).getProfile('default')?.client_secret).toBe(NEW_SECRET);
    }
    const prompted = fakeDeps({ credentials: null, canPrompt: true, answers: [{ kind: 'password', message: /secret/i, answer: `${NEW_SECRET}  ` }] });
    const bodies = mockToken(prompted.mock);
    await login({ clientId: 'cli_new', clientSecretStdin: false }, prompted.deps);
    expect(bodies[0]!.client_secret).toBe(NEW_SECRET);
  });

  it('a refused secret with a space or line break inside says so', async () => {
    const fake = fakeDeps({ credentials: null, stdin: 'cs_live_half\ncs_other_half\n' });
    mockToken(fake.mock, { status: 401 });
    const error = await rejectionOf(login({ clientId: 'cli_new', clientSecretStdin: true }, fake.deps));
    expect(error).toMatchObject({ hint: 'check the client secret: it holds a space or a line break inside: copy it again, whole, on one line' });
  });

  it('empty stdin is a usage error, no request', async () => {
    const fake = fakeDeps({ credentials: null, stdin: '' });
    const error = await rejectionOf(login({ clientId: 'cli_new', clientSecretStdin: true }, fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(2);
    expect(fake.requests).toHaveLength(0);
  });

  it('on a terminal, asks for the client id and (masked) secret', async () => {
    const fake = fakeDeps({
      credentials: null,
      canPrompt: true,
      answers: [
        { kind: 'input', message: /client id/i, answer: '  cli_prompted ' },
        { kind: 'password', message: /secret/i, answer: NEW_SECRET },
      ],
    });
    const bodies = mockToken(fake.mock);
    await login({ clientSecretStdin: false }, fake.deps);
    expect(bodies[0]).toMatchObject({ client_id: 'cli_prompted', client_secret: NEW_SECRET });
    expect(new ConfigStore(fake.configDir).getProfile('default')?.client_id).toBe('cli_prompted');
  });

  it('--base-url is stored with the profile and the token is fetched there', async () => {
    const fake = fakeDeps({ credentials: null, stdin: NEW_SECRET });
    mockToken(fake.mock);
    // What --base-url (or WHSVC_BASE_URL) gives: the client built for that address.
    fake.deps.api = fake.client({ credentials: undefined, baseUrl: `${ORIGIN}/` });
    await login({ clientId: 'cli_new', clientSecretStdin: true }, fake.deps);
    expect(fake.requests[0]!.url.href).toBe(`${ORIGIN}/v1/oauth/token`);
    expect(new ConfigStore(fake.configDir).getProfile('default')?.base_url).toBe(`${ORIGIN}/`);
  });

  it('a profile of another address or client is replaced saying what it held (one line); the same client again says nothing', async () => {
    const fake = fakeDeps({ credentials: null, stdin: NEW_SECRET });
    await fake.deps.config.setProfile('default', { base_url: 'https://api.example.com', client_id: 'cli_prod', client_secret: 'cs_prod' });
    mockToken(fake.mock);
    expect(await login({ clientId: 'cli_new', clientSecretStdin: true }, fake.deps)).toBe(0);
    expect(fake.stderr.text.split('\n')[0]).toBe(
      'whsvc: replaced profile default, which held client cli_prod at https://api.example.com (whsvc login --profile NAME keeps a login of its own)',
    );
    expect(fake.stderr.text).not.toContain('cs_prod');
    expect(new ConfigStore(fake.configDir).getProfile('default')?.client_id).toBe('cli_new');

    const again = fakeDeps({ credentials: null, stdin: 'cs_rotated' });
    await again.deps.config.setProfile('default', { base_url: `${ORIGIN}/`, client_id: 'cli_new', client_secret: NEW_SECRET });
    mockToken(again.mock);
    await login({ clientId: 'cli_new', clientSecretStdin: true }, again.deps);
    expect(again.stderr.text).not.toContain('replaced');
  });

  it('on a terminal, replacing another address is asked first; no keeps the profile and says how to keep both', async () => {
    const fake = fakeDeps({
      credentials: null,
      canPrompt: true,
      answers: [{ kind: 'confirm', message: /holds client cli_prod at https:\/\/api\.example\.com\. Replace it/, answer: false }],
    });
    const prod = { base_url: 'https://api.example.com', client_id: 'cli_prod', client_secret: 'cs_prod' };
    await fake.deps.config.setProfile('default', prod);
    const error = await rejectionOf(login({ clientId: 'sbx_demo_readwrite', clientSecretStdin: false }, fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({
      exitCode: 1,
      message: 'nothing was stored: profile default keeps client cli_prod at https://api.example.com',
      hint: 'to keep both, log in under a profile of its own: whsvc login --profile NAME --client-id sbx_demo_readwrite',
    });
    expect(fake.requests).toHaveLength(0);
    expect(new ConfigStore(fake.configDir).getProfile('default')).toEqual(prod);
  });

  it('--json prints the profile, never the secret', async () => {
    const fake = fakeDeps({ credentials: null, stdin: NEW_SECRET, json: true });
    mockToken(fake.mock, { scope: 'webhooks:read' });
    await login({ clientId: 'cli_new', clientSecretStdin: true }, fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual({ profile: 'default', base_url: ORIGIN, client_id: 'cli_new', scope: 'webhooks:read' });
    expect(fake.stdout.text + fake.stderr.text).not.toContain(NEW_SECRET);
  });
});

describe('auth status', () => {
  async function loggedIn(options: { json?: boolean; scope?: string } = {}) {
    const fake = fakeDeps({ json: options.json ?? false, tokenCache: true });
    await fake.deps.config.setProfile('default', { base_url: ORIGIN, client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    mockToken(fake.mock, { token: 'tok_status_123', scope: options.scope ?? 'webhooks:read webhooks:write', expiresIn: 1800 });
    return fake;
  }

  it('shows profile, base URL, client id, scope and expiry, never the client secret or the token', async () => {
    const fake = await loggedIn();
    expect(await status({}, fake.deps)).toBe(0);
    const out = fake.stdout.text;
    expect(out).toMatch(/^profile\s+default$/m);
    expect(out).toMatch(new RegExp(`^base URL\\s+${ORIGIN.replace(/\./g, '\\.')}$`, 'm'));
    expect(out).toMatch(new RegExp(`^client id\\s+${CLIENT_ID}$`, 'm'));
    expect(out).toMatch(/^scope\s+webhooks:read webhooks:write$/m);
    expect(out).toMatch(/^token expires\s+in 30 minutes \(2025-01-15T12:30:00\.000Z\)$/m);
    expect(out).toMatch(/^checked\s+yes/m);
    const all = out + fake.stderr.text;
    expect(all).not.toContain(CLIENT_SECRET);
    expect(all).not.toContain('tok_status_123');
  });

  it('--json: the same facts, never the client secret', async () => {
    const fake = await loggedIn({ json: true });
    await status({}, fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual({
      profile: 'default',
      source: 'profile',
      base_url: ORIGIN,
      client_id: CLIENT_ID,
      scope: 'webhooks:read webhooks:write',
      token_expires_at: '2025-01-15T12:30:00.000Z',
      checked: true,
    });
    expect(fake.stdout.text + fake.stderr.text).not.toContain(CLIENT_SECRET);
  });

  it('with a cached token: shows its expiry without a request; --check asks the service for a new one', async () => {
    const fake = await loggedIn({ json: true });
    await fake.deps.api.token();
    const before = fake.requests.length;
    await status({}, fake.deps);
    expect(fake.requests).toHaveLength(before);
    expect(JSON.parse(fake.stdout.text)).toMatchObject({ token_expires_at: '2025-01-15T12:30:00.000Z', checked: false });
    mockToken(fake.mock, { token: 'tok_status_456', expiresIn: 3600 });
    const printed = fake.stdout.text.length;
    await status({ check: true }, fake.deps);
    expect(fake.requests).toHaveLength(before + 1);
    expect(JSON.parse(fake.stdout.text.slice(printed))).toMatchObject({ token_expires_at: '2025-01-15T13:00:00.000Z', checked: true });
  });

  it('credentials from the environment: names the source, never the secret', async () => {
    const fake = fakeDeps({ credentialSource: 'env', env: { WHSVC_CLIENT_ID: CLIENT_ID, WHSVC_CLIENT_SECRET: CLIENT_SECRET } });
    mockToken(fake.mock);
    await status({}, fake.deps);
    expect(fake.stdout.text).toContain('WHSVC_CLIENT_ID');
    expect(fake.stdout.text).toContain(CLIENT_ID);
    expect(fake.stdout.text + fake.stderr.text).not.toContain(CLIENT_SECRET);
  });

  it('not logged in: AuthError, no request', async () => {
    const fake = fakeDeps({ credentials: null });
    await expect(status({}, fake.deps)).rejects.toBeInstanceOf(AuthError);
    expect(fake.requests).toHaveLength(0);
  });

  it('the scope granted by the server is shown without control characters', async () => {
    const fake = await loggedIn({ scope: 'webhooks:read\u001b]0;pwned\u0007\u001b[2J' });
    await status({}, fake.deps);
    expect(fake.stdout.text).toContain('webhooks:read');
    expect(fake.stdout.text).not.toMatch(CONTROL);
  });
});

describe('auth token and logout', () => {
  it('auth token prints the access token alone', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { token: 'tok_for_curl' });
    await token({}, fake.deps);
    expect(fake.stdout.text).toBe('tok_for_curl\n');
  });

  it('logout forgets the profile and its cached token', async () => {
    const fake = fakeDeps({ tokenCache: true });
    await fake.deps.config.setProfile('default', { base_url: ORIGIN, client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    mockToken(fake.mock, { token: 'tok_forget_me' });
    await fake.deps.api.token();
    await logout({}, fake.deps);
    for (const file of filesIn(fake.configDir)) {
      expect(file.text).not.toContain(CLIENT_SECRET);
      expect(file.text).not.toContain('tok_forget_me');
    }
    expect(new ConfigStore(fake.configDir).getProfile('default')).toBeUndefined();
  });
});
