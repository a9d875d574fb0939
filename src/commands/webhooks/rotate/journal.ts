import { basename, dirname, join } from 'node:path';
import { CliError, ExitCode } from '../../../cli/errors.js';
import { holdFileLock } from '../../../config/lock.js';
import { type FileIdentity, FileError, failureReason, LineFile, readOwnFileAndIdentity, removeOwnFile, wholeLines } from '../../../files/user-file.js';

// What `webhooks rotate-secret` has under way, kept beside the new secret's file (`.NAME.whsvc-rotate`, 0600, whole
// lines): before each step that changes the account, a line that says so, and after it what it made (the twin's id,
// the proof's deliveries, when the twin was resumed). A run stopped anywhere (Ctrl-C, kill -9, a failure) leaves the
// journal saying how far it got, and the same command run again reads it and goes on from there, with the same twin.

/** How each of the journal's lines starts: a file whose lines do not is not the journal, and is left as it is. */
const LINE_START = '{"whsvc_rotate":1,';

const LABEL = 'the rotate-secret journal';

/** The journal of the rotation whose new secret goes to `secretFile`. */
export const journalPath = (secretFile: string): string => join(dirname(secretFile), `.${basename(secretFile)}.whsvc-rotate`);

/** The webhook a rotation moves, as the journal's first line keeps it. */
export interface Moved {
  /** The service's base address. */
  service: string;
  old: string;
  url: string;
  events: string[];
  /** When the rotation began, by the service's clock as whsvc reckons it (ISO 8601; absent from an earlier whsvc's). */
  at?: string | undefined;
}

/** A create of the twin, as journaled before it is sent. */
export interface CreateSent {
  /** The other webhooks at the URL then, which are not the twin. */
  others: string[];
  /** The events it asks for (absent from a journal of an earlier whsvc). */
  events?: string[] | undefined;
  /** When it was sent, by the service's clock as whsvc reckons it (ISO 8601; absent from an earlier whsvc's). */
  at?: string | undefined;
}

/** A line of the journal, after `"whsvc_rotate":1`. */
export type Line =
  | { start: Moved }
  /** Before the twin's create is sent. */
  | { create: CreateSent }
  /** Webhooks a create whose answer was lost may have made, named to the user to delete the one it made. */
  | { lost: string[] }
  /** The twin the create made, before its secret is written. */
  | { twin: string }
  /** The test delivery that proves the receiver takes the new secret, tried again by the next run. */
  | { proof: string }
  /** The test delivery to the old webhook the proof's answer is compared with: a sample, never due as an event is. */
  | { compare: string }
  /** Before the twin is resumed. */
  | { switch: true }
  /** When the service resumed the twin (its updated_at): the doubles are looked for from then. */
  | { resumed_at: string }
  /** Attempt records of the old webhook a send settled (delivered, or answered 409): never sent again. */
  | { settled: string[] }
  /** Before the old webhook is deleted. */
  | { delete: true }
  | { done: true };

/** What the journal's lines say of a rotation, folded in order. */
export interface Rotation extends Moved {
  /** A create sent and no twin noted after it (its answer lost), and the webhooks named as what it may have made. */
  createOpen?: (CreateSent & { named?: string[] | undefined }) | undefined;
  twin?: string | undefined;
  /** The create that made the twin, as journaled before it was sent: what the twin is checked against. */
  created?: CreateSent | undefined;
  proof?: string | undefined;
  compare?: string | undefined;
  /** The switch has begun: the twin may take deliveries. */
  switched: boolean;
  resumedAt?: string | undefined;
  /** The old webhook's attempt records a send settled. */
  settled?: string[] | undefined;
  deleting: boolean;
  done: boolean;
}

/** The rotation a line leaves, from the one before it. */
function fold(rotation: Rotation | undefined, line: Line): Rotation | undefined {
  if ('start' in line) return { ...line.start, switched: false, deleting: false, done: false };
  if (!rotation) return undefined;
  if ('create' in line) return { ...rotation, createOpen: line.create, twin: undefined, created: undefined, proof: undefined, compare: undefined };
  if ('lost' in line) return { ...rotation, createOpen: rotation.createOpen && { ...rotation.createOpen, named: line.lost } };
  if ('twin' in line) return { ...rotation, createOpen: undefined, created: rotation.createOpen, twin: line.twin };
  if ('proof' in line) return { ...rotation, proof: line.proof };
  if ('compare' in line) return { ...rotation, compare: line.compare };
  if ('switch' in line) return { ...rotation, switched: true };
  if ('resumed_at' in line) return { ...rotation, resumedAt: line.resumed_at };
  if ('settled' in line) return { ...rotation, settled: [...(rotation.settled ?? []), ...line.settled] };
  if ('delete' in line) return { ...rotation, deleting: true };
  return { ...rotation, done: true };
}

