import { describe, expect, it } from 'vitest';
import { CliError } from '../../../../src/cli/errors.js';
import { fieldsBody, fieldsQuery, header, requestPath, typedValue } from '../../../../src/commands/api/fields.js';

const f = (text: string) => ({ typed: false, text });
const F = (text: string) => ({ typed: true, text });
const files: Record<string, string> = { 'body.txt': 'line one\nline two\n' };
const read = (path: string) => {
  if (!(path in files)) throw new Error(`unexpected read of ${path}`);
  return files[path]!;
};

/** The usage error a call throws (exit 2). */
function usage(call: () => unknown): CliError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    return error as CliError;
  }
  throw new Error('expected a usage error');
}

describe('api fields: -f strings, -F typed, key[] arrays, key[sub] objects (as gh api)', () => {
  it('-f values are strings as written; -F true, false, null and numbers are themselves, @FILE the file', () => {
    expect(
      fieldsBody(
        [
          f('url=https://example.com/hooks?a=b=c'),
          f('active=true'),
          F('on=true'),
          F('off=false'),
          F('none=null'),
          F('n=42'),
          F('x=-1.5e3'),
          F('s=4x'),
          F('note=@body.txt'),
        ],
        read,
      ),
    ).toEqual({
      url: 'https://example.com/hooks?a=b=c',
      active: 'true',
      on: true,
      off: false,
      none: null,
      n: 42,
      x: -1500,
      s: '4x',
      note: 'line one\nline two\n',
    });
  });

  it('key[]=value appends to an array, in the order given; key[] alone is an empty array', () => {
    expect(fieldsBody([f('url=u'), f('events[]=invoice.paid'), f('events[]=product.updated'), f('tags[]')], read)).toEqual({
      url: 'u',
      events: ['invoice.paid', 'product.updated'],
      tags: [],
    });
  });

  it('key[sub]=value builds objects, nested', () => {
    expect(fieldsBody([f('data[amount][currency]=EUR'), F('data[amount][amount]=1290'), f('data[id]=inv_1')], read)).toEqual({
      data: { amount: { currency: 'EUR', amount: 1290 }, id: 'inv_1' },
    });
  });

  it("a field named __proto__ is sent as a field like any other, never taken as the object's prototype and dropped", () => {
    const body = fieldsBody([f('__proto__[x]=1'), f('a[__proto__][y]=2')], read);
    expect(JSON.stringify(body)).toBe('{"__proto__":{"x":"1"},"a":{"__proto__":{"y":"2"}}}');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('mistakes are usage errors naming the field: no =, a key given twice, a key both array and object, [] inside a key', () => {
    expect(usage(() => fieldsBody([f('url')], read)).message).toBe('-f "url": a field is key=value');
    expect(usage(() => fieldsBody([f('url=a'), f('url=b')], read)).message).toContain('the field "url" is given twice');
    expect(usage(() => fieldsBody([f('a[]=1'), f('a[b]=2')], read)).message).toContain('makes a an object');
    expect(usage(() => fieldsBody([f('a[][b]=1')], read)).message).toContain('arrays of objects');
    expect(usage(() => fieldsBody([f('[x]=1')], read)).message).toContain('is not a name');
  });

  it('in a query (GET, or beside --input), each field is key=value as written', () => {
    expect(fieldsQuery([f('limit=5'), F('active=true'), f('events[]=a'), f('events[]=b'), f('tags[]')], read)).toEqual([
      ['limit', '5'],
      ['active', 'true'],
      ['events[]', 'a'],
      ['events[]', 'b'],
    ]);
  });

  it('typedValue leaves what only looks like a number as a string (a leading zero, a plus sign, hex)', () => {
    for (const text of ['007', '+1', '0x10', '1.', 'NaN', 'Infinity', '1e999']) expect(typedValue(text, read)).toBe(text);
  });
});

describe('api headers (-H)', () => {
  it('"Name: value" as given', () => {
    expect(header('X-Request-Id: abc 123')).toEqual(['X-Request-Id', 'abc 123']);
    expect(header('Content-Type:application/merge-patch+json')).toEqual(['Content-Type', 'application/merge-patch+json']);
  });

  it("the token and the connection are whsvc's own: Authorization, Host, Content-Length… are refused", () => {
    const error = usage(() => header('Authorization: Bearer stolen'));
    expect(error.message).toBe('-H Authorization: whsvc sets this header itself');
    expect(error.hint).toContain('--profile');
    for (const name of ['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'User-Agent']) usage(() => header(`${name}: x`));
  });

  it('what HTTP does not allow is refused before anything is sent', () => {
    expect(usage(() => header('no colon')).message).toContain('a header is "Name: value"');
    expect(usage(() => header('Bad Name: x')).message).toContain('is not one HTTP allows');
    expect(usage(() => header('X-A: a\u0007b')).message).toContain('control character');
  });
});

describe("api path: the service's address only", () => {
  const base = 'http://127.0.0.1:4010';

  it('a path, with or without its leading slash, query kept', () => {
    expect(requestPath('/v1/webhooks', base)).toBe('/v1/webhooks');
    expect(requestPath('v1/webhooks?limit=2', base)).toBe('/v1/webhooks?limit=2');
  });

  it("a full URL at the service's address is taken as its path (under a base path, after it)", () => {
    expect(requestPath('http://127.0.0.1:4010/v1/webhooks?limit=1', base)).toBe('/v1/webhooks?limit=1');
    expect(requestPath('https://api.example.com/platform/v1/webhooks', 'https://api.example.com/platform')).toBe('/v1/webhooks');
  });

  it("a path that climbs out of the base path with .. (however it is spelt) is refused, exit 2: the token stays under the service's prefix", () => {
    const tenant = 'http://127.0.0.1:4010/tenant-a';
    for (const path of ['/../other/v1/x', '/%2e%2e/other/v1/x', 'v1/../../other/x', '/v1/%2E%2E/%2e%2E/other']) {
      expect(() => requestPath(path, tenant), path).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining('climbs out of') }));
    }
    // Inside the prefix, .. is the URL's own business.
    expect(requestPath('/v1/webhooks/../webhooks', tenant)).toBe('/v1/webhooks/../webhooks');
  });

  it('a URL elsewhere is refused, exit 2: another host, port, scheme, outside the base path, a user name, //host', () => {
    for (const url of [
      'https://other.host/v1/webhooks',
      'http://127.0.0.1:4011/v1/webhooks',
      'https://127.0.0.1:4010/v1/webhooks',
      'http://user:pw@127.0.0.1:4010/v1/webhooks',
      '//other.host/v1/webhooks',
    ]) {
      const error = usage(() => requestPath(url, base));
      expect(error.message).toContain("is not at the service's address http://127.0.0.1:4010");
      expect(error.message).not.toContain('pw');
    }
    expect(usage(() => requestPath('https://api.example.com/other/v1', 'https://api.example.com/platform')).message).toContain('not at the service');
  });

  it('a path that would move the host when put after the address (@host) stays a path there', () => {
    expect(requestPath('@other.host/x', base)).toBe('/@other.host/x');
    expect(new URL(base + requestPath('@other.host/x', base)).host).toBe('127.0.0.1:4010');
  });
});
