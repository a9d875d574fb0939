import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { open as openHandle, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAlive } from '../alive.js';
import { countText } from '../render/text.js';

/**
 * The one way whsvc writes a file a user named (a secret file, a record file,
 * a checkpoint): never through a symlink, only ever a regular file, mode 0600
 * for what it creates, whole lines or nothing, and every failure one line
 * naming the path. The config and token cache are written by conf, in whsvc's
 * own config directory, under their lock (config/store.ts), once checkUserFile
 * has looked at what stands there, and read with readOwnFile.
 */

/** A file that cannot be written: `refused` before anything was written (a usage error), or a write that failed. */
export class FileError extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
    readonly hint?: string,
    /** What failed, when a write failed: the system's code (ENOSPC) and its words. */
    readonly failure?: { code: string | undefined; reason: string },
    /** Why a path was refused, where a caller acts on it: `exists`. */
    readonly reason?: 'exists',
  ) {
    super(message);
  }
}

/** A write to `path` that failed, as one line. */
function writeFailed(path: string, error: unknown): FileError {
  if (error instanceof FileError) return error;
  const reason = failureReason(error);
  const code = (error as NodeJS.ErrnoException).code;
  return new FileError(`cannot write to ${path}: ${reason}`, false, isNoSpace(error) ? 'free some space, or choose another path' : undefined, { code, reason });
}

/** What is at a path when it is not a regular file, in a user's words; undefined for a regular file. */
export function notRegular(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

/** A write's failure in a user's words. */
export function failureReason(error: unknown): string {
  if (error instanceof FileError) return error.failure?.reason ?? error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return 'no space left on the device';
  if (code === 'EDQUOT') return 'the disk quota is used up';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'its directory does not exist';
  if (code === 'ENOTDIR') return 'a part of the path is not a directory';
  if (code === 'EFBIG') return 'the file is too large';
  if (code === 'EIO') return 'an input/output error';
  if (code === 'ENAMETOOLONG') return 'the name is too long';
  // Node's own words without the path it repeats: `EXDEV: cross-device link not permitted, rename '…'`.
  const message = (error as Error).message ?? String(error);
  const said = /^(E[A-Z]+): ([^,]+)/.exec(message);
  return said ? `${said[2]} (${said[1]})` : message;
}

export const isNoSpace = (error: unknown) =>
  ['ENOSPC', 'EDQUOT'].includes((error instanceof FileError ? error.failure?.code : (error as NodeJS.ErrnoException).code) ?? '');

/**
 * Flags of every open: no symlink as the last part of the path; no wait on a
 * FIFO with no reader; no terminal becomes ours. (A symlinked directory above
 * it is the user's own choice of path, as /tmp is on macOS.)
 */
const SAFE = constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** What is at `path` now (lstat: a symlink is itself), or undefined when nothing is. */
function existing(path: string, label: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new FileError(`${label} ${path} cannot be written: ${failureReason(error)}`, true);
  }
}

/**
 * Why what `stats` shows (lstat: a symlink is itself) is not a regular file of its own, as the end of a sentence
 * about it, with a hint where one is its own; undefined when it is one. Not one: a symlink, a directory, a device, a
 * FIFO, a socket, a file with other hard links (a link planted in a shared directory reaches another file), or
 * another user's file.
 */
function notOwnRegularFile(stats: Stats): { why: string; hint?: string } | undefined {
  const what = notRegular(stats);
  if (what) return { why: `is ${what}, not a regular file` };
  if (stats.nlink > 1) return { why: 'has other hard links: it would change another file too', hint: 'give the path of a file of its own' };
  // Another user's file in a shared directory (a record file planted in /tmp, readable by its owner): not ours to fill.
  const me = process.geteuid?.();
  if (me !== undefined && stats.uid !== me) {
    return { why: `belongs to another user (uid ${stats.uid})`, hint: 'whsvc writes only files of your own: give the path of one, or of one to create' };
  }
  return undefined;
}

/** Refuses, before it is opened, what is not a regular file of its own (notOwnRegularFile). */
function refuseUnlessOwnRegularFile(path: string, stats: Stats, label: string, hint = 'give the path of a regular file (or of one to create)'): void {
  const not = notOwnRegularFile(stats);
  if (not) throw new FileError(`${label} ${path} ${not.why}`, true, not.hint ?? hint);
}

