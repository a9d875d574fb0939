import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Webhook } from '../../../api/shapes.js';
import {
  FileError,
  type FileIdentity,
  failureReason,
  LineFile,
  readOwnFileAndIdentity,
  removalAt,
  removeOwnFile,
  replaceFile,
  wholeLines,
} from '../../../files/user-file.js';
import { urlKey } from '../shared/url.js';

// The creates `webhooks apply` sends into a --secret-dir, kept in a journal there: before a create is sent, its URL
// (an intent); once the secret's file is written whole, a line that clears it. A create whose answer was lost (a
// kill, a gateway's 500 or a reset after the service acted) leaves its intent open, and the service gives a secret only
// in that answer: the next apply into the same directory finds the webhook without its secret file and names it.
// Webhooks apply never created into this directory (another CI job's, another checkout's) are none of its business.

/** The journal's name in the directory: hidden, and never a secret file's (`<id>.secret`, never starting with a dot). */
const JOURNAL = '.whsvc-apply-journal';
/** How each of the journal's lines starts: a file whose lines do not is not the journal, and is left as it is. */
const LINE_START = '{"whsvc_apply":1,';

type Line = { whsvc_apply: 1; create: string } | { whsvc_apply: 1; cleared: string };

/** A webhook of the account, as apply names it. */
export type Named = { id: string; url: string };

/** What the journal says against the account: the webhooks left without a secret, and the URLs whose intent stays open. */
export interface JournalCheck {
  named: Named[];
  open: string[];
  /** Whether some intent is settled (its create never happened, or its secret file is there): the journal can shrink. */
  settled: boolean;
  /** The journal read: only that file is removed (removeOwnFile), not one put in its place since. */
  identity?: FileIdentity | undefined;
}

const journalPath = (dir: string) => join(dir, JOURNAL);

/**
 * Each intent the journal under `dir` holds open, checked against the account: a URL the account lacks was never
 * created (dropped); one whose webhooks all have a non-empty secret file is settled; one with a webhook without is named.
 */
export function checkJournal(dir: string, account: Webhook[]): JournalCheck {
  const { intents, identity } = openIntents(dir);
  const check: JournalCheck = { named: [], open: [], settled: false, identity };
  for (const url of intents) {
    const made = account.filter((webhook) => urlKey(webhook.url) === urlKey(url));
    const secretless = made.filter(({ id }) => !hasSecretFile(dir, id));
    if (secretless.length === 0) check.settled = true;
    else {
      check.open.push(url);
      check.named.push(...secretless.map(({ id, url }) => ({ id, url })));
    }
  }
  return check;
}

/**
 * The URLs of the intents not cleared, in the order they were written, and the journal read. A last line a kill cut
 * short is no line.
 */
function openIntents(dir: string): { intents: string[]; identity?: FileIdentity | undefined } {
  const path = journalPath(dir);
  let read: ReturnType<typeof readOwnFileAndIdentity>;
  try {
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) return { intents: [] }; // nothing was ever created there
    read = readOwnFileAndIdentity(path, JOURNAL_LABEL);
  } catch (error) {
    if (error instanceof FileError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return { intents: [] };
    throw new FileError(`--secret-dir ${dir} cannot be read: ${failureReason(error)}`, true);
  }
  const open = new Map<string, string>();
  for (const written of wholeLines(read?.text ?? '')) {
    const line = parseLine(written);
    if (!line) {
      throw new FileError(
        `${JOURNAL_LABEL} ${path} is not a journal whsvc wrote (its lines are not apply's): left as it was`,
        true,
        'move it away: apply keeps its journal of creates there',
      );
    }
    if ('create' in line) open.set(urlKey(line.create), line.create);
    else open.delete(urlKey(line.cleared));
  }
  return { intents: [...open.values()], identity: read?.identity };
}

function parseLine(text: string): Line | undefined {
  if (!text.startsWith(LINE_START)) return undefined;
  try {
    const line = JSON.parse(text) as Record<string, unknown>;
    if (typeof line.create === 'string') return { whsvc_apply: 1, create: line.create };
    if (typeof line.cleared === 'string') return { whsvc_apply: 1, cleared: line.cleared };
  } catch {
    // not JSON: not ours
  }
  return undefined;
}

/** Where the secret file of the webhook `id` is under `dir`; undefined for an id no file can be named after. */
function secretPath(dir: string, id: string): string | undefined {
  try {
    return join(dir, secretFileName(id));
  } catch {
    return undefined;
  }
}

