import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/webhooks/list.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const list = verb(['webhooks', 'list'], command);

describe('webhooks list: flags', () => {
  it('one page by default; each flag to its option', async () => {
    expect(await list.options([])).toEqual({ active: undefined, limit: undefined, cursor: undefined, all: false });
    expect(await list.options(['--active', 'false', '--limit', '200', '--cursor', 'c_2', '--all'])).toEqual({
      active: false,
      limit: 200,
      cursor: 'c_2',
      all: true,
    });
    expect((await list.options(['--active', 'true'])).active).toBe(true);
  });

  it('--active is true or false, with a suggestion for a near miss', async () => {
    expect(await list.refused(['--active', 'ture'])).toEqual({
      code: 2,
      stderr: `whsvc: --active ture: use one of true, false; did you mean true?\n${SEE_HELP}`,
    });
  });

  it('--limit is 1 to 200', async () => {
    expect(await list.refused(['--limit', '0'])).toEqual({ code: 2, stderr: `whsvc: --limit 0: must be an integer from 1 to 200\n${SEE_HELP}` });
    expect((await list.refused(['--limit', '201'])).stderr.split('\n')[0]).toBe('whsvc: --limit 201: must be an integer from 1 to 200');
    expect((await list.refused(['--limit', '5x'])).code).toBe(2);
  });

  it('a mistyped flag gets its suggestion; with --json, one JSON line too', async () => {
    expect(await list.refused(['--limt', '5'])).toEqual({ code: 2, stderr: `whsvc: unknown option --limt; did you mean --limit?\n${SEE_HELP}` });
    const json = await list.refused(['--json', '--limit', '0']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr.split('\n').find((line) => line.startsWith('{'))!)).toEqual({
      error: { status: null, code: 'usage', message: '--limit 0: must be an integer from 1 to 200' },
    });
  });

  it('the global options as the run reads them: --json, and the limits of each request', async () => {
    const { deps } = await list.ran(['--json', '--profile', 'ci']);
    expect(deps).toMatchObject({ json: true, profileName: 'ci', canPrompt: false });
    expect((await list.refused(['--request-timeout', 'soon'])).stderr.split('\n')[0]).toBe(
      'whsvc: --request-timeout soon: must be a duration such as 500ms, 90s, 30m, 2h or 3d (a bare number is seconds)',
    );
    expect((await list.refused([], { env: { WHSVC_TIMEOUT: 'soon' } })).stderr).toBe(
      'whsvc: WHSVC_TIMEOUT "soon" is not a request timeout\nhint: a duration from 1ms to 24h, such as 10s or 2m\n',
    );
  });

  it('a --jq expression that does not compile is refused before the run', async () => {
    const { code, stderr } = await list.refused(['--jq', '.data | lenght']);
    expect(code).toBe(2);
    expect(stderr.split('\n').slice(0, 2)).toEqual([
      'whsvc: --jq ".data | lenght": lenght/0 is not defined (line 1, column 9)',
      'hint: jq expressions as in jq 1.8: https://jqlang.org/manual/',
    ]);
  });

  it('--timeout is no global option: the limit of each request is --request-timeout', async () => {
    const { code, stderr } = await list.refused(['--timeout', '2']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^whsvc: unknown option --timeout \(the limit of each request is --request-timeout; .*\)\n/);
  });

  it('the address: plain http only to this machine, no user name or password, an http(s) URL', async () => {
    const credentials = { WHSVC_CLIENT_ID: 'id', WHSVC_CLIENT_SECRET: 'secret' };
    for (const url of ['http://example.com', 'http://10.0.0.5:4010', 'http://169.254.169.254']) {
      const { code, stderr } = await list.refused([], { env: { WHSVC_BASE_URL: url, ...credentials } });
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /^whsvc: the base URL .* \(from WHSVC_BASE_URL\) must use https: plain http is only for this machine .*\nhint: use https:\/\/.*\n$/,
      );
    }
    const withPassword = await list.refused(['--base-url', 'http://me:hunter2@127.0.0.1:9/']);
    expect(withPassword).toEqual({
      code: 2,
      stderr: 'whsvc: the base URL http://***@127.0.0.1:9/ (from --base-url) must not carry a user name or password (user:pass@)\n',
    });
  });

  it('the profile name: one with control characters is refused, shown escaped', async () => {
    for (const [args, env, source] of [
      [['--profile', 'a\u001b[31mb'], {}, '--profile'],
      [[], { WHSVC_PROFILE: 'x\u009b2Jy\nz' }, 'WHSVC_PROFILE'],
    ] as const) {
      const { code, stderr } = await list.refused([...args], { env });
      expect(code).toBe(2);
      expect(stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(stderr.split('\n')[0]).toMatch(new RegExp(`^whsvc: the profile name ".*\\\\u00(1b|9b).*" \\(from ${source}\\) holds control characters$`));
    }
  });

  it('WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET go together', async () => {
    expect((await list.refused([], { env: { WHSVC_CLIENT_ID: 'cli_1' } })).stderr).toBe(
      'whsvc: WHSVC_CLIENT_ID is set but WHSVC_CLIENT_SECRET is not: set both, or neither to use the profile\n',
    );
    const onlySecret = await list.refused([], { env: { WHSVC_CLIENT_SECRET: 'cs_only' } });
    expect(onlySecret.stderr).toBe('whsvc: WHSVC_CLIENT_SECRET is set but WHSVC_CLIENT_ID is not: set both, or neither to use the profile\n');
    expect(onlySecret.stderr).not.toContain('cs_only');
  });
});
