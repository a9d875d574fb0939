import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/auth/login.js';
import { NO_PROMPT } from '../../../../src/cli/errors.js';
import { verb } from '../../../helpers/verb.js';

const login = verb(['login'], command);
/** gh's form: the same verb under auth. */
const authLogin = verb(['auth', 'login'], command);

describe('login: flags', () => {
  it('each flag to its option, as login or auth login', async () => {
    const expected = { clientId: 'cli_1', clientSecretStdin: true, scope: 'webhooks:read webhooks:write' };
    expect(await login.options(['--client-id', 'cli_1', '--client-secret-stdin', '--scope', 'webhooks:read webhooks:write'])).toEqual(expected);
    expect(await authLogin.options(['--client-id', 'cli_1', '--client-secret-stdin', '--scope', 'webhooks:read webhooks:write'])).toEqual(expected);
  });

  it('--client-secret is refused: a secret on the command line is seen by others, and kept in shell history', async () => {
    expect(await login.refused(['--client-id', 'cli_1', '--client-secret', 'cs_visible'])).toEqual({
      code: 2,
      stderr:
        'whsvc: there is no --client-secret: a secret on the command line is visible to other users and kept in shell history\n' +
        'hint: leave it out on a terminal to be asked, masked, or pipe it in: printf %s "$SECRET" | whsvc login --client-id ID --client-secret-stdin\n',
    });
  });

  it('without a terminal nothing is asked: the client id, and the secret on stdin, are required', async () => {
    expect(await login.refused(['--client-secret-stdin'], { input: 'x' })).toEqual({ code: 2, stderr: `whsvc: --client-id is required (${NO_PROMPT})\n` });
    expect(await login.refused(['--client-id', '  ', '--client-secret-stdin'])).toEqual({
      code: 2,
      stderr: `whsvc: --client-id is required (${NO_PROMPT})\n`,
    });
    expect(await login.refused(['--client-id', 'someone'])).toEqual({
      code: 2,
      stderr: `whsvc: the client secret is needed (${NO_PROMPT})\nhint: pipe it in: printf %s "$SECRET" | whsvc login --client-id ID --client-secret-stdin\n`,
    });
    expect((await login.refused(['--client-id', 'someone', '--no-input'], { terminal: true })).code).toBe(2);
    expect((await login.refused(['--client-id', 'someone'], { terminal: true, env: { CI: '1' } })).code).toBe(2);
  });

  it('on a terminal, what is not given is asked', async () => {
    const { options, deps } = await login.ran([], { terminal: true });
    expect(options).toEqual({ clientId: undefined, clientSecretStdin: false, scope: undefined });
    expect(deps.canPrompt).toBe(true);
  });

  it('the profile and the address it logs in to, from the global options; plain http only to this machine', async () => {
    const { deps } = await login.ran(['--client-id', 'cli_1', '--client-secret-stdin', '--profile', 'prod', '--base-url', 'api.example.com']);
    expect(deps.profileName).toBe('prod');
    expect(deps.api.baseUrl).toBe('https://api.example.com');
    const http = await login.refused(['--base-url', 'http://example.com', '--client-id', 'id', '--client-secret-stdin'], { input: 'secret' });
    expect(http).toEqual({
      code: 2,
      stderr:
        'whsvc: the base URL http://example.com (from --base-url) must use https: plain http is only for this machine (localhost, 127.0.0.1, [::1])\n' +
        'hint: use https://example.com\n',
    });
  });
});
