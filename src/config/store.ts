import type { EventType } from '../api/shapes.js';
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CachedToken, TokenCache } from '../api/client.js';
import { ConfigError } from './errors.js';
import { checkUserFile, ensureDirectory, failureReason, readOwnFile } from '../files/user-file.js';
import { withFileLock } from './lock.js';

export interface Profile {
  base_url: string;
  client_id: string;
  client_secret: string;
  scope?: string | undefined;
}

type TokenEntries = Record<string, CachedToken & { key: string }>;
type CatalogEntries = Record<string, { fetched_at: number; data: EventType[] }>;

interface Files {
  config: { profiles?: Record<string, Profile> };
  tokens: { tokens?: TokenEntries };
  catalog: { catalogs?: CatalogEntries };
}

/** The OS config dir, as conf (env-paths) has it, so that reads here and conf's writes meet. */
export function defaultConfigDir(env: NodeJS.ProcessEnv): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'whsvc');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'whsvc', 'Config');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'whsvc');
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** `map[key]` only when the map holds it itself: profile names are data (`__proto__`, `constructor`), never inherited keys. */
function own<T>(map: Record<string, T> | undefined, key: string): T | undefined {
  return map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}

/** A copy of `map` without `key`, built without the `__proto__` setter of a plain object literal. */
function without<T>(map: Record<string, T> | undefined, key: string): Record<string, T> {
  return Object.fromEntries(Object.entries(map ?? {}).filter(([name]) => name !== key));
}

function withEntry<T>(map: Record<string, T> | undefined, key: string, value: T): Record<string, T> {
  return Object.fromEntries([...Object.entries(without(map, key)), [key, value]]);
}

/**
 * Profiles (config.json), cached tokens (tokens.json) and the event catalog
 * (catalog.json) under WHSVC_CONFIG_DIR, else the OS config dir. Each change
 * is a read-modify-write of its file under a lock (`<file>.lock`), so that
 * whsvc processes writing at once (CI jobs sharing a home directory) keep each
 * other's profiles and tokens; the write itself goes through conf: mode 0600
 * and atomic (write, then rename), so a reader never sees a torn file. Reads
 * are a plain JSON read without the lock, which keeps conf (and its schema
 * validator) off the path of a command whose token is still good.
 */
