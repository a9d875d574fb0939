import Conf from 'conf';
import type { CachedToken, TokenCache } from '../api/client.js';

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

/**
 * Profiles (config.json) and cached tokens (tokens.json) under
 * WHSVC_CONFIG_DIR, else the OS config dir. Both files are mode 0600 and
 * written atomically by conf (write, then rename), so two whsvc processes
 * refreshing a token at once cannot leave a torn file.
 */
export class ConfigStore {
  private profilesFile?: Conf<{ profiles: Record<string, Profile> }>;
  private tokensFile?: Conf<{ tokens: TokenEntries }>;
  private catalogFile?: Conf<{ catalogs: Record<string, { fetched_at: number; data: CatalogEntry[] }> }>;

  constructor(private readonly dir: string | undefined) {}

  private conf<T extends Record<string, unknown>>(configName: string): Conf<T> {
    return new Conf<T>({
      projectName: 'whsvc',
      projectSuffix: '',
      configName,
      ...(this.dir ? { cwd: this.dir } : {}),
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
    });
  }

  private profiles() {
    this.profilesFile ??= this.conf('config');
    return this.profilesFile;
  }

  private tokens() {
    this.tokensFile ??= this.conf('tokens');
    return this.tokensFile;
  }

  get path(): string {
    return this.profiles().path;
  }

  getProfile(name: string): Profile | undefined {
    return this.profiles().get('profiles')?.[name];
  }

  setProfile(name: string, profile: Profile): void {
    this.profiles().set('profiles', { ...this.profiles().get('profiles'), [name]: profile });
  }

  deleteProfile(name: string): boolean {
    const all = { ...this.profiles().get('profiles') };
    const existed = name in all;
    delete all[name];
    this.profiles().set('profiles', all);
    this.forgetTokens(name);
    return existed;
  }

  /** The token cache of one profile; `identity` (client, base URL, scope) invalidates it when it changes. */
  tokenCache(profile: string, identity: string): TokenCache {
    return {
      read: () => {
        const entry = this.tokens().get('tokens')?.[profile];
        if (!entry || entry.key !== identity) return undefined;
        const { key: _key, ...token } = entry;
        return token;
      },
      write: (token) => {
        // Re-read just before writing: another process may have cached another profile's token meanwhile.
        this.tokens().set('tokens', { ...this.tokens().get('tokens'), [profile]: { ...token, key: identity } });
      },
    };
  }

  /** The event catalog last fetched from `baseUrl`, if any, with when it was fetched. */
  readCatalog(baseUrl: string): { fetched_at: number; data: CatalogEntry[] } | undefined {
    const cached = this.catalog().get('catalogs')?.[baseUrl];
    return cached && Array.isArray(cached.data) ? cached : undefined;
  }

  writeCatalog(baseUrl: string, data: CatalogEntry[], fetchedAt: number): void {
    this.catalog().set('catalogs', { ...this.catalog().get('catalogs'), [baseUrl]: { fetched_at: fetchedAt, data } });
  }

  private catalog() {
    this.catalogFile ??= this.conf('catalog');
    return this.catalogFile;
  }

  forgetTokens(profile: string): void {
    const all = { ...this.tokens().get('tokens') };
    if (!(profile in all)) return;
    delete all[profile];
    this.tokens().set('tokens', all);
  }
}
