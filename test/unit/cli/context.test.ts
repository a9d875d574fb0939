import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clientSecretsHeld, normalAddress } from '../../../src/cli/context.js';

const dir = mkdtempSync(join(tmpdir(), 'whsvc-context-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('clientSecretsHeld', () => {
  it("is WHSVC_CLIENT_SECRET's, as a command reads it, and the profile's; of a config that cannot be read, none", () => {
    const configDir = mkdtempSync(join(dir, 'config-'));
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { work: { base_url: 'http://x', client_id: 'c', client_secret: 'sbx_work' } } }));
    const env = { WHSVC_CONFIG_DIR: configDir, WHSVC_CLIENT_SECRET: ' sbx_env\n' };
    expect(clientSecretsHeld(env, 'work')).toEqual(['sbx_env', 'sbx_work']);
    expect(clientSecretsHeld(env, 'default')).toEqual(['sbx_env']);
    expect(clientSecretsHeld({ WHSVC_CONFIG_DIR: configDir }, 'work')).toEqual(['sbx_work']);
    writeFileSync(join(configDir, 'config.json'), '{ not json');
    expect(clientSecretsHeld(env, 'work')).toEqual(['sbx_env']);
  });
});

describe('normalAddress', () => {
  it('one spelling of an address: case, a default port, a trailing slash and dot segments aside; no name looked up', () => {
    const spellings = ['http://127.0.0.1:4010', 'http://127.0.0.1:4010/', 'HTTP://127.0.0.1:4010', 'http://127.0.0.1:4010/v1/..', 'http://127.0.0.1:4010//'];
    expect(new Set(spellings.map(normalAddress))).toEqual(new Set(['http://127.0.0.1:4010']));
    expect(normalAddress('https://API.Example.com:443/prefix/')).toBe('https://api.example.com/prefix');
    expect(normalAddress('http://localhost:4010')).not.toBe(normalAddress('http://127.0.0.1:4010'));
    expect(normalAddress('https://api.example.com/a')).not.toBe(normalAddress('https://api.example.com/b'));
  });

  it('an IPv4 address written as IPv4-mapped IPv6 is that address: one lock, one login, whatever the spelling', () => {
    const spellings = ['http://[::ffff:127.0.0.1]:4010', 'http://[::FFFF:7f00:1]:4010/', 'http://[0:0:0:0:0:ffff:127.0.0.1]:4010'];
    expect(new Set(spellings.map(normalAddress))).toEqual(new Set(['http://127.0.0.1:4010']));
    expect(normalAddress('https://[::ffff:203.0.113.9]/v1')).toBe('https://203.0.113.9/v1');
    // Other IPv6 addresses stay as they are: [::1] is not 127.0.0.1, nor is an IPv4-compatible or NAT64 address mapped.
    for (const other of ['http://[::1]:4010', 'http://[::7f00:1]:4010', 'http://[64:ff9b::7f00:1]:4010']) {
      expect(normalAddress(other), other).toBe(other);
    }
  });
});
