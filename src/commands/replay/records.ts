import { constants as buffer } from 'node:buffer';
import { open, type FileHandle } from 'node:fs/promises';
import { CliError, ExitCode, usageError } from '../../cli/errors.js';
import { parseRecord, type RecordedDelivery } from '../../protocol/record.js';

/** A record file checked whole: how many records the filter chose, and those records again, to send. */
export interface CheckedRecords {
  /** How many records the filter chose. */
  count: number;
  /** The chosen records again, in the order of the file. */
  chosen(): AsyncIterable<RecordedDelivery>;
  close(): Promise<void>;
}

export interface ReadLimits {
  /** Bytes read at a time (tests make it small). */
  chunkBytes?: number;
  /** The longest line taken: one record is one string, and Node's strings have a limit. */
  maxLineBytes?: number;
}

const CHUNK_BYTES = 1 << 20;

/**
 * A record file as replay reads it: streamed line by line, so memory holds one
 * line (one delivery) at a time however large the file. It is read twice: once
 * to check every line and count what is chosen, before anything is sent (a bad
 * line anywhere is exit 2 naming it, and nothing is sent), then again to send.
 * A file that is not a regular file (a pipe, `<(zcat …)`) cannot be read twice:
 * the records chosen are kept from the first reading instead.
 */
export async function checkRecordFile(file: string, choose: (record: RecordedDelivery) => boolean, limits: ReadLimits = {}): Promise<CheckedRecords> {
  const cannotRead = (error: unknown) =>
    new CliError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, ExitCode.usage);
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw cannotRead(error);
  }
  try {
    const rereadable = (await handle.stat()).isFile();
    const kept: RecordedDelivery[] = [];
    let count = 0;
    let checkedBytes = 0;
    try {
      for await (const { record, endsAt } of records(file, handle, undefined, limits)) {
        checkedBytes = endsAt;
        if (!choose(record)) continue;
        count += 1;
        if (!rereadable) kept.push(record);
      }
    } catch (error) {
      throw error instanceof CliError ? error : cannotRead(error);
    }
    return {
      count,
      chosen: rereadable ? () => chosenAgain(file, handle, checkedBytes, choose, limits) : () => toAsync(kept),
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The second reading, up to where the first one checked (a file still being appended to has more by now). */
async function* chosenAgain(
  file: string,
  handle: FileHandle,
  end: number,
  choose: (record: RecordedDelivery) => boolean,
  limits: ReadLimits,
): AsyncGenerator<RecordedDelivery> {
  try {
    for await (const { record } of records(file, handle, end, limits)) if (choose(record)) yield record;
  } catch (error) {
    const why = error instanceof CliError ? error.message : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    throw new CliError(`${file} changed while it was replayed (${why}): what was sent before is shown above`, ExitCode.usage);
  }
}

async function* toAsync<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

/**
 * The records of the file from where it stands (a pipe), or of its first `end` bytes, each with the offset just past
 * its line; a bad line is a usage error `FILE:LINE: why`.
 */
async function* records(
  file: string,
  handle: FileHandle,
  end: number | undefined,
  limits: ReadLimits,
): AsyncGenerator<{ record: RecordedDelivery; endsAt: number }> {
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const maxLineBytes = limits.maxLineBytes ?? buffer.MAX_STRING_LENGTH;
  let number = 0;
  let endsAt = 0;
  const problem = (why: string) =>
    usageError(`${file}:${number}: ${why}`, 'a record file holds one JSON object a line, as `whsvc listen --record FILE` writes it');
  for await (const line of splitLines(chunksOf(handle, limits.chunkBytes ?? CHUNK_BYTES, end), maxLineBytes)) {
    number += 1;
    endsAt += line.bytes;
    if (line.tooLong) throw problem(`longer than ${maxLineBytes} bytes, the most one record can be read as (one string)`);
    let decoded: string;
    try {
      decoded = text.decode(line.text);
    } catch {
      throw problem('not UTF-8 text');
    }
    if (decoded.trim() === '') continue;
    const parsed = parseRecord(decoded);
    if ('problem' in parsed) throw problem(parsed.problem);
    yield { record: parsed, endsAt };
  }
}

/** The file's bytes from where it stands (a pipe), or its first `end` bytes from the start, `size` at a time. */
async function* chunksOf(handle: FileHandle, size: number, end: number | undefined): AsyncGenerator<Buffer> {
  let position = 0;
  while (end === undefined || position < end) {
    const want = end === undefined ? size : Math.min(size, end - position);
    // A new buffer each time: a line still being read holds on to the chunks it lies in.
    const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(want), 0, want, end === undefined ? null : position);
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
