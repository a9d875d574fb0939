import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { InputStream } from '../../cli/deps.js';
import { CliError, ExitCode, usageError } from '../../cli/errors.js';
import { STDIN } from '../../cli/stdin.js';
import { failureReason, notRegular, openScratchFile, type ScratchFile } from '../../files/user-file.js';
import { MAX_BODY_BYTES } from '../../receiver/server.js';
import { bytesText } from '../../render/words.js';
import { parseRecordLine, type RecordLine } from '../../protocol/record-line.js';

/** A record file checked whole: how many records the filter chose, and those records again, to send. */
export interface CheckedRecords {
  /** Where they come from, as messages name it: the file, or `stdin`. */
  name: string;
  /** How many records the filter chose. */
  count: number;
  /** The chosen records again, in the order of the file. */
  chosen(): AsyncIterable<RecordLine>;
  close(): Promise<void>;
}

export interface ReadLimits {
  /** Bytes read at a time (tests make it small). */
  chunkBytes?: number;
  /** The longest line taken (MAX_RECORD_LINE_BYTES unless a test sets another). */
  maxLineBytes?: number;
  /** Where stdin is kept to be read again (the system's temporary directory unless a test sets another). */
  scratchDir?: string;
}

const CHUNK_BYTES = 1 << 20;

/**
 * The longest record line replay reads: 16 MiB. listen records bodies of at most 1 MiB (MAX_BODY_BYTES), at most six
 * times longer once escaped as JSON, and its headers besides; a longer line is no record of whsvc's, and is refused
 * before it is held whole.
 */
export const MAX_RECORD_LINE_BYTES = 16 * MAX_BODY_BYTES;

/**
 * A record file as replay reads it: streamed line by line, so memory holds one
 * line (one delivery, at most MAX_RECORD_LINE_BYTES) at a time however large the
 * file. It is read twice: once to check every line and count what is chosen,
 * before anything is sent (a bad line anywhere is exit 2 naming it, and nothing
 * is sent), then again to send. Only a regular file is read by name, as every
 * file whsvc reads: a FIFO with no writer, or a device, would hold the open or
 * the read for good, past Ctrl-C. Records piped in come as `-` (stdin), read
 * once: what comes is kept in a scratch file as it is checked, and read again
 * from there.
 */
export async function checkRecordFile(
  file: string,
  choose: (record: RecordLine) => boolean,
  limits: ReadLimits = {},
  stdin?: InputStream,
): Promise<CheckedRecords> {
  if (file === STDIN) return checkPipedRecords(stdin, choose, limits);
  const handle = await openRecordFile(file);
  return checkedOnce({ name: file, handle, close: () => handle.close() }, chunksOf(handle, limits.chunkBytes ?? CHUNK_BYTES), choose, limits);
}

/**
 * The first reading of `chunks`, whose bytes are (or are made, as they are read) the file `source.handle`: every line
 * checked and the chosen ones counted; the second reading, to send, is of the file. `source` is closed on a failure.
 */
async function checkedOnce(
  source: { name: string; handle: FileHandle; close(): Promise<void> },
  chunks: AsyncIterable<Buffer>,
  choose: (record: RecordLine) => boolean,
  limits: ReadLimits,
): Promise<CheckedRecords> {
  const { name, handle } = source;
  try {
    let count = 0;
    let checkedBytes = 0;
    try {
      for await (const { record, endsAt } of records(name, chunks, limits)) {
        checkedBytes = endsAt;
        if (choose(record)) count += 1;
      }
    } catch (error) {
      throw error instanceof CliError ? error : cannotRead(name, error);
    }
    return { name, count, chosen: () => chosenAgain(name, handle, checkedBytes, choose, limits), close: () => source.close() };
  } catch (error) {
    await source.close();
    throw error;
  }
}

const cannotRead = (file: string, error: unknown) =>
  new CliError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, ExitCode.usage);

/** A path that is not a regular file: refused before it is opened (and again once open, were one swapped in). */
function refuseUnlessRegular(file: string, stats: Stats): void {
  const what = notRegular(stats);
  if (what === undefined) return;
  throw usageError(
    `${file} is ${what}, not a regular file`,
    'give the path of a record file, or - to pipe records in (zcat f.ndjson.gz | whsvc replay - --to URL)',
  );
}

/** Opens the record file named: a regular file only, opened without waiting (O_NONBLOCK: a FIFO never holds it). */
async function openRecordFile(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    refuseUnlessRegular(file, await stat(file));
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    throw error instanceof CliError ? error : cannotRead(file, error);
  }
  try {
    refuseUnlessRegular(file, await handle.stat());
    return handle;
  } catch (error) {
    await handle.close();
    throw error instanceof CliError ? error : cannotRead(file, error);
  }
}

/**
 * Records piped in on stdin (`-`): read once, checked as they come, and kept in a scratch file (0600, in the
 * temporary directory, gone when replay ends however it ends) to be read again to send. Memory holds one line, as
 * for a file; the disk holds what was piped in, until replay ends.
 */
