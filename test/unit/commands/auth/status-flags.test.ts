import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/auth/status.js';
import { verb } from '../../../helpers/verb.js';

const status = verb(['auth', 'status'], command);

describe('auth status: flags', () => {
  it('the cached token by default; --check asks the service now', async () => {
    expect(await status.options([])).toEqual({ check: false });
    expect(await status.options(['--check', '--json'])).toEqual({ check: true });
  });

  it('the credentials of the environment, when both are set; one without the other is a usage error', async () => {
    const { deps } = await status.ran([], { env: { WHSVC_CLIENT_ID: 'cli_env', WHSVC_CLIENT_SECRET: 'cs_env' } });
    expect(deps).toMatchObject({ credentialSource: 'env', clientId: 'cli_env' });
    expect(await status.refused([], { env: { WHSVC_CLIENT_ID: 'cli_env' } })).toEqual({
      code: 2,
      stderr: 'whsvc: WHSVC_CLIENT_ID is set but WHSVC_CLIENT_SECRET is not: set both, or neither to use the profile\n',
    });
  });
});