/** A line as the journal holds it, or undefined when it is not one of its lines. */
function parseLine(text: string): Line | undefined {
  if (!text.startsWith(LINE_START)) return undefined;
  try {
    const { whsvc_rotate: _, ...line } = JSON.parse(text) as Record<string, unknown>;
    const [key] = Object.keys(line);
    if (
      Object.keys(line).length !== 1 ||
      !['start', 'create', 'lost', 'twin', 'proof', 'compare', 'switch', 'resumed_at', 'settled', 'delete', 'done'].includes(key!)
    )
      return undefined;
    return line as Line;
  } catch {
    return undefined;
  }
}

/**
 * The journal of one --secret-file: held by one run at a time (a lock file beside it, `.NAME.whsvc-rotate.lock`:
 * taken without waiting, over a run that died holding it), read whole when it is opened, each line appended whole
 * before the step it announces (a failure to write it stops the run before that step), removed when a rotation is
 * cancelled. Only the file it read, or made, is ever removed.
 */
export class RotationJournal {
  private file: LineFile | undefined;

  private constructor(
    readonly path: string,
    /** What the journal says now; undefined when there is none (or nothing of a rotation in it). */
    public rotation: Rotation | undefined,
    /** The file read, or made by this run; undefined while there is none. */
    private identity: FileIdentity | undefined,
    private readonly unlock: () => void,
  ) {}

  /**
   * The journal beside `secretFile`, as it is, held (`hold`) until release(). A file there that whsvc did not write,
   * or not of this user's, is refused, untouched; one another run holds is refused, before anything is read or sent.
   */
  static open(secretFile: string, { hold }: { hold: boolean }): RotationJournal {
    const path = journalPath(secretFile);
    const unlock = hold ? holdJournal(path, secretFile) : () => {};
    try {
      const read = readOwnFileAndIdentity(path, LABEL);
      let rotation: Rotation | undefined;
      for (const written of wholeLines(read?.text ?? '')) {
        const line = parseLine(written);
        if (!line) {
          throw new FileError(
            `${LABEL} ${path} is not a journal whsvc wrote (its lines are not rotate-secret's): left as it was`,
            true,
            'move it away: rotate-secret keeps its journal there',
          );
        }
        rotation = fold(rotation, line);
      }
      return new RotationJournal(path, rotation, read?.identity, unlock);
    } catch (error) {
      unlock();
      throw error;
    }
  }

  /** Begins the journal of a new rotation, in place of the one read (finished, or of no rotation). */
  start(moved: Moved): void {
    this.remove();
    this.rotation = undefined;
    this.file = LineFile.open(this.path, LABEL, LINE_START);
    if (!this.file.created) {
      this.close();
      throw new FileError(`${LABEL} ${this.path} was made meanwhile by another run: left as it is`, false, 'run the command again');
    }
    this.identity = this.file.identity;
    this.write({ start: moved });
  }

  /** Appends `line` whole, then takes it as said. */
  write(line: Line): void {
    this.file ??= LineFile.open(this.path, LABEL, LINE_START);
    this.file.appendLine(JSON.stringify({ whsvc_rotate: 1, ...line }));
    this.rotation = fold(this.rotation, line);
  }

  close(): void {
    this.file?.close();
    this.file = undefined;
  }

  /** Closes the journal and lets another run hold it. */
  release(): void {
    this.close();
    this.unlock();
  }

  /** Removes the journal read or made (a rotation cancelled, or replaced): nothing of it is left beside the secret file. */
  remove(): void {
    this.close();
    if (this.identity) removeOwnFile(this.path, LABEL, this.identity);
    this.identity = undefined;
  }
}

/** Holds the journal at `path` for this run, or refuses (exit 2) when another run holds it. Returns the release. */
function holdJournal(path: string, secretFile: string): () => void {
  let held: ReturnType<typeof holdFileLock>;
  try {
    held = holdFileLock(path);
  } catch (error) {
    throw new FileError(`cannot lock ${LABEL} ${path}: ${failureReason(error)}`, true);
  }
  if ('release' in held) return held.release;
  throw new CliError(
    `another whsvc${held.heldBy === undefined ? '' : ` (process ${held.heldBy})`} is rotating with --secret-file ${secretFile}: its journal is in use`,
    ExitCode.usage,
    `one rotation per --secret-file at a time: let that one end; if no whsvc is running, delete ${path}.lock`,
  );
}