async function checkPipedRecords(stdin: InputStream | undefined, choose: (record: RecordLine) => boolean, limits: ReadLimits): Promise<CheckedRecords> {
  if (stdin === undefined || stdin.isTTY) {
    throw usageError('replay - reads records from stdin, which is a terminal: pipe them in (zcat f.ndjson.gz | whsvc replay - --to URL)');
  }
  const dir = limits.scratchDir ?? tmpdir();
  let scratch: ScratchFile;
  try {
    scratch = await openScratchFile(dir);
  } catch (error) {
    throw cannotKeep(dir, error);
  }
  return checkedOnce({ name: 'stdin', ...scratch }, keptIn(scratch.handle, dir, bytesOf(stdin)), choose, limits);
}

const cannotKeep = (dir: string, error: unknown) =>
  new CliError(
    `stdin: cannot be kept in a scratch file in ${dir} to be read again (${failureReason(error)})`,
    ExitCode.failure,
    'set TMPDIR to a directory with room, or give replay the record file by name',
  );

/** The chunks, each written to the end of `scratch` before it is given on. */
async function* keptIn(scratch: FileHandle, dir: string, chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let position = 0;
  for await (const chunk of chunks) {
    try {
      for (let written = 0; written < chunk.length; ) {
        written += (await scratch.write(chunk, written, chunk.length - written, position + written)).bytesWritten;
      }
    } catch (error) {
      throw cannotKeep(dir, error);
    }
    position += chunk.length;
    yield chunk;
  }
}

async function* bytesOf(stdin: InputStream): AsyncGenerator<Buffer> {
  for await (const chunk of stdin) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

/** The second reading, up to where the first one checked (a file still being appended to has more by now). */
async function* chosenAgain(
  file: string,
  handle: FileHandle,
  end: number,
  choose: (record: RecordLine) => boolean,
  limits: ReadLimits,
): AsyncGenerator<RecordLine> {
  try {
    for await (const { record } of records(file, chunksOf(handle, limits.chunkBytes ?? CHUNK_BYTES, end), limits)) if (choose(record)) yield record;
  } catch (error) {
    const why = error instanceof CliError ? error.message : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    throw new CliError(`${file} changed while it was replayed (${why}): what was sent before is shown above`, ExitCode.usage);
  }
}

/** The records in a stream of bytes, each with the offset just past its line; a bad line is a usage error `FILE:LINE: why`. */
async function* records(file: string, chunks: AsyncIterable<Buffer>, limits: ReadLimits): AsyncGenerator<{ record: RecordLine; endsAt: number }> {
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const maxLineBytes = limits.maxLineBytes ?? MAX_RECORD_LINE_BYTES;
  let number = 0;
  let endsAt = 0;
  const problem = (why: string) =>
    usageError(`${file}:${number}: ${why}`, 'a record file holds one JSON object a line, as `whsvc listen --record FILE` writes it');
  for await (const line of splitLines(chunks, maxLineBytes)) {
    number += 1;
    endsAt += line.bytes;
    if (line.tooLong)
      throw problem(
        `longer than ${bytesText(maxLineBytes)}, the most replay reads as one record (listen records bodies of at most ${bytesText(MAX_BODY_BYTES)})`,
      );
    let decoded: string;
    try {
      decoded = text.decode(line.text);
    } catch {
      throw problem('not UTF-8 text');
    }
    if (decoded.trim() === '') continue;
    const parsed = parseRecordLine(decoded);
    if ('problem' in parsed) throw problem(parsed.problem);
    yield { record: parsed, endsAt };
  }
}

/** The file's bytes from its start, to its end or to `end`, `size` at a time. */
async function* chunksOf(handle: FileHandle, size: number, end = Number.POSITIVE_INFINITY): AsyncGenerator<Buffer> {
  let position = 0;
  while (position < end) {
    const want = Math.min(size, end - position);
    // A new buffer each time: a line still being read holds on to the chunks it lies in.
    const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(want), 0, want, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/** One line of a stream: its text without the newline, and how many bytes it took (the newline included). */
export interface Line {
  text: Buffer;
  bytes: number;
  /** Longer than the limit: no text, and it is the last line read. */
  tooLong?: true;
}

/**
 * The lines of a stream of bytes, split at each `\n` (a line's `\r` stays, JSON takes it as a space): one line's
 * bytes held at a time, in the pieces they came in until the line is whole.
 */
export async function* splitLines(chunks: AsyncIterable<Buffer>, maxLineBytes: number): AsyncGenerator<Line> {
  let pieces: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    let from = 0;
    for (let newline = chunk.indexOf(10, from); newline !== -1; newline = chunk.indexOf(10, from)) {
      pieces.push(chunk.subarray(from, newline));
      size += newline - from;
      if (size > maxLineBytes) break;
      yield { text: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, size), bytes: size + 1 };
      pieces = [];
      size = 0;
      from = newline + 1;
    }
    if (size <= maxLineBytes && from < chunk.length) {
      pieces.push(chunk.subarray(from));
      size += chunk.length - from;
    }
    if (size > maxLineBytes) {
      yield { text: Buffer.alloc(0), bytes: size, tooLong: true };
      return;
    }
  }
  if (size > 0) yield { text: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, size), bytes: size };
}
