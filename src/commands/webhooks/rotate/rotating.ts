import { lstatSync } from 'node:fs';
import { deleteWebhook, getWebhook } from '../../../api/endpoints.js';
import { ApiError } from '../../../api/errors.js';
import type { Webhook } from '../../../api/shapes.js';
import type { CommandDeps } from '../../../cli/context.js';
import { FileError } from '../../../files/user-file.js';
import { sanitize } from '../../../render/text.js';
import { sameEvents } from '../shared/events.js';
import { urlKey } from '../shared/url.js';
import type { RotationJournal } from './journal.js';
import type { OldLog } from './old-deliveries.js';
import type { WaitClock } from './tries.js';
import type { Report } from './words.js';

// What the parts of a rotate-secret run share: its options, the points where it can be stopped, and the reads and
// deletes that count a webhook gone meanwhile.

/** Where a run can be stopped (a kill would stop it there too): a test's `at` is called at each, and may throw. */
export type Point =
  | 'create-noted'
  | 'twin-made'
  | 'twin-noted'
  | 'created'
  | 'proven'
  | 'switch-noted'
  | 'resumed'
  | 'paused'
  | 'resent'
  | 'delete-noted'
  | 'deleted';

export interface RotateOptions {
  id: string;
  secretFile: string;
  dryRun: boolean;
  yes: boolean;
  /** --wait: how long the proof and the old webhook's last deliveries are tried again; 0 tries once. */
  waitMs: number;
  cancel: boolean;
  /** --abandon-due: the old webhook deleted even when deliveries signed with its secret did not get through (dropped, and listed). */
  abandonDue: boolean;
  /** Called at each point of the run where it could be stopped (tests: events made there, or a failure thrown). */
  at?: ((point: Point) => Promise<void> | void) | undefined;
  /** The clock --wait goes by: this machine's, unless a test gives its own. */
  clock?: WaitClock | undefined;
}

/** A run's parts, for the steps. */
export interface Rotating {
  deps: CommandDeps;
  options: RotateOptions;
  journal: RotationJournal;
  clock: WaitClock;
  report: Report;
  at: (point: Point) => Promise<void>;
}

/** The webhook asked for, or undefined when the service has it no more. */
export async function webhookOrGone(api: CommandDeps['api'], id: string): Promise<Webhook | undefined> {
  try {
    return await getWebhook(api, id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** Whether something is at `path` (a symlink counts: it is not ours to write through). */
export const isThere = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false }) !== undefined;

/** A new secret's file given where something is already, and the journal knows no twin whose file it is. */
export const secretFileTaken = (path: string) =>
  new FileError(
    `--secret-file ${path} already exists`,
    true,
    'rotate-secret writes the new secret to a file it creates: give the path of one that is not there',
  );

/** A delete that counts a webhook gone meanwhile as deleted. */
export async function deleteGone(api: CommandDeps['api'], id: string): Promise<void> {
  try {
    await deleteWebhook(api, id);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
}

/** The test deliveries the proof sent (samples, not events): never due, never a double. */
export const testDeliveries = (journal: RotationJournal): string[] =>
  [journal.rotation?.proof, journal.rotation?.compare].filter((id): id is string => id !== undefined);

/**
 * The old webhook's log as the journal knows it: the proof's samples never due, nor the records a send settled (each
 * journaled as it is, but by a dry run); failed records of a service that does not say when a retry is due counted
 * from `since`.
 */
export function oldLog(ctx: Rotating, since: number): OldLog {
  const { journal, options } = ctx;
  return {
    webhookId: options.id,
    notDue: () => [...testDeliveries(journal), ...(journal.rotation?.settled ?? [])],
    since,
    settle: (records) => {
      if (!options.dryRun) journal.write({ settled: records });
    },
  };
}

/**
 * How a webhook the service answered with differs from what was asked of it, in words: another URL (a create or an
 * update answered with `https://evil.example/…` would have the twin deliver there), or other events; undefined when it
 * does not. `asked.url` or `asked.events` undefined: not compared.
 */
export function unlikeAsked(webhook: Webhook, asked: { url?: string | undefined; events?: readonly string[] | undefined }): string | undefined {
  if (asked.url !== undefined && urlKey(String(webhook.url)) !== urlKey(asked.url)) return `it is at ${sanitize(webhook.url)}, not at ${sanitize(asked.url)}`;
  const events = Array.isArray(webhook.events) ? webhook.events : [];
  if (asked.events !== undefined && !sameEvents(events, asked.events))
    return `its events are ${events.map(sanitize).join(', ') || 'none'}, not ${asked.events.map(sanitize).join(', ')}`;
  return undefined;
}
