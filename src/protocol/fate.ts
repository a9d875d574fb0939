// What a delivery came to, told from its attempts, in one place for the CLI, the sandbox's log and the inspector's page
// (which bundles this file for the browser: it imports nothing but types).

import type { DeliveryStatus } from './status.js';

/**
 * A delivery's fate: `delivered` (by which attempt, when), `pending` (an attempt under way), or `failed`, with what
 * comes next: its automatic retry `due` (when), `none` (its automatic attempts ran out: only a retry by hand sends it
 * again), or `unknown` (the service does not say: the interface has no field for it; the sandbox's `next_attempt_at`
 * does).
 */
export type Fate =
  | { status: 'delivered'; attempt: number | null; at: string }
  | { status: 'pending' }
  | { status: 'failed'; retry: 'due'; due_at: string }
  | { status: 'failed'; retry: 'none' | 'unknown' };

/** What the fate is told from: an attempt as the service lists it (an item of the delivery log, a retrieved attempt). */
export interface FateAttempt {
  status: DeliveryStatus;
  /** Its number, 1 for the first send (the interface's `attempts`), when the service says it. */
  attempt?: number | undefined;
  created_at: string;
  /**
   * When the delivery's automatic retry is due (the sandbox's extension, on a failed delivery's newest attempt): a
   * time; null when none is; undefined when the service does not send the field.
   */
  next_attempt_at?: string | null | undefined;
}

/**
 * The fate of a delivery from the attempts of it that are known, newest first (the log's order). A delivery is
 * delivered once any attempt got through (the first that did is named). Otherwise its newest attempt tells it, so
 * `newestKnown` must say whether the first attempt given is the delivery's newest (the whole log above it was read,
 * unfiltered): when it is not, a retry may have been made since, and the fate is not known (undefined).
 */
export function deliveryFate(attempts: readonly FateAttempt[], newestKnown: boolean): Fate | undefined {
  let delivered: FateAttempt | undefined;
  for (const attempt of attempts) if (attempt.status === 'delivered') delivered = attempt;
  if (delivered) return { status: 'delivered', attempt: delivered.attempt ?? null, at: delivered.created_at };
  const newest = attempts[0];
  if (!newestKnown || !newest) return undefined;
  if (newest.status === 'pending') return { status: 'pending' };
  // Another word than the interface's three (another service's): not a fate whsvc can tell.
  if (newest.status !== 'failed') return undefined;
  if (typeof newest.next_attempt_at === 'string') return { status: 'failed', retry: 'due', due_at: newest.next_attempt_at };
  return { status: 'failed', retry: newest.next_attempt_at === null ? 'none' : 'unknown' };
}