/** Opens `path` as it was checked: the file opened must be the regular file looked at (nothing swapped in meanwhile). */
function openChecked(path: string, flags: number, label: string, checked?: Stats): { fd: number; created: boolean } {
  let fd: number;
  try {
    // Written only, unless the caller reads too (O_RDWR: a line file looks at its own end).
    fd = openSync(path, SAFE | ((flags & constants.O_RDWR) !== 0 ? 0 : constants.O_WRONLY) | flags, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new FileError(`${label} ${path} is a symbolic link, not a regular file`, true, 'give the path of a regular file');
    if (code === 'EEXIST') throw new FileError(`${label} ${path} already exists`, true, undefined, undefined, 'exists');
    if (code === 'EISDIR') throw new FileError(`${label} ${path} is a directory, not a regular file`, true);
    throw new FileError(`${label} ${path} cannot be written: ${failureReason(error)}`, true);
  }
  const created = (flags & constants.O_EXCL) !== 0;
  try {
    const stats = fstatSync(fd);
    if (!created) {
      refuseUnlessOwnRegularFile(path, stats, label);
      if (checked && (stats.ino !== checked.ino || stats.dev !== checked.dev)) {
        throw new FileError(`${label} ${path} changed while it was opened`, true, 'run the command again');
      }
    }
    if (created) fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return { fd, created };
}

/**
 * A file whsvc appends whole lines to (a record file), each line starting
 * with `lineStart`: created 0600, or an existing regular file appended to
 * with its mode left as the user set it, once its first and last lines are
 * seen to be whsvc's own (a file of the user's is refused, untouched). A line
 * is written whole: a short write is finished, and a failed one is cut back,
 * so the file never ends in a cut line.
 */
export class LineFile {
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** Whether this open created the file. */
    readonly created: boolean,
    /** Bytes of a cut last line removed at open (a write a kill cut short); 0 when the file ended whole. */
    readonly cutAtOpen: number,
    /** The file opened, whatever its path names since: what removes it later removes only this one (removeOwnFile). */
    readonly identity: FileIdentity,
  ) {}

  static open(path: string, label: string, lineStart: string): LineFile {
    const before = existing(path, label);
    if (before) refuseUnlessOwnRegularFile(path, before, label);
    let opened: { fd: number; created: boolean };
    try {
      opened = before
        ? openChecked(path, constants.O_RDWR | constants.O_APPEND, label, before)
        : openChecked(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL, label);
    } catch (error) {
      // Made between the look and the open by another process: taken as it is now, checked again.
      if (before || !(error instanceof FileError) || error.reason !== 'exists') throw error;
      return LineFile.open(path, label, lineStart);
    }
    let cut = 0;
    let identity: FileIdentity;
    try {
      cut = opened.created ? 0 : cutBackToOwnLines(opened.fd, Buffer.from(lineStart, 'utf8'), () => notOurs(path, label));
      identity = identityOfOpen(opened.fd);
    } catch (error) {
      closeSync(opened.fd);
      throw writeFailed(path, error);
    }
    return new LineFile(path, opened.fd, opened.created, cut, identity);
  }

  /** The file's size now: where the next line starts. */
  size(): number {
    return fstatSync(this.fd).size;
  }

  /**
   * Whether the file open is still the one at its path: not deleted, nor
   * moved away (a log rotation) with another file, or none, in its place.
   */
  stillAtPath(): boolean {
    const open = fstatSync(this.fd);
    const named = lstatSync(this.path, { throwIfNoEntry: false });
    return open.nlink > 0 && named !== undefined && named.ino === open.ino && named.dev === open.dev;
  }

  /** Appends `line` and its newline, whole or not at all; a failure is a FileError naming the path. */
  appendLine(line: string): void {
    if (this.closed) throw new FileError(`${this.path} is closed`, false);
    writeWhole(this.fd, Buffer.from(`${line}\n`, 'utf8'), this.path);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** A file whose lines are not whsvc's own: refused before anything is written. */
function notOurs(path: string, label: string): FileError {
  return new FileError(
    `${label} ${path} is not a record file (its lines are not records whsvc wrote): left as it was`,
    true,
    'give the path of a record file, or of a new one',
  );
}

/**
 * Checks that a file's first and last lines begin as whsvc's lines do
 * (`lineStart`), else throws `refuse()`. A last line with no newline after it
 * is one a kill cut short mid-write (its start is ours, or as much of it as
 * was written): it is cut back, so that the next line starts on a line of its
 * own. Returns the bytes removed. Only these two lines are read: the first
 * tells a file of the user's at once, and the last is the only one a kill can
 * leave cut.
 */
function cutBackToOwnLines(fd: number, lineStart: Buffer, refuse: () => FileError): number {
  const size = fstatSync(fd).size;
  if (size === 0) return 0;
  // As much of a line's start as the file has: all of lineStart, or a shorter piece of it where the file ends.
  const startsAsOurs = (at: number) => {
    const head = Buffer.alloc(Math.min(lineStart.length, size - at));
    const read = readSync(fd, head, 0, head.length, at);
    return head.subarray(0, read).equals(lineStart.subarray(0, read)) && read === head.length;
  };
  if (!startsAsOurs(0)) throw refuse();
  const last = lastLineStart(fd, size);
  // A whole line shorter than lineStart fails too: its newline is where lineStart goes on.
  if (!startsAsOurs(last.at)) throw refuse();
  if (last.whole) return 0;
  // A whole line of ours that only lacks its newline (an editor, `printf %s`, dropped it) is kept: it gets its newline.
  if (isWholeJson(fd, last.at, size)) {
    writeSync(fd, '\n', size);
    return 0;
  }
  ftruncateSync(fd, last.at);
  return size - last.at;
}

/** Whether the bytes from `at` to `end` are one whole JSON text (a line of whsvc's that a kill did not cut). */
function isWholeJson(fd: number, at: number, end: number): boolean {
  if (end - at > 64 * 1024 * 1024) return false;
  const line = Buffer.alloc(end - at);
  readSync(fd, line, 0, line.length, at);
  return isJsonText(line.toString('utf8'));
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The lines of a line file's text as LineFile.open keeps them: each ended by its newline, and a last one without it
 * when it is whole JSON (an editor, `printf %s`, dropped the newline: the next append gives it one); a last line a
 * kill cut short is none.
 */
export function wholeLines(text: string): string[] {
  const lines = text.split('\n');
  const last = lines.pop()!;
  if (last !== '' && isJsonText(last)) lines.push(last);
  return lines;
}

/** Where the file's last line starts, and whether a newline ends it; read back from the end, 64 KiB at a time. */
function lastLineStart(fd: number, size: number): { at: number; whole: boolean } {
  const chunk = Buffer.alloc(64 * 1024);
  const lastByte = Buffer.alloc(1);
  readSync(fd, lastByte, 0, 1, size - 1);
  const whole = lastByte[0] === 0x0a;
  // The last line's own newline is not where it starts.
  let end = whole ? size - 1 : size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const read = readSync(fd, chunk, 0, end - start, start);
    const newline = chunk.subarray(0, read).lastIndexOf(0x0a);
    if (newline >= 0) return { at: start + newline + 1, whole };
    end = start;
  }
  return { at: 0, whole };
}

/**
 * Writes every byte (a short write is finished), at `position` or appended;
 * an append that fails is cut back to where it started. One line says why.
 */
function writeWhole(fd: number, bytes: Buffer, path: string, position?: number): void {
  const start = position === undefined ? fstatSync(fd).size : undefined;
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, position === undefined ? null : position + written);
  } catch (error) {
    try {
      if (start !== undefined && written > 0) ftruncateSync(fd, start);
    } catch {
      // Cut back as far as the file lets: the error below is what the user needs.
    }
    throw writeFailed(path, error);
  }
}

/**
 * A file reserved now and written once later (a signing secret that will
 * exist only once the webhook does). What stands at its path is checked now
 * (nothing, or with `force` a regular file of its own), and a temporary beside
 * it (0600) shows now that the directory takes a file. The content goes to the
 * temporary, is flushed, and only then takes the path (over the old file with
 * `force`, else only if nothing is there): a kill leaves the path as it was,
 * never an empty or a cut file, and its temporary is removed by the next write
 * beside it (removeStaleTemporaries).
 */
export class ReservedFile {
  private done = false;

  private constructor(
    readonly path: string,
    private readonly temporary: Temporary,
    private readonly force: boolean,
  ) {}

  static reserve(path: string, label: string, force: boolean): ReservedFile {
    ReservedFile.refuseWhatStands(path, label, force);
    try {
      return new ReservedFile(path, openTemporary(path), force);
    } catch (error) {
      throw new FileError(`${label} ${path} cannot be written: ${failureReason(error)}`, true);
    }
  }

  /**
   * Whether `reserve` would take the path, writing nothing (a --dry-run): what stands there, and a directory that
   * takes a file; a FileError as reserve's when not.
   */
  static check(path: string, label: string, force: boolean): void {
    ReservedFile.refuseWhatStands(path, label, force);
    try {
      accessSync(dirname(path), constants.W_OK | constants.X_OK);
    } catch (error) {
      throw new FileError(`${label} ${path} cannot be written: ${failureReason(error)}`, true);
    }
  }

  /** What stands at the path: nothing, or with `force` a regular file of its own. */
  private static refuseWhatStands(path: string, label: string, force: boolean): void {
    const before = existing(path, label);
    if (before) {
      refuseUnlessOwnRegularFile(path, before, label);
      if (!force) throw new FileError(`${label} ${path} already exists`, true, 'pass --force to overwrite it, or choose another path');
    }
  }

  /** Writes the content and puts it in place, whole; a failure is a FileError naming the path, the path left as it was. */
  write(content: string): void {
    this.done = true;
    commitTemporary(this.temporary, content, this.path, this.force);
  }

  /** Gives the reservation up: the path is left as it was. */
  discard(): void {
    if (this.done) return;
    this.done = true;
    dropTemporary(this.temporary);
  }
}

/** A temporary beside a file, open for writing. */
interface Temporary {
  fd: number;
  path: string;
}

/**
 * A temporary beside `path` (`.NAME.whsvc-PID-RANDOM.tmp`), made by this open
 * (O_EXCL), so ours and regular, 0600 whatever the umask. The temporaries
 * killed writers of `path` left are removed first, once per process.
 */
function openTemporary(path: string): Temporary {
  if (!swept.has(path)) {
    removeStaleTemporaries(path);
    swept.add(path);
  }
  const temporary = join(dirname(path), `.${basename(path)}.whsvc-${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = openSync(temporary, SAFE | constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  const made = { fd, path: temporary };
  try {
    fchmodSync(fd, 0o600);
  } catch (error) {
    dropTemporary(made);
    throw error;
  }
  return made;
}

/** A scratch file open for reading and writing; close() removes it too, if it is still in its directory. */
export interface ScratchFile {
  handle: FileHandle;
  close(): Promise<void>;
}

/**
 * A scratch file of whsvc's own in `dir` (`.whsvc-scratch-PID-RANDOM`, made by this open (O_EXCL), 0600 whatever the
 * umask), for what must be read twice but comes once (stdin). It is removed from the directory at once: it lives as
 * long as its handle, and no exit (an error, Ctrl-C, a kill) leaves it behind. Where an open file cannot be removed
 * (Windows), close() removes it.
 */
export async function openScratchFile(dir: string): Promise<ScratchFile> {
  const path = join(dir, `.whsvc-scratch-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  const handle = await openHandle(path, SAFE | constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
  let removed = false;
  const remove = () => {
    try {
      unlinkSync(path);
      removed = true;
    } catch {
      // removed at close
    }
  };
  try {
    await handle.chmod(0o600);
  } catch (error) {
    await handle.close();
    remove();
    throw error;
  }
  remove();
  return {
    handle,
    async close() {
      await handle.close();
      if (!removed) remove();
    },
  };
}

/** Closes and removes a temporary, as far as it can: what failed before matters more. */
function dropTemporary(temporary: Temporary): void {
  try {
    closeSync(temporary.fd);
  } catch {
    // closed already
  }
  try {
    unlinkSync(temporary.path);
  } catch {
    // gone already
  }
}

/**
 * Writes `content` to the temporary, flushes it to the disk, and gives it the
 * name `path`: over what is there (`replace`), or only where nothing is (a hard
 * link, which fails if the name is taken; on a file system without hard links,
 * a look, then a rename). The path gets the whole content or stays as it was;
 * a failure is a FileError naming it.
 */
function commitTemporary(temporary: Temporary, content: string, path: string, replace: boolean): FileIdentity {
  let identity: FileIdentity;
  try {
    writeWhole(temporary.fd, Buffer.from(content, 'utf8'), path, 0);
    fsyncSync(temporary.fd);
    identity = identityOfOpen(temporary.fd);
    closeSync(temporary.fd);
    if (replace) renameSync(temporary.path, path);
    else placeUnlessTaken(temporary.path, path);
  } catch (error) {
    dropTemporary(temporary);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new FileError(`cannot write to ${path}: a file was made there meanwhile`, false);
    throw writeFailed(path, error);
  }
  try {
    unlinkSync(temporary.path);
  } catch {
    // renamed into place, or gone
  }
  return identity;
}

/** Gives `from` the name `to` if nothing has it (EEXIST otherwise). */
function placeUnlessTaken(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP') throw error;
    if (existsSync(to)) throw Object.assign(new Error(`${to} exists`), { code: 'EEXIST' });
    renameSync(from, to);
  }
}

/** The temporaries of `path`: `.NAME.whsvc-PID-RANDOM.tmp` beside it. */
const TEMPORARY = (name: string) => new RegExp(`^\\.${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.whsvc-(\\d+)-[0-9a-z]+\\.tmp$`);

/** What is at a path, in a user's words: `a regular file`, `a FIFO`, `a directory`, … */
const kindOf = (stats: Stats): string => notRegular(stats) ?? 'a regular file';

/**
 * Refuses (a usage error), before anything is made or started, a path given for a directory that is there and is
 * not one (a file, a FIFO, a device; a symlink to a directory is the user's own choice of path), or that cannot be
 * looked at. Its stats, or undefined when nothing is there yet.
 */
export function checkDirectory(path: string, label: string): Stats | undefined {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new FileError(`${label} ${path} cannot be used: ${failureReason(error)}`, true);
  }
  if (!stats.isDirectory())
    throw new FileError(`${label} ${path} is ${kindOf(stats)}, not a directory`, true, 'give the path of a directory, or of one to create');
  return stats;
}

/**
 * Makes a directory (and its parents) that whsvc writes into: the user's alone. Not mkdirSync's recursive mode: on a
 * path it cannot create under an existing parent (under /proc) that loops forever, past Ctrl-C; and something else in
 * the place of the directory or of a parent is said as such (checkDirectory).
 */
function makeDirectory(directory: string, label: string): void {
  try {
    mkdirSync(directory, { mode: 0o700 });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      checkDirectory(directory, label);
      return;
    }
    if (code !== 'ENOENT' || dirname(directory) === directory || existsSync(dirname(directory))) throw error;
  }
  makeDirectory(dirname(directory), label);
  mkdirSync(directory, { mode: 0o700 });
}

