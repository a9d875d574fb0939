import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { defaultTransport, proxyForDisplay, undiciTransport } from '../../../src/api/transport.js';
import { localFailure, proxySettings, TransportError, toTransportError } from '../../../src/net.js';
import { type Breakage, startHostileReceiver, tellingAnswerHeads } from '../../helpers/hostile-receivers.js';

/** fetch's way of failing: a TypeError whose cause says what happened. */
const fetchFailed = (cause: Record<string, unknown>) =>
  Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(String(cause.message ?? 'x')), cause) });

describe('toTransportError', () => {
  it.each([
    ['ERR_SSL_WRONG_VERSION_NUMBER', /plain http, not https/],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', /certificate is not trusted .*NODE_EXTRA_CA_CERTS/],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', /certificate is not trusted/],
  ])('TLS failure %s is one line saying what to do, nothing sent', (code, message) => {
    const error = toTransportError(
      fetchFailed({ code, message: 'C0B7:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl\nmore' }),
      1000,
    );
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).message).toMatch(message);
    expect((error as TransportError).message).not.toContain('\n');
    expect((error as TransportError).sent).toBe(false);
  });

  it('a proxy refusing the tunnel is a network error, nothing sent', () => {
    const error = toTransportError(fetchFailed({ code: 'UND_ERR_ABORTED', message: 'Proxy response (407) !== 200 when HTTP Tunneling' }), 1000);
    expect(error).toMatchObject({ code: 'EPROXY', sent: false, message: 'the proxy refused the tunnel (HTTP 407)' });
  });

  it.each([
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9' }, 'connection refused', false],
    [{ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND nowhere.invalid' }, 'host not found', false],
    [{ code: 'UND_ERR_SOCKET', message: 'other side closed' }, 'connection reset', true],
    [{ code: 'UND_ERR_HEADERS_TIMEOUT', message: 'Headers Timeout Error' }, 'no answer within 500 ms', true],
  ])('%o is said in plain words, the same for every request whsvc makes', (cause, words, sent) => {
    expect(toTransportError(fetchFailed(cause), 500)).toMatchObject({ message: words, sent });
    expect(toTransportError(Object.assign(new Error(cause.message), { code: cause.code }), 500)).toMatchObject({ message: words, sent });
  });

  it('a timeout of the signal is ETIMEDOUT, maybe sent', () => {
    const error = toTransportError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 2500);
    expect(error).toMatchObject({ code: 'ETIMEDOUT', sent: true, message: 'no answer within 2.5 s' });
  });
});

