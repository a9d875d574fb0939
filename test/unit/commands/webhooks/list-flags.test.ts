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
    expect(await list.refused(['--limt', '5'])).toEqual({ code: 2, stderr: `whsvc: unknown option --limt\n(Did you mean --limit?)\n${SEE_HELP}` });
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

  it('--timeout is no global option: the limit of each request is --request-timeout', async () => {
    const { code, stderr } = await list.refused(['--timeout', '2']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^whsvc: unknown option --timeout \(the limit of each request is --request-timeout; .*\)\n/);
  });
});
