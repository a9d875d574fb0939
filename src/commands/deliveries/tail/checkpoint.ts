import { accessSync, constants, createReadStream, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { checkUserFile, replaceFile } from '../../../files/user-file.js';
import { holdFileLock } from '../../../config/lock.js';
import { CliError, ExitCode } from '../../../cli/errors.js';
import type { Position } from './follow.js';

/** Delivery ids kept as forwarded: enough to drop the retries of any delivery still being retried. */
export const FORWARDED_BOUND = 10_000;

/** Where one webhook's log resumes: after this attempt (null: from its start), and not before this time. */
export interface WebhookPosition {
  after: Position | null;
  since: string | null;
}

/**
 * What `deliveries tail --checkpoint FILE` keeps: per webhook, the attempt
 * after which nothing is left to do (an attempt still to forward holds it
 * back), and the ids of the deliveries forwarded (newest last, bounded).
 */
export interface Checkpoint {
  whsvc_tail_checkpoint: 1;
  base_url: string;
  forward_to: string | null;
  saved_at: string;
  webhooks: Record<string, WebhookPosition>;
  forwarded: string[];
  /**
   * The --record file (its absolute path) and its size when this was saved:
   * what was recorded after that size, by a run killed before its next save,
   * is not recorded again.
   */
  record?: { file: string; size: number } | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));

/** Why `value` is not a checkpoint, or undefined when it is one. */
function problemOf(value: unknown): string | undefined {
  if (!isRecord(value)) return 'not a JSON object';
  if (value.whsvc_tail_checkpoint !== 1) return 'no "whsvc_tail_checkpoint": 1';
  if (typeof value.base_url !== 'string') return 'no base_url';
  if (!isTime(value.saved_at)) return 'no saved_at time';
  if (!isRecord(value.webhooks)) return 'no webhooks object';
  for (const [id, entry] of Object.entries(value.webhooks)) {
    if (!isRecord(entry)) return `webhook ${id} is not an object`;
    const after = entry.after;
    if (after !== null && !(isRecord(after) && typeof after.id === 'string' && isTime(after.created_at))) return `webhook ${id} has no valid "after"`;
    if (entry.since !== null && !isTime(entry.since)) return `webhook ${id} has no valid "since"`;
  }
  if (!Array.isArray(value.forwarded) || !value.forwarded.every((id) => typeof id === 'string')) return 'no forwarded list';
  const record = value.record;
  if (record !== undefined && record !== null && !(isRecord(record) && typeof record.file === 'string' && Number.isSafeInteger(record.size))) {
    return 'no valid "record"';
  }
  return undefined;
}

const corrupt = (path: string, why: string) =>
  new CliError(
    `the checkpoint ${path} is not one that deliveries tail wrote (${why}); it is left as it is`,
    ExitCode.failure,
    `move it aside to start from now (or from --since), or give another --checkpoint FILE`,
  );