/**
 * A directory whsvc will create files in (`webhooks apply --secret-dir`,
 * `sandbox start --data-dir`): made (0700) when it is not there, else it must
 * be a directory (a symlink to one is the user's own choice of path) that this
 * user can write into. Refused, before anything runs, otherwise (a usage
 * error); the files in it are created as ReservedFile, or SQLite, creates them.
 */
export function ensureDirectory(path: string, label: string): void {
  const stats = checkDirectory(path, label);
  try {
    if (!stats) makeDirectory(path, label);
    accessSync(path, constants.W_OK | constants.X_OK);
  } catch (error) {
    if (error instanceof FileError) throw error;
    throw new FileError(`${label} ${path} cannot be written into: ${failureReason(error)}`, true);
  }
}

/** Refuses, before anything runs, a path the writer would refuse: one that is there and not a regular file of its own. */
export function checkUserFile(path: string, label: string, hint?: string): void {
  const before = existing(path, label);
  if (before) refuseUnlessOwnRegularFile(path, before, label, hint);
}

/**
 * What removeOwnFile does at `path` now, the plan's test and the removal's: undefined when nothing is there (nor can
 * be: a part of the path is no directory); else the file, `left` with why when it is not a regular file of its own
 * (`is a symbolic link, not a regular file`), as removeOwnFile leaves it.
 */