describe('an answer that breaks HTTP, from receivers on 127.0.0.1: one line naming what broke, for every request whsvc makes', () => {
  it.each<[Breakage, string | RegExp]>([
    ['headers over 16 KiB', 'broken answer: its headers pass 16 KiB, more than whsvc reads'],
    ['not HTTP', 'broken answer: not HTTP: it does not begin with an HTTP/1.1 status line'],
    ['a body shorter than its Content-Length', 'broken answer: the connection closed after 9 of the 100 bytes its Content-Length announced'],
    ['a bad chunk size', 'broken answer: not HTTP/1.1 (invalid character in chunk size)'],
    ['status line 000', "broken answer: its status line's code is not an HTTP status (000, outside 100–599)"],
    ['status line 099', "broken answer: its status line's code is not an HTTP status (099, outside 100–599)"],
    ['status line 600', "broken answer: its status line's code is not an HTTP status (600, outside 100–599)"],
    // The head came: how much of the body had come when the reset did depends on the sockets' timing.
    ['a reset mid-answer', /^broken answer: the connection was reset after [04] of the 100 bytes its Content-Length announced$/],
  ])('%s', async (breakage, words) => {
    const receiver = await startHostileReceiver(breakage);
    const agent = new Agent();
    const send = undiciTransport(tellingAnswerHeads(agent, () => receiver.resetHeld()));
    try {
      const failure = await send({ method: 'POST', url: new URL(`${receiver.url}/hook`), headers: {}, body: '{}', timeoutMs: 30_000, bodyLimit: 1024 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TransportError);
      expect(failure).toMatchObject({ code: 'EBADANSWER', sent: true, message: words });
      expect(receiver.requests).toBe(1);
    } finally {
      await agent.close();
      await receiver.close();
    }
  });

  it("undici's codes for a broken answer, as other versions give them (llhttp's HPE_), and this process's own failures, in words", () => {
    const coded = (code: string, message: string) => toTransportError(Object.assign(new Error(message), { code }), 500);
    expect(coded('HPE_HEADER_OVERFLOW', 'Header overflow')).toMatchObject({
      code: 'EBADANSWER',
      message: 'broken answer: its headers pass 16 KiB, more than whsvc reads',
    });
    expect(coded('HPE_INVALID_CONSTANT', 'Expected HTTP/')).toMatchObject({
      message: 'broken answer: not HTTP: it does not begin with an HTTP/1.1 status line',
    });
    expect(coded('UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'Response body length does not match content-length header')).toMatchObject({
      message: 'broken answer: its body is not as long as its Content-Length says',
    });
    expect(coded('EMFILE', 'connect EMFILE 127.0.0.1:3000 - Local (undefined:undefined)')).toMatchObject({
      code: 'EMFILE',
      sent: false,
      message: 'too many open files (EMFILE): the process is at its file limit',
    });
    expect(localFailure(fetchFailed({ code: 'ENOMEM', message: 'x' }))).toBe('out of memory (ENOMEM)');
  });
});

describe('proxy settings', () => {
  it('none without a proxy variable; lower case first, as curl; https falls back to the http proxy', () => {
    expect(proxySettings({ NO_PROXY: 'x' })).toBeUndefined();
    expect(proxySettings({ http_proxy: 'http://a:1', HTTP_PROXY: 'http://b:1', no_proxy: 'h' })).toEqual({
      httpProxy: 'http://a:1',
      httpsProxy: 'http://a:1',
      noProxy: 'h',
    });
    expect(proxySettings({ HTTPS_PROXY: 'http://s:1' })).toEqual({ httpProxy: undefined, httpsProxy: 'http://s:1', noProxy: undefined });
  });

  it('a proxy without a scheme is http, as curl and Go read it: user:pass@host:port, host:port', () => {
    expect(proxySettings({ HTTPS_PROXY: 'bob:s3cret@proxy.corp:3128' })?.httpsProxy).toBe('http://bob:s3cret@proxy.corp:3128');
    expect(proxySettings({ http_proxy: 'proxy.corp:3128' })).toMatchObject({ httpProxy: 'http://proxy.corp:3128', httpsProxy: 'http://proxy.corp:3128' });
    expect(proxySettings({ HTTPS_PROXY: 'https://proxy.corp:443' })?.httpsProxy).toBe('https://proxy.corp:443');
    expect(proxyForDisplay(proxySettings({ HTTPS_PROXY: 'bob:s3cret@proxy.corp:3128' })!.httpsProxy!)).toBe('http://proxy.corp:3128');
  });

  it('a proxy undici cannot go through is one line naming it, without its credentials, nothing sent', async () => {
    const send = defaultTransport({ HTTPS_PROXY: 'ftp://bob:s3cret@proxy.corp:2121' });
    const error = await send({ method: 'GET', url: new URL('https://service.test/v1/webhooks'), headers: {}, timeoutMs: 1000, bodyLimit: 1024 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      code: 'EPROXY',
      sent: false,
      proxy: 'ftp://proxy.corp:2121',
      message: 'cannot use the proxy ftp://proxy.corp:2121: Invalid URL protocol: the URL must start with `http:` or `https:`.',
    });
  });

  it('a proxy is shown without its credentials', () => {
    expect(proxyForDisplay('http://user:pa55@proxy.corp:3128/')).toBe('http://proxy.corp:3128');
    expect(proxyForDisplay('not a url:pa55')).not.toContain('pa55');
  });
});

describe('defaultTransport', () => {
  it('is one Agent, one pool of connections, also when its first requests all start before it is made (a load at its start)', async () => {
    const { createServer } = await import('node:http');
    /** Two waves of ten requests at once through `send`: the connections they took (the second reuses the first's). */
    const connectionsOfTwoWaves = async (send: (url: URL) => Promise<unknown>) => {
      let connections = 0;
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.end('ok'));
      });
      server.on('connection', () => (connections += 1));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
      const wave = () => Promise.all(Array.from({ length: 10 }, () => send(url)));
      await wave();
      await wave();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return connections;
    };
    const transport = defaultTransport({});
    const agent = new Agent();
    const ours = await connectionsOfTwoWaves((url) => transport({ method: 'POST', url, headers: {}, body: '{}', timeoutMs: 10_000, bodyLimit: 1024 }));
    const one = await connectionsOfTwoWaves((url) => agent.request({ origin: url.origin, path: '/', method: 'POST', body: '{}' }).then((r) => r.body.text()));
    await agent.close();
    // One Agent takes ten for the first wave, and (undici freeing a connection a moment after its answer) one more.
    expect(one).toBeLessThan(15);
    expect(ours).toBe(one);
  });
});

describe('undiciTransport: a request given a signal', () => {
  it('ends wherever it is when the signal aborts (its answer no longer wanted): rejected with its reason, its connection closed', async () => {
    const { createServer } = await import('node:http');
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    let closed!: () => void;
    const closing = new Promise<void>((resolve) => (closed = resolve));
    // It never answers: only the abort can end the request.
    const server = createServer((req) => {
      req.socket.on('close', closed);
      arrived();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent();
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
      const controller = new AbortController();
      const answer = undiciTransport(agent)({
        method: 'GET',
        url,
        headers: {},
        timeoutMs: Number.POSITIVE_INFINITY,
        bodyLimit: 1024,
        signal: controller.signal,
      });
      await arrival;
      controller.abort();
      await expect(answer).rejects.toMatchObject({ name: 'AbortError' });
      await closing;
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    }
  });
});