export class ConfigStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The store WHSVC_CONFIG_DIR names, else the OS config dir's. */
  static of(env: NodeJS.ProcessEnv): ConfigStore {
    // An empty WHSVC_CONFIG_DIR is unset, as shells and CI systems treat an empty variable.
    return new ConfigStore(env.WHSVC_CONFIG_DIR || defaultConfigDir(env));
  }

  path(name: keyof Files): string {
    return join(this.dir, `${name}.json`);
  }

  private read<N extends keyof Files>(name: N): Files[N] {
    // Read with the writer's care: a symlink, a FIFO or a device in its place is refused, never followed nor waited on.
    const text = readOwnFile(this.path(name), 'the config file');
    if (text === undefined) return {};
    try {
      return JSON.parse(text) as Files[N];
    } catch {
      throw new ConfigError(`${this.path(name)} is not valid JSON`, `fix or delete it (for tokens.json and catalog.json deleting is always safe)`);
    }
  }

  /**
   * Sets `key` of file `name` to what `change` makes of the file as it is now,
   * holding the file's lock from the read to the rename.
   */
  private async update<N extends keyof Files, K extends keyof Files[N] & string>(name: N, key: K, change: (current: Files[N]) => Files[N][K]): Promise<void> {
    const path = this.path(name);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    await withFileLock(path, async () => {
      this.removeLeftoverTempFiles(name);
      // conf (through atomically) writes through a symlink to where it points: whsvc writes only its own regular file.
      checkUserFile(path, 'the config file', 'remove it (a symlink or what is not a regular file), and log in again');
      const value = change(this.read(name));
      const { default: Conf } = await import('conf');
      let file: InstanceType<typeof Conf<Record<string, unknown>>>;
      try {
        file = new Conf<Record<string, unknown>>({
          projectName: 'whsvc',
          cwd: this.dir,
          configName: name,
          configFileMode: 0o600,
          accessPropertiesByDotNotation: false,
        });
      } catch {
        throw new ConfigError(`${path} is not valid JSON`, `fix or delete it (for tokens.json and catalog.json deleting is always safe)`);
      }
      file.set(key, value);
    });
  }

  /**
   * A process killed in the middle of an atomic write leaves its temporary
   * file (`config.json.tmp-…`, holding secrets) behind. Under the file's lock
   * no other write is under way, so any such file of `name` is a leftover.
   */
  private removeLeftoverTempFiles(name: keyof Files): void {
    let entries: string[];
    try {
      entries = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      // A lock being linked into place by another process lives for microseconds: only an old one is left over.
      const leftover = entry.startsWith(`${name}.json.tmp-`) || (entry.startsWith(`${name}.json.lock.`) && ageMs(join(this.dir, entry)) > 10_000);
      if (!leftover) continue;
      try {
        unlinkSync(join(this.dir, entry));
      } catch {
        // gone already
      }
    }
  }

  /**
   * Runs `work` holding this machine's lock for `key` (a file under locks/, named by the key's hash) across the
   * requests it makes: whsvc processes sharing this config dir take turns, so a read-modify-write of the service's
   * state (a webhook's events) never loses another's change. Processes on another machine, or with another config
   * dir, are not held back: the service has no conditional update. `guards` names it in an error.
   */
  async exclusive<T>(key: string, guards: string, work: () => Promise<T>): Promise<T> {
    const dir = join(this.dir, 'locks');
    try {
      ensureDirectory(dir, 'the lock directory');
    } catch (error) {
      throw new ConfigError(`cannot lock ${guards}: cannot make ${dir}: ${failureReason(error)}`);
    }
    // Loaded here, not at start-up: only a change of a webhook's events pays for it.
    const { createHash } = await import('node:crypto');
    const name = createHash('sha256').update(key).digest('hex').slice(0, 32);
    return withFileLock(join(dir, name), work, { acrossRequests: true, guards });
  }

  getProfile(name: string): Profile | undefined {
    return own(this.read('config').profiles, name);
  }

  /** Every stored profile, in the order they were first stored. */
  listProfiles(): Array<{ name: string; profile: Profile }> {
    return Object.entries(this.read('config').profiles ?? {})
      .filter(([, profile]) => typeof profile === 'object' && profile !== null && typeof profile.base_url === 'string')
      .map(([name, profile]) => ({ name, profile }));
  }

  async setProfile(name: string, profile: Profile): Promise<void> {
    await this.update('config', 'profiles', (current) => withEntry(current.profiles, name, profile));
  }

  async deleteProfile(name: string): Promise<boolean> {
    let existed = false;
    if (own(this.read('config').profiles, name) !== undefined) {
      await this.update('config', 'profiles', (current) => {
        existed = own(current.profiles, name) !== undefined;
        return without(current.profiles, name);
      });
    }
    await this.forgetTokens(name);
    return existed;
  }

  /** The token cache of one profile; `identity` (client, base URL, scope) invalidates it when it changes. */
  tokenCache(profile: string, identity: string): TokenCache {
    return {
      read: () => {
        const entry = own(this.read('tokens').tokens, profile);
        if (!entry || entry.key !== identity) return undefined;
        const { key: _key, ...token } = entry;
        return token;
      },
      write: (token) => this.update('tokens', 'tokens', (current) => withEntry(current.tokens, profile, { ...token, key: identity })),
      clear: () => this.forgetTokens(profile),
    };
  }

  async forgetTokens(profile: string): Promise<void> {
    if (own(this.read('tokens').tokens, profile) === undefined) return;
    await this.update('tokens', 'tokens', (current) => without(current.tokens, profile));
  }

  /** The event catalog last fetched from `baseUrl`, if any, with when it was fetched. */
  readCatalog(baseUrl: string): { fetched_at: number; data: EventType[] } | undefined {
    const cached = own(this.read('catalog').catalogs, baseUrl);
    return cached && Array.isArray(cached.data) ? cached : undefined;
  }

  async writeCatalog(baseUrl: string, data: EventType[], fetchedAt: number): Promise<void> {
    await this.update('catalog', 'catalogs', (current) => withEntry(current.catalogs, baseUrl, { fetched_at: fetchedAt, data }));
  }
}