export function removalAt(path: string, label: string): { left: { why: string; hint?: string } | undefined; stats: Stats } | undefined {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new FileError(`${label} ${path} cannot be removed: ${failureReason(error)}`, true);
  }
  return { left: notOwnRegularFile(stats), stats };
}

/**
 * Removes a file whsvc wrote (a secret file of a webhook deleted): true when removed, false when nothing was there.
 * What is not a regular file of its own (a symlink, a directory, a file with other links, another user's), or, given
 * `identity`, another file than the one read, is left as it is, a FileError saying why, as is a removal that fails.
 */
export function removeOwnFile(path: string, label: string, identity?: FileIdentity): boolean {
  const removal = removalAt(path, label);
  if (!removal) return false;
  if (removal.left) {
    throw new FileError(`${label} ${path} ${removal.left.why}`, true, removal.left.hint ?? 'left as it is: whsvc removes only a file it could have written');
  }
  if (identity && !isFile(removal.stats, identity))
    throw new FileError(`${label} ${path} was replaced since it was read: left as it is`, false, 'run the command again');
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new FileError(`cannot remove ${path}: ${failureReason(error)}`, false);
  }
  return true;
}

/**
 * Replaces the whole of `path` with `content`, or leaves it as it was: the
 * content goes to a temporary beside it (0600), is flushed to the disk, and
 * renamed over it, so that a kill, or a power cut, leaves the old content or
 * the new, never a cut or empty file (the directory is not synced: after a
 * power cut the old content may come back). What is at `path` must be a
 * regular file of its own, or nothing. The temporaries a killed writer left
 * are removed at the first write of each path. Returns the file written.
 */