/** The checkpoint in `path`; undefined when there is none yet. A file of another shape is an error, and stays as it is. */
export function readCheckpoint(path: string): Checkpoint | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new CliError(`cannot read the checkpoint ${path}: ${code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(path, text.trim() === '' ? 'it is empty' : 'it is not JSON');
  }
  const problem = problemOf(value);
  if (problem) throw corrupt(path, problem);
  return value as Checkpoint;
}

/** Refuses, before anything runs, a checkpoint that could not be written where it is asked for. */
export function checkWritable(path: string): void {
  checkUserFile(path, '--checkpoint');
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `cannot write the checkpoint ${path}: ${code === 'ENOENT' ? `the directory ${dirname(path)} does not exist` : `the directory ${dirname(path)} is not writable`}`,
      ExitCode.usage,
    );
  }
}

/** Writes the checkpoint whole or not at all (mode 0600): a temporary beside it, then renamed over it. */
export function writeCheckpoint(path: string, checkpoint: Checkpoint): void {
  replaceFile(path, `${JSON.stringify(checkpoint, null, 1)}\n`, '--checkpoint');
}

/**
 * The delivery ids recorded to `file` after the checkpoint's save: a run
 * killed between a record and the save that follows it wrote them, and they
 * are not recorded again. None when the checkpoint kept another file, or the
 * file is shorter than it was (cut or rotated since).
 */
export async function recordedSinceSave(checkpoint: Checkpoint | undefined, file: string, size: number): Promise<string[]> {
  const saved = checkpoint?.record;
  if (!saved || saved.file !== resolve(file) || size <= saved.size) return [];
  const ids: string[] = [];
  const lines = createInterface({ input: createReadStream(file, { start: saved.size, end: size - 1 }), crlfDelay: Infinity });
  for await (const line of lines) {
    try {
      const id = (JSON.parse(line) as { delivery_id?: unknown }).delivery_id;
      if (typeof id === 'string') ids.push(id);
    } catch {
      // not a whole record: nothing was recorded by it
    }
  }
  return ids;
}

/**
 * Holds `<path>.lock` while a tail uses the checkpoint: two tails on one file
 * would each forward every delivery. A lock whose process is gone (kill -9)
 * is taken over. Returns the release.
 */
export function holdCheckpoint(path: string): () => void {
  let held: ReturnType<typeof holdFileLock>;
  try {
    held = holdFileLock(path);
  } catch (error) {
    throw new CliError(`cannot lock the checkpoint ${path}: ${(error as Error).message}`);
  }
  if ('release' in held) return held.release;
  throw new CliError(
    `the checkpoint ${path} is in use by another tail${held.heldBy === undefined ? '' : ` (process ${held.heldBy})`}`,
    ExitCode.usage,
    `one tail per checkpoint file; if none is running, delete ${path}.lock`,
  );
}

/**
 * Keeps `--checkpoint FILE` up to date: per webhook the attempt after which
 * nothing is left to do (one still to forward holds it back), the webhooks
 * gone, and the deliveries forwarded. A save that would change nothing but
 * its time writes nothing.
 */
export class CheckpointWriter {
  private readonly positions: Map<string, WebhookPosition>;
  private readonly gone = new Set<string>();
  /** What was written last, its time left out. */
  private written = '';

  constructor(
    private readonly path: string,
    private readonly header: { baseUrl: string; forwardTo: string | null },
    previous: Checkpoint | undefined,
    /** The service's clock: the save time is held against the times of its log (a webhook created since). */
    private readonly serviceNow: () => number,
    /** The --record file and its size now, kept with each save. */
    private readonly recorded?: { file: string; size: () => number },
  ) {
    this.positions = new Map(Object.entries(previous?.webhooks ?? {}));
  }

  /** A webhook deleted: no longer kept. */
  drop(webhookId: string): void {
    this.gone.add(webhookId);
  }

  save(
    followed: Map<string, { after: Position | null; since: number | undefined }>,
    heldBack: (webhookId: string) => Position | null | undefined,
    forwarded: string[],
  ): void {
    for (const [id, { after, since }] of followed) {
      const held = heldBack(id);
      this.positions.set(id, { after: held === undefined ? after : held, since: since === undefined ? null : new Date(since).toISOString() });
    }
    for (const id of this.gone) this.positions.delete(id);
    const next: Checkpoint = {
      whsvc_tail_checkpoint: 1,
      base_url: this.header.baseUrl,
      forward_to: this.header.forwardTo,
      saved_at: '',
      webhooks: Object.fromEntries(this.positions),
      forwarded,
      record: this.recorded ? { file: resolve(this.recorded.file), size: this.recorded.size() } : null,
    };
    const content = JSON.stringify(next);
    if (content === this.written) return;
    this.written = content;
    writeCheckpoint(this.path, { ...next, saved_at: new Date(this.serviceNow()).toISOString() });
  }
}
