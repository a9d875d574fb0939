import { describe, expect, it } from 'vitest';
import { connectionFor, isLoopbackHost } from '../../src/net.js';

const hostOf = (url: string) => new URL(url).hostname;

describe('isLoopbackHost: this machine, however a URL spells it', () => {
  it.each([
    'http://localhost:3000',
    'http://LOCALHOST:3000',
    'http://localhost.:3000',
    'http://app.localhost:3000',
    'http://app.localhost.:3000',
    'http://127.0.0.1:3000',
    'http://127.1:3000',
    'http://0x7f.1:3000',
    'http://2130706433:3000',
    'http://127.255.0.9:3000',
    'http://[::1]:3000',
    'http://[::ffff:127.0.0.1]:3000',
    'http://[::ffff:7f00:2]:3000',
  ])('%s is this machine', (url) => expect(isLoopbackHost(hostOf(url))).toBe(true));

  it.each(['http://example.com', 'http://localhost.example.com', 'http://128.0.0.1', 'http://[::2]', 'http://[::ffff:8.8.8.8]', 'http://0.0.0.0'])(
    '%s is not',
    (url) => expect(isLoopbackHost(hostOf(url))).toBe(false),
  );
});

describe('connectionFor', () => {
  it('a plain http *.localhost name, with or without its final dot, connects to 127.0.0.1 and keeps its Host', () => {
    expect(connectionFor(new URL('http://app.localhost:3000/x'))).toEqual({ origin: 'http://127.0.0.1:3000', host: 'app.localhost:3000' });
    expect(connectionFor(new URL('http://app.localhost.:3000/x'))).toEqual({ origin: 'http://127.0.0.1:3000', host: 'app.localhost.:3000' });
    expect(connectionFor(new URL('http://localhost.:3000/x'))).toEqual({ origin: 'http://127.0.0.1:3000', host: 'localhost.:3000' });
    expect(connectionFor(new URL('http://localhost:3000/x'))).toEqual({ origin: 'http://localhost:3000' });
    expect(connectionFor(new URL('https://app.localhost:3000/x'))).toEqual({ origin: 'https://app.localhost:3000' });
  });
});
