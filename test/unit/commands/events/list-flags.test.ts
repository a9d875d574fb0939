import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/events/list.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const events = verb(['events'], command);

describe('events (and events list): flags', () => {
  it('takes no flag of its own; events list is the same catalog', async () => {
    expect(await events.options([])).toEqual({});
    expect(await events.options(['list', '--json'])).toEqual({});
    expect(await events.options(['--jq', '.data[].type'])).toEqual({});
    expect(await events.refused(['--check'])).toEqual({ code: 2, stderr: `whsvc: unknown option --check\n${SEE_HELP}` });
  });

  it('a word that is not list is refused', async () => {
    expect(await events.refused(['lsit'])).toEqual({
      code: 2,
      stderr: `whsvc: too many arguments for events: expected 0 arguments but got 1: lsit\n${SEE_HELP}`,
    });
  });

  it('a --base-url that is no http(s) URL is a usage error, before any request', async () => {
    const { code, stderr } = await events.refused(['--base-url', 'ftp://127.0.0.1:4010'], { env: { WHSVC_CLIENT_ID: 'a', WHSVC_CLIENT_SECRET: 'b' } });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'whsvc: the base URL "ftp://127.0.0.1:4010" (from --base-url) is not an http(s) URL\nhint: for example --base-url http://127.0.0.1:4010\n',
    );
  });
});
