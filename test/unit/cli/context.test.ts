import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clientSecretsHeld } from '../../../src/cli/context.js';

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
