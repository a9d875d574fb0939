import type { IncomingHttpHeaders } from 'node:http';
import { usageError } from '../cli/errors.js';
import type { ServiceNumber } from '../exact-json.js';
import { FileError, LineFile } from '../files/user-file.js';
import { RECORD_LINE_START, recordedRequest, type RecordLine } from '../protocol/record-line.js';
import type { SignatureCheck } from '../protocol/signature.js';
import { bytesText } from '../render/words.js';

/**
 * A record file open for appending (through the one careful writer: never a
 * symlink nor a device, created 0600 since payloads hold business data), each
 * record a whole line or nothing, written as it comes, so that a process
 * killed mid-run loses at most the line in flight. Every line starts as
 * RECORD_LINE_START: an existing file whose lines do not is a file of the
 * user's, refused untouched, and only a cut line of whsvc's own is ever cut
 * back. A failed write is a FileError naming the path.
 */
export class RecordFile {
  private file: LineFile;

  constructor(
    path: string,
    /** Told when the file was deleted or moved away while open, and a new one is made at its path. */
    private readonly onReopened?: (message: string) => void,
  ) {
    if (path.trim() === '') throw usageError('--record is empty: give the path of the file to record to');
    this.file = LineFile.open(path, '--record', RECORD_LINE_START);
  }

  get path(): string {
    return this.file.path;
  }

  /** What to tell the user of a cut last line removed at open (a run killed mid-write), or undefined. */
  get repaired(): string | undefined {
    const cut = this.file.cutAtOpen;
    return cut === 0 ? undefined : `${this.path} ended in a line cut short (${bytesText(cut)}, a run killed mid-write): removed, so the file is whole again`;
  }

  /** The file's size now: where the next record starts. */
  size(): number {
    return this.file.size();
  }

  /**
   * Appends the record to the file at the path, whole: when the file open was
   * deleted or moved away meanwhile (a record written there would be kept
   * nowhere the user looks), the path is opened again first, with every check.
   */
  append(record: RecordLine): void {
    if (!this.file.stillAtPath()) {
      const path = this.file.path;
      let reopened: LineFile;
      try {
        reopened = LineFile.open(path, '--record', RECORD_LINE_START);
      } catch (error) {
        // Nothing can be recorded at the path now (a symlink planted there, say): a write that failed, not a usage
        // error; the file open stays open, so the next record looks again.
        if (error instanceof FileError) throw new FileError(`cannot record to ${path}: ${error.message}`, false, error.hint);
        throw error;
      }
      this.file.close();
      this.file = reopened;
      this.onReopened?.(`${path} was deleted or moved away while recording: recording to ${path} afresh`);
    }
    // whsvc_record first, as RECORD_LINE_START says every line begins.
    const { whsvc_record, ...fields } = record;
    this.file.appendLine(JSON.stringify({ whsvc_record, ...fields }));
  }

  close(): void {
    this.file.close();
  }
}

/**
 * A delivery as a record file keeps it, from what the command that records it knows: listen the request it received,
 * send the one it made, tail and diagnose one read back from the service. Header names in lower case, as Node gives
 * them to listen; the request as recordedRequest keeps it (no credential, the path without its query).
 */
export function deliveryRecord(delivery: {
  receivedAt: string;
  method?: string | undefined;
  path: string;
  headers: IncomingHttpHeaders | Record<string, string>;
  body: Buffer;
  signatureCheck: SignatureCheck;
  event: string | null;
  deliveryId: string | null;
  attempt: ServiceNumber | null;
  /** What the receiver answered; 0 when it gave none. */
  answered: number;
  /** The platform name the command was given (--platform-name); none for listen, which goes by the request's headers. */
  platformName?: string | undefined;
}): RecordLine {
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    whsvc_record: 1,
    received_at: delivery.receivedAt,
    ...recordedRequest(delivery.method ?? 'POST', delivery.path, headers, delivery.body, delivery.platformName),
    signature_check: delivery.signatureCheck,
    event: delivery.event,
    delivery_id: delivery.deliveryId,
    attempt: delivery.attempt,
    answered: delivery.answered,
  };
}
