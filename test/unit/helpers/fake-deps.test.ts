import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent, errors } from 'undici';
import { TransportError } from '../../../src/net.js';
import { ORIGIN, fakeDeps, finishFakeDeps, rejectionOf } from '../../helpers/fake-deps.js';
import { refusedError, resetError, undiciTransport } from '../../helpers/undici-transport.js';

afterEach(finishFakeDeps);

function agent(): MockAgent {
  const a = new MockAgent();
  a.disableNetConnect();
  return a;
}

const req = (method = 'GET') => ({ method, url: new URL(`${ORIGIN}/x?y=1`), headers: { accept: 'application/json' }, timeoutMs: 1_000, bodyLimit: 1024 });

describe('fetchTransport on undici (through the test helper)', () => {
  it('returns status, headers and text', async () => {
    const a = agent();
    a.get(ORIGIN)
      .intercept({ path: '/x?y=1', method: 'GET' })
      .reply(418, 'teapot', { headers: { 'x-a': 'b' } });
    const response = await undiciTransport(a)(req());
    expect(response).toMatchObject({ status: 418, text: 'teapot', headers: { 'x-a': 'b' } });
    a.assertNoPendingInterceptors();
    await a.close();
  });

  it.each([
    ['undici SocketError', () => new errors.SocketError('other side closed'), 'ECONNRESET', true],
    ['ECONNRESET', resetError, 'ECONNRESET', true],
    ['ECONNREFUSED', refusedError, 'ECONNREFUSED', false],
    ['ENOTFOUND', () => Object.assign(new Error('getaddrinfo ENOTFOUND x'), { code: 'ENOTFOUND' }), 'ENOTFOUND', false],
    ['connect timeout', () => new errors.ConnectTimeoutError(), 'ETIMEDOUT', false],
    ['headers timeout', () => new errors.HeadersTimeoutError(), 'ETIMEDOUT', true],
  ])('%s becomes TransportError %s (sent: %s)', async (_name, make, code, sent) => {
    const a = agent();
    a.get(ORIGIN).intercept({ path: '/x?y=1', method: 'POST' }).replyWithError(make());
    const error = await rejectionOf(undiciTransport(a)(req('POST')));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code, sent });
    await a.close();
  });

  it('times out with ETIMEDOUT', async () => {
    const a = agent();
    a.get(ORIGIN).intercept({ path: '/x?y=1', method: 'GET' }).reply(200, 'late').delay(500);
    const error = await rejectionOf(undiciTransport(a)({ ...req(), timeoutMs: 50 }));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'ETIMEDOUT', sent: true });
    await a.close();
  });

  it('a request no interceptor expects is not disguised as a network error', async () => {
    const a = agent();
    const error = await rejectionOf(undiciTransport(a)(req()));
    expect(error).not.toBeInstanceOf(TransportError);
    expect(error.message).toMatch(/not matched/i);
    await a.close();
  });
});

describe('fakeDeps', () => {
  it('fails the test when an interceptor was never used, and cleans up anyway', async () => {
    const fake = fakeDeps();
    fake.mock.intercept({ path: '/v1/webhooks', method: 'GET' }).reply(200, '{}');
    const error = await rejectionOf(finishFakeDeps());
    expect(error.message).toMatch(/pending/i);
    expect(existsSync(fake.configDir)).toBe(false);
  });

  it('fails the test when a scripted answer was never asked for', async () => {
    fakeDeps({ answers: [{ kind: 'confirm', answer: true }] });
    const error = await rejectionOf(finishFakeDeps());
    expect(error.message).toMatch(/never asked/);
  });

  it('an unexpected question throws and fails the test even if swallowed', async () => {
    const fake = fakeDeps({ answers: [{ kind: 'input', answer: 'x' }] });
    await expect(fake.prompter.confirm('Sure?')).rejects.toThrow(/unexpected confirm/);
    await expect(finishFakeDeps()).rejects.toThrow(/unexpected confirm/);
  });

  it('stdin yields the given text; TTY switches are honoured', async () => {
    const fake = fakeDeps({ stdin: ['a', 'b\n'], stdoutTTY: true, env: { FORCE_COLOR: undefined } });
    let text = '';
    for await (const chunk of fake.deps.stdin) text += chunk.toString();
    expect(text).toBe('ab\n');
    expect(fake.deps.stdout.isTTY).toBe(true);
    expect(fake.deps.colors.enabled).toBe(true);
    expect(fake.deps.errColors.enabled).toBe(false);
  });
});
