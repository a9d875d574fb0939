import { closeSync, linkSync, lstatSync, openSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAlive } from '../alive.js';
import { ConfigError } from './errors.js';
import { readOwnFile } from '../files/user-file.js';

/** A lock is taken for milliseconds; one older than this was left by a process that died holding it. */
const STALE_AFTER_MS = 10_000;
const GIVE_UP_AFTER_MS = 20_000;
/** A lock held across requests to the service is waited for this long: two requests, each with its own limit and waits. */
const GIVE_UP_ACROSS_REQUESTS_MS = 120_000;

export interface LockOptions {
  /** Held across requests to the service, for seconds: never broken for its age, only once its process is gone. */
  acrossRequests?: boolean;
  /** What the lock guards, as the error names it when another process holds it too long (`webhook wh_1`). */
  guards?: string;
}

interface Holder {
  pid: number;
  host: string;
  nonce: string;
}

interface Seen {
  holder: Holder | undefined;
  ageMs: number;
  /** Linked into place this moment, its name beside it not yet removed (two links): held, whoever holds it. */
  placing?: boolean;
}

function readHolder(path: string): Seen | undefined {
  try {
    const stats = lstatSync(path);
    // Not a lock whsvc made (a directory, a FIFO, a symlink planted in its place): never waited on nor broken, said.
    if (!stats.isFile()) throw new Error(`${path} is not a regular file: not a lock whsvc made; remove it`);
    // Another user's, in a shared directory (a lock beside a file in /tmp): not this user's to wait on nor to break.
    const me = process.geteuid?.();
    if (me !== undefined && stats.uid !== me) throw new Error(`${path} belongs to another user (uid ${stats.uid}): not a lock of yours`);
    const ageMs = Date.now() - stats.mtimeMs;
    if (stats.nlink > 1) return { holder: undefined, ageMs, placing: true };
    let holder: Holder | undefined;
    try {
      // Read as whsvc reads its own files: no symlink followed, no FIFO waited on, no more than a holder's size.
      holder = JSON.parse(readOwnFile(path, 'the lock', 4096) ?? '') as Holder;
    } catch {
      holder = undefined; // being written, torn by a crash, or not a lock whsvc wrote: age decides
    }
    return { holder, ageMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Whether a lock was left by a process that died holding it: its process is
 * gone (on this machine), or, for a lock taken for milliseconds, it is older
 * than STALE_AFTER_MS. A lock held for as long as a command runs is never
 * stale by age; one that cannot be read (it is linked into place whole, so
 * never half written) is.
 */
function isStale(seen: Seen, heldLong: boolean): boolean {
  const { holder } = seen;
  if (seen.placing) return false;
  if (heldLong ? holder === undefined : seen.ageMs > STALE_AFTER_MS) return true;
  return holder !== undefined && holder.host === hostname() && !isAlive(holder.pid);
}

/** A breaker that died between taking the break lock and letting it go leaves it behind for no longer than this. */
const BREAK_LOCK_STALE_MS = 2_000;

/**
 * Takes away the lock left by a dead process, one breaker at a time: under
 * `<lock>.break` (itself created exclusively) the lock is read again and
 * removed only if it is still the very lock seen stale (same nonce), so a
 * live lock taken meanwhile is never removed. The shared name is never
 * renamed, so nobody can take the lock while it is aside.
 */
function breakStaleLock(path: string, stale: Seen): boolean {
  const breakPath = `${path}.break`;
  try {
    closeSync(openSync(breakPath, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    try {
      if (Date.now() - statSync(breakPath).mtimeMs > BREAK_LOCK_STALE_MS) unlinkSync(breakPath);
    } catch {
      // taken away already
    }
    return false; // another process is breaking it: wait, then try again
  }
  try {
    const now = readHolder(path);
    if (now === undefined) return true;
    const same = stale.holder !== undefined ? now.holder?.nonce === stale.holder.nonce : now.holder === undefined;
    if (same) unlinkSync(path);
    return true;
  } catch {
    return true; // gone already
  } finally {
    try {
      unlinkSync(breakPath);
    } catch {
      // nothing to clean
    }
  }
}

/** Creates the lock file whole or not at all: written aside, then linked to its name (which fails if the name is taken). */
function tryLock(lockPath: string, me: Holder): boolean {
  const aside = `${lockPath}.${me.nonce}`;
  writeFileSync(aside, JSON.stringify(me), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(aside, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // nothing to clean
    }
  }
}

const newHolder = (): Holder => ({ pid: process.pid, host: hostname(), nonce: Math.random().toString(36).slice(2) });

/** Takes `lockPath` for `me` if it is free or stale (breaking it); otherwise tells who holds it. */
function take(lockPath: string, me: Holder, heldLong: boolean): { taken: true } | { taken: false; holder: Holder | undefined } {
  for (;;) {
    if (tryLock(lockPath, me)) return { taken: true };
    const seen = readHolder(lockPath);
    if (seen === undefined) continue; // let go meanwhile
    if (!isStale(seen, heldLong) || !breakStaleLock(lockPath, seen)) return { taken: false, holder: seen.holder };
  }
}

/** Lets go of `lockPath` if it is still `me`'s: one broken as stale may be another process's by now. */
function release(lockPath: string, me: Holder): void {
  let holder: Holder | undefined;
  try {
    holder = readHolder(lockPath)?.holder;
  } catch {
    return; // not ours any more (something else stands at its name): nothing of ours to remove
  }
  if (holder?.nonce !== me.nonce) return;
  try {
    unlinkSync(lockPath);
  } catch {
    // broken by another process meanwhile: nothing of ours to remove
  }
}

/**
 * Runs `work` holding `<path>.lock`, so that a read-modify-write of `path` by
 * one whsvc process never loses another's. The lock is a file linked into
 * place whole (link fails if the name is taken); a lock whose process is gone
 * (kill -9), or, unless it is held across requests, that is older than
 * STALE_AFTER_MS, is broken, one breaker at a time. Waits with jitter; gives
 * up with one clear line.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lockPath = `${path}.lock`;
  const me = newHolder();
  const acrossRequests = options.acrossRequests ?? false;
  const deadline = Date.now() + (acrossRequests ? GIVE_UP_ACROSS_REQUESTS_MS : GIVE_UP_AFTER_MS);
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    let attempt: ReturnType<typeof take>;
    try {
      attempt = take(lockPath, me, acrossRequests);
    } catch (error) {
      throw new ConfigError(`cannot lock ${options.guards ?? path}: ${(error as Error).message}`);
    }
    if (attempt.taken) break;
    if (Date.now() > deadline) {
      const who = attempt.holder ? ` (held by process ${attempt.holder.pid})` : '';
      const doing = options.guards ? `changing ${options.guards}` : `writing ${path}`;
      throw new ConfigError(`another whsvc is still ${doing}${who}`, `try again; if no whsvc is running, delete ${lockPath}`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait / 2 + Math.random() * wait));
  }
  try {
    return await work();
  } finally {
    release(lockPath, me);
  }
}

/**
 * Takes `<path>.lock` for as long as a command runs (a tail's checkpoint:
 * two tails on one file would each forward every delivery), without waiting.
 * A lock whose process is gone (kill -9) is taken over. Returns the release,
 * or the process that holds it; an error of the file system throws.
 */
export function holdFileLock(path: string): { release: () => void } | { heldBy: number | undefined } {
  const lockPath = `${path}.lock`;
  const me = newHolder();
  const attempt = take(lockPath, me, true);
  if (!attempt.taken) return { heldBy: attempt.holder?.pid };
  return { release: () => release(lockPath, me) };
}
