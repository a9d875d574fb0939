import { describe, expect, it } from 'vitest';
import { defaultTransport, proxyForDisplay } from '../../../src/api/transport.js';
import { proxySettings, TransportError, toTransportError } from '../../../src/net.js';

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
    const error = await send({ method: 'GET', url: new URL('https://service.test/v1/webhooks'), headers: {}, timeoutMs: 1000 }).catch((e: unknown) => e);
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
