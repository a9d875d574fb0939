import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CachedToken, TokenCache } from '../api/client.js';
import { CliError } from '../cli/errors.js';

export interface Profile {
  base_url: string;
  client_id: string;
  client_secret: string;
  scope?: string | undefined;
}

export interface CatalogEntry {
  type: string;
  module: string;
  desc: string;
}

type TokenEntries = Record<string, CachedToken & { key: string }>;
type CatalogEntries = Record<string, { fetched_at: number; data: CatalogEntry[] }>;

interface Files {
  config: { profiles?: Record<string, Profile> };
  tokens: { tokens?: TokenEntries };
  catalog: { catalogs?: CatalogEntries };
}

/** The OS config dir, as conf (env-paths) has it, so that reads here and conf's writes meet. */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'whsvc');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'whsvc', 'Config');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'whsvc');
}

/**
 * Profiles (config.json), cached tokens (tokens.json) and the event catalog
 * (catalog.json) under WHSVC_CONFIG_DIR, else the OS config dir. Writes go
 * through conf: mode 0600 and atomic (write, then rename), so two whsvc
 * processes refreshing a token at once cannot leave a torn file. Reads are a
 * plain JSON read, which keeps conf (and its schema validator) off the path
 * of a command whose token is still good.
 */
export class ConfigStore {
  readonly dir: string;

  constructor(dir: string | undefined) {
    this.dir = dir ?? defaultConfigDir();
  }

  path(name: keyof Files): string {
    return join(this.dir, `${name}.json`);
  }

  private read<N extends keyof Files>(name: N): Files[N] {
    let text: string;
    try {
      text = readFileSync(this.path(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new CliError(`cannot read ${this.path(name)}: ${(error as Error).message}`);
    }
    try {
      return JSON.parse(text) as Files[N];
    } catch {
      throw new CliError(`${this.path(name)} is not valid JSON`, 1, `fix or delete it (for tokens.json and catalog.json deleting is always safe)`);
    }
  }

  private async write<N extends keyof Files, K extends keyof Files[N] & string>(name: N, key: K, value: Files[N][K]): Promise<void> {
    const { default: Conf } = await import('conf');
    const file = new Conf<Record<string, unknown>>({
      projectName: 'whsvc',
      cwd: this.dir,
      configName: name,
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
    });
    file.set(key, value);
  }

  getProfile(name: string): Profile | undefined {
    return this.read('config').profiles?.[name];
  }

  async setProfile(name: string, profile: Profile): Promise<void> {
    await this.write('config', 'profiles', { ...this.read('config').profiles, [name]: profile });
  }

  async deleteProfile(name: string): Promise<boolean> {
    const all = { ...this.read('config').profiles };
    const existed = name in all;
    if (existed) {
      delete all[name];
      await this.write('config', 'profiles', all);
    }
    await this.forgetTokens(name);
    return existed;
  }

  /** The token cache of one profile; `identity` (client, base URL, scope) invalidates it when it changes. */
  tokenCache(profile: string, identity: string): TokenCache {
    return {
      read: () => {
        const entry = this.read('tokens').tokens?.[profile];
        if (!entry || entry.key !== identity) return undefined;
        const { key: _key, ...token } = entry;
        return token;
      },
      // Re-read just before writing: another process may have cached another profile's token meanwhile.
      write: (token) => this.write('tokens', 'tokens', { ...this.read('tokens').tokens, [profile]: { ...token, key: identity } }),
      clear: () => this.forgetTokens(profile),
    };
  }

  async forgetTokens(profile: string): Promise<void> {
    const all = { ...this.read('tokens').tokens };
    if (!(profile in all)) return;
    delete all[profile];
    await this.write('tokens', 'tokens', all);
  }

  /** The event catalog last fetched from `baseUrl`, if any, with when it was fetched. */
  readCatalog(baseUrl: string): { fetched_at: number; data: CatalogEntry[] } | undefined {
    const cached = this.read('catalog').catalogs?.[baseUrl];
    return cached && Array.isArray(cached.data) ? cached : undefined;
  }

  async writeCatalog(baseUrl: string, data: CatalogEntry[], fetchedAt: number): Promise<void> {
    await this.write('catalog', 'catalogs', { ...this.read('catalog').catalogs, [baseUrl]: { fetched_at: fetchedAt, data } });
  }
}