export function replaceFile(path: string, content: string, label: string): FileIdentity {
  checkUserFile(path, label);
  let temporary: Temporary;
  try {
    // Failing to make it is a write that failed (no inode left, a directory no longer writable), said of the user's
    // file, not of the temporary.
    temporary = openTemporary(path);
  } catch (error) {
    throw writeFailed(path, error);
  }
  return commitTemporary(temporary, content, path, true);
}

/** The paths whose stale temporaries this process has removed already: once each is enough. */
const swept = new Set<string>();

/** Removes the temporaries of `path` whose writer is gone (a kill -9 between write and rename). */
function removeStaleTemporaries(path: string): void {
  const pattern = TEMPORARY(basename(path));
  let entries: string[];
  try {
    entries = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = pattern.exec(entry);
    if (!match || isAlive(Number(match[1]))) continue;
    try {
      unlinkSync(join(dirname(path), entry));
    } catch {
      // removed by another run meanwhile
    }
  }
}

/**
 * The text of a file whsvc keeps for itself (the config, the token cache, a journal), read with the writer's care:
 * looked at before it is opened (lstat), so that a symlink, a directory, a FIFO, a device, a file with other hard links
 * or another user's file is refused unopened, as the writer refuses it; opened without following a symlink nor waiting,
 * and seen to be the file looked at; at most `limit` bytes. Undefined when there is none.
 */
