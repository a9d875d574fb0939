import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/api/api.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const api = verb(['api'], command);

describe('api: flags', () => {
  it('a path; the method, the fields (-f first, then -F), the body and the headers to their options', async () => {
    expect(await api.options(['/v1/webhooks'])).toEqual({
      path: '/v1/webhooks',
      method: undefined,
      fields: [],
      input: undefined,
      headers: [],
      paginate: false,
    });
    const options = await api.options([
      ...['/v1/webhooks', '-X', 'post', '-F', 'active=false', '-f', 'url=https://example.com/hooks', '--raw-field', 'events[]=invoice.paid'],
      ...['--input', '-', '-H', 'Accept: application/json', '--header', 'X-Trace:  1 '],
    ]);
    expect(options).toEqual({
      path: '/v1/webhooks',
      method: 'POST',
      fields: [
        { typed: false, text: 'url=https://example.com/hooks' },
        { typed: false, text: 'events[]=invoice.paid' },
        { typed: true, text: 'active=false' },
      ],
      input: '-',
      headers: [
        ['Accept', 'application/json'],
        ['X-Trace', '1'],
      ],
      paginate: false,
    });
    expect((await api.options(['/v1/webhooks', '--paginate', '--jq', '.data[].url'])).paginate).toBe(true);
  });

  it("a method that is no word, a header that is none or is whsvc's own, a missing path: usage errors", async () => {
    expect(await api.refused(['/v1/webhooks', '-X', 'GET /x'])).toEqual({
      code: 2,
      stderr: `whsvc: --method 'GET /x': must be an HTTP method, such as GET, POST, PATCH or DELETE\n${SEE_HELP}`,
    });
    expect(await api.refused(['/v1/webhooks', '-H', 'Accept'])).toEqual({
      code: 2,
      stderr: 'whsvc: -H "Accept": a header is "Name: value"\nhint: for example -H "Accept: application/json"\n',
    });
    expect((await api.refused(['/v1/webhooks', '-H', 'Authorization: Bearer x'])).stderr).toBe(
      "whsvc: -H Authorization: whsvc sets this header itself\nhint: the token is the profile's: use --profile, or WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET\n",
    );
    expect(await api.refused([])).toEqual({ code: 2, stderr: `whsvc: <path> is required\n${SEE_HELP}` });
  });
});
