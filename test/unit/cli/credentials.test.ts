import { describe, expect, it } from 'vitest';
import { withCredentialsMasked } from '../../../src/cli/credentials.js';
import { namesCredential } from '../../../src/protocol/credential-names.js';

describe('withCredentialsMasked: a command line as whsvc echoes it', () => {
  it.each([
    [
      ['listen', '--secret', 'whsec_X', '--json'],
      ['listen', '--secret', '<secret>', '--json'],
    ],
    [
      ['verify', '--secret=whsec_X'],
      ['verify', '--secret=<secret>'],
    ],
    [
      ['login', '--client-id', 'x', '--client-secret', 'S3CR3T'],
      ['login', '--client-id', 'x', '--client-secret', '<secret>'],
    ],
    [
      ['x', '--api-key', 'k', '--password', 'p', '--auth-token=t'],
      ['x', '--api-key', '<secret>', '--password', '<secret>', '--auth-token=<secret>'],
    ],
    [
      ['api', '/p', '-H', 'X-Api-Key: k', '-H', 'Authorization: Bearer t', '-H', 'Accept: text/plain'],
      ['api', '/p', '-H', 'X-Api-Key: <secret>', '-H', 'Authorization: <secret>', '-H', 'Accept: text/plain'],
    ],
    [
      ['api', '/p', '--header=Cookie: sid=1', '-HX-Token:t'],
      ['api', '/p', '--header=Cookie: <secret>', '-HX-Token: <secret>'],
    ],
    [
      ['api', '/p', '-f', 'password=p', '-F', 'user[api_key]=k', '-f', 'name=n', '--raw-field=token=t'],
      ['api', '/p', '-f', 'password=<secret>', '-F', 'user[api_key]=<secret>', '-f', 'name=n', '--raw-field=token=<secret>'],
    ],
  ])('%j', (words, shown) => {
    expect(withCredentialsMasked(words)).toEqual(shown);
  });

  it('leaves what only says where a secret is, or how it is read, and a flag with no value after it', () => {
    const words = [
      'listen',
      '--secret-file',
      'whsec.txt',
      '--client-secret-stdin',
      'x',
      '--token-ttl',
      '300',
      '--secret',
      '--json',
      'webhooks',
      'apply',
      '-f',
      'hooks.yaml',
    ];
    expect(withCredentialsMasked(words)).toEqual(words);
  });

  it("a delivery header is no credential under the command line's --platform-name; without one, under the default's", () => {
    const header = ['-H', 'X-Monkey-Event: invoice.paid'];
    expect(withCredentialsMasked(['send', 'http://127.0.0.1:3000/h', '--platform-name', 'Monkey', ...header])).toEqual([
      'send',
      'http://127.0.0.1:3000/h',
      '--platform-name',
      'Monkey',
      ...header,
    ]);
    expect(withCredentialsMasked(['send', '--platform-name=Monkey', ...header]).at(-1)).toBe('X-Monkey-Event: invoice.paid');
    expect(withCredentialsMasked(['send', ...header]).at(-1)).toBe('X-Monkey-Event: <secret>');
    // Another platform's, named like a credential, is one.
    expect(withCredentialsMasked(['send', '--platform-name', 'Service', ...header]).at(-1)).toBe('X-Monkey-Event: <secret>');
  });
});

describe('namesCredential', () => {
  it('names that say a credential, and some that do not', () => {
    const yes = [
      'DB_PASS',
      'MYSQL_PWD',
      'HTTP_COOKIE',
      'NPM_CONFIG__AUTH',
      'CI_JOB_JWT',
      'GITHUB_PAT',
      'PAT',
      'AUTHORIZATION',
      'PRIVATE_PEM',
      'SESSION',
      'api_key',
      'x-auth-token',
    ];
    const no = ['PWD', 'OLDPWD', 'PATH', 'PATTERN', 'PAGER', 'HOME', 'url'];
    expect(yes.filter((name) => !namesCredential(name))).toEqual([]);
    expect(no.filter(namesCredential)).toEqual([]);
  });
});