export function readOwnFile(path: string, label: string, limit = 16 * 1024 * 1024): string | undefined {
  return readOwnFileAndIdentity(path, label, limit)?.text;
}

/** Which file a path named when it was read: what removes it later removes only that one (removeOwnFile). */
export interface FileIdentity {
  dev: number;
  ino: number;
}

const isFile = (stats: FileIdentity, identity: FileIdentity) => stats.ino === identity.ino && stats.dev === identity.dev;

/** The file open at `fd`, as a FileIdentity: the one written or read, never what its path may name by now. */
function identityOfOpen(fd: number): FileIdentity {
  const { dev, ino } = fstatSync(fd);
  return { dev, ino };
}

/** readOwnFile, and which file was read. */
export function readOwnFileAndIdentity(path: string, label: string, limit = 16 * 1024 * 1024): { text: string; identity: FileIdentity } | undefined {
  const hint = 'remove it: whsvc keeps its own file there';
  let before: Stats | undefined;
  try {
    before = lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    throw new FileError(`${label} ${path} cannot be read: ${failureReason(error)}`, false);
  }
  if (!before) return undefined;
  refuseUnlessOwnRegularFile(path, before, label, hint);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | SAFE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new FileError(`${label} ${path} is a symbolic link, not a regular file`, true, hint);
    throw new FileError(`${label} ${path} cannot be read: ${failureReason(error)}`, false);
  }
  try {
    const stats = fstatSync(fd);
    if (!isFile(stats, before)) throw new FileError(`${label} ${path} changed while it was opened`, true, 'run the command again');
    if (stats.size > limit) throw new FileError(`${label} ${path} is larger than whsvc ever writes it (${countText(stats.size)} bytes)`, true, 'remove it');
    return { text: readFileSync(fd, 'utf8'), identity: { dev: stats.dev, ino: stats.ino } };
  } finally {
    closeSync(fd);
  }
}
