import { readFileSync } from 'node:fs';

/** The process's limit of open files (its soft limit), where the system tells it (Linux); undefined elsewhere. */
export function openFileLimit(limits: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  try {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(limits());
    if (!match) return undefined;
    return match[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** The most connections a whsvc process holds at once by itself (the sandbox's sends, listen's senders), whatever the file limit. */
export const MOST_CONNECTIONS = 256;

/**
 * The connections a process holds at once when no flag says otherwise (the
 * sandbox's sends in flight, listen's senders): a quarter of the file limit,
 * at most MOST_CONNECTIONS. The other three quarters are for what else holds
 * a descriptor: the sandbox's API clients, its store and the idle connections
 * each origin keeps for a few seconds; listen's forwards and record file.
 */
export function defaultMaxConnections(fileLimit = openFileLimit()): number {
  if (fileLimit === undefined) return MOST_CONNECTIONS;
  return Math.max(8, Math.min(MOST_CONNECTIONS, Math.floor(fileLimit / 4)));
}