/** Whether the webhook `id` has its non-empty secret file under `dir`. */
export function hasSecretFile(dir: string, id: string): boolean {
  const path = secretPath(dir, id);
  if (path === undefined) return false;
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats?.isFile() === true && stats.size > 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw new FileError(`--secret-dir ${dir} cannot be read: ${failureReason(error)}`, true);
  }
}

/**
 * Removes the secret file under `dir` of a webhook just deleted (its secret was revoked with it, so the file verifies
 * nothing any more): its path when removed, undefined when there was none. One that cannot be removed is a FileError.
 */
export function removeSecretFile(dir: string, id: string): string | undefined {
  const path = secretPath(dir, id);
  return path !== undefined && removeOwnFile(path, SECRET_FILE) ? path : undefined;
}

/**
 * What removeSecretFile will do, for the plan: undefined when the webhook `id` has no secret file under `dir`; else
 * its path, and why it will be left (`is a symbolic link, not a regular file`) when it is not a regular file of one's own.
 */
export function secretFileRemoval(dir: string, id: string): { path: string; left: string | undefined } | undefined {
  const path = secretPath(dir, id);
  const removal = path === undefined ? undefined : removalAt(path, SECRET_FILE);
  return removal && { path: path!, left: removal.left?.why };
}

const SECRET_FILE = 'the secret file';

/**
 * The file of a created webhook's secret, named after its id: any character that could leave the directory encoded.
 * An id no URL can carry (a lone UTF-16 surrogate, from a service gone wrong) throws, inside the undo of its create.
 */
export function secretFileName(id: string): string {
  return `${encodeURIComponent(id).replace(/^\./, '%2E')}.secret`;
}

/**
 * The journal an apply writes its creates to, from the check made of it before the run: opened at the first intent,
 * appended to a whole line at a time, and removed at the end when no intent is left open in it.
 */
export class Journal {
  private file: LineFile | undefined;
  /** This run's intents not cleared yet. */
  private readonly pending = new Set<string>();
  /** The journal read or written by this run: the one file remove() may remove. */
  private identity: FileIdentity | undefined;

  constructor(
    readonly dir: string,
    private readonly check: JournalCheck,
  ) {
    this.identity = check.identity;
  }

  /**
   * Rids the journal of the intents the check settled: rewritten with only those still open, or removed when none is;
   * whole or as it was (replaceFile), so a kill loses no intent.
   */
  settle(): void {
    if (!this.check.settled) return;
    if (this.check.open.length === 0) this.remove();
    else {
      const lines = this.check.open.map((url) => `${lineOf({ whsvc_apply: 1, create: url })}\n`).join('');
      this.identity = replaceFile(journalPath(this.dir), lines, JOURNAL_LABEL);
    }
  }

  /** Before the create of `url` is sent; a failure to write it stops the run before anything is created. */
  intend(url: string): void {
    if (!this.file) {
      this.file = LineFile.open(journalPath(this.dir), JOURNAL_LABEL, LINE_START);
      this.identity = this.file.identity;
    }
    this.file.appendLine(lineOf({ whsvc_apply: 1, create: url }));
    this.pending.add(url);
  }

  /**
   * Once the secret of `url`'s webhook is in its file. A failure is let go: the secret is safe, and the intent left
   * open is settled by the next apply, which finds its file.
   */
  clear(url: string): void {
    try {
      this.file?.appendLine(lineOf({ whsvc_apply: 1, cleared: url }));
      this.pending.delete(url);
    } catch {
      // see above
    }
  }

  /** Closes the journal, and removes it when nothing in it is open: the directory holds only secret files again. */
  close(): void {
    if (!this.file) return;
    this.file.close();
    if (this.pending.size === 0 && this.check.open.length === 0) {
      try {
        this.remove();
      } catch {
        // Left whole: the next apply finds every intent in it cleared.
      }
    }
  }

  /** Removes the journal this run read or wrote, as any file whsvc wrote is removed: never through a symlink, nor another file in its place. */
  private remove(): void {
    if (this.identity) removeOwnFile(journalPath(this.dir), JOURNAL_LABEL, this.identity);
    this.identity = undefined;
  }
}

const JOURNAL_LABEL = '--secret-dir journal';

const lineOf = (line: Line) => JSON.stringify(line);
