import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { CliError } from '../cli/errors.js';

/** A lock is taken for milliseconds; one older than this was left by a process that died holding it. */
const STALE_AFTER_MS = 10_000;
const GIVE_UP_AFTER_MS = 20_000;

interface Holder {
  pid: number;
  host: string;
  nonce: string;
}

function readHolder(path: string): { holder: Holder | undefined; ageMs: number } | undefined {
  try {
    const ageMs = Date.now() - statSync(path).mtimeMs;
    let holder: Holder | undefined;
    try {
      holder = JSON.parse(readFileSync(path, 'utf8')) as Holder;
    } catch {
      holder = undefined; // being written, or torn by a crash: age decides
    }
    return { holder, ageMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(seen: { holder: Holder | undefined; ageMs: number }): boolean {
  if (seen.ageMs > STALE_AFTER_MS) return true;
  const { holder } = seen;
  return holder !== undefined && holder.host === hostname() && !isAlive(holder.pid);
}

/**
 * Takes the lock left by a dead process away, safely against another process
 * doing the same: the lock is moved aside under a name of our own, and put
 * back if what was moved turns out to be a live lock taken meanwhile.
 */
function breakStaleLock(path: string, stale: Holder | undefined): void {
  const aside = `${path}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // gone already: someone else broke it
  }
  let moved: Holder | undefined;
  try {
    moved = JSON.parse(readFileSync(aside, 'utf8')) as Holder;
  } catch {
    moved = undefined;
  }
  if (moved !== undefined && moved.nonce !== stale?.nonce) {
    try {
      linkSync(aside, path); // a live lock: back where it was, unless a newer one is there
    } catch {
      // a newer lock holds the name; the one moved aside finishes its write unaware, as it would have anyway
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // nothing to clean
  }
}

/**
 * Runs `work` holding `<path>.lock`, so that a read-modify-write of `path` by
 * one whsvc process never loses another's. The lock is a file created with
 * O_EXCL; a lock whose process is gone (kill -9) or that is older than
 * STALE_AFTER_MS is broken. Waits with jitter; gives up with one clear line.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lockPath = `${path}.lock`;
  const me: Holder = { pid: process.pid, host: hostname(), nonce: Math.random().toString(36).slice(2) };
  const deadline = Date.now() + GIVE_UP_AFTER_MS;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify(me));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new CliError(`cannot lock ${path}: ${(error as Error).message}`);
      }
    }
    const seen = readHolder(lockPath);
    if (seen && isStale(seen)) {
      breakStaleLock(lockPath, seen.holder);
      continue;
    }
    if (Date.now() > deadline) {
      const who = seen?.holder ? ` (held by process ${seen.holder.pid})` : '';
      throw new CliError(`another whsvc is still writing ${path}${who}`, 1, `try again; if no whsvc is running, delete ${lockPath}`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait / 2 + Math.random() * wait));
  }
  try {
    return await work();
  } finally {
    const still = readHolder(lockPath);
    if (still?.holder?.nonce === me.nonce) {
      try {
        unlinkSync(lockPath);
      } catch {
        // broken by another process after STALE_AFTER_MS: nothing of ours to remove
      }
    }
  }
}
