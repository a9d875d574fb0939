import { DatabaseSync, type SQLInputValue, type StatementResultingChanges, type StatementSync } from 'node:sqlite';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../../alive.js';
import { checkUserFile, ensureDirectory } from '../../files/user-file.js';
import { migrate } from './schema.js';

export type Row = Record<string, SQLInputValue>;

/** The meta key of the pid of the sandbox that holds a --data-dir store. */
const HOLDER_KEY = 'held_by_pid';

/** `<dataDir>/sandbox.db`, opened for the user alone, written ahead to a log. */
function openFile(dataDir: string): DatabaseSync {
  // Client secrets, signing secrets and tokens live here: the folder and its files are the user's alone.
  ensureDirectory(dataDir, '--data-dir');
  // Only its own regular files: a symlink planted in their place would have SQLite write, and the chmod below
  // narrow, the file it points to.
  const file = join(dataDir, 'sandbox.db');
  const files = [file, `${file}-wal`, `${file}-shm`];
  for (const own of files) checkUserFile(own, '--data-dir', 'a data dir holds only its own files: remove that one, or give another --data-dir');
  const umask = process.umask(0o077);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file);
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  } finally {
    process.umask(umask);
  }
  for (const own of files) if (existsSync(own)) chmodSync(own, 0o600);
  return db;
}

/**
 * The sandbox's database: SQLite through node:sqlite, in memory or in
 * `<dataDir>/sandbox.db`, held by one sandbox at a time. Every call is
 * synchronous; the repositories (clients.ts, webhooks.ts, deliveries.ts,
 * delivery-log.ts) make each of theirs one statement or one transaction, so
 * a stop between two calls leaves nothing half-written.
 */
export class Database {
  private readonly db: DatabaseSync;
  /** With --data-dir; in memory there is nothing to hold. */
  private readonly held: boolean;
  private readonly statements = new Map<string, StatementSync>();
  /** Counts the writes to webhooks, deliveries and attempts: the inspector page refreshes when it moves. */
  private changeCount = 0;

  constructor(dataDir?: string) {
    this.held = Boolean(dataDir);
    this.db = dataDir ? openFile(dataDir) : new DatabaseSync(':memory:');
    this.db.exec('PRAGMA foreign_keys = ON;');
    migrate(this.db, (work) => this.transaction(work));
    if (this.held) {
      try {
        this.claim();
      } catch (error) {
        this.db.close();
        throw error;
      }
    }
  }

  /**
   * One sandbox at a time on a store: a second would take the first's sends
   * under way for ones a crash cut off, and send them again. The holder's pid
   * is kept in the store; a holder that is gone (stopped, or killed) leaves it
   * to the next.
   */
  private claim(): void {
    this.transaction(() => {
      const holder = Number(this.getMeta(HOLDER_KEY));
      if (holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new Error(`another sandbox (pid ${holder}) is using it; stop that one first, or give another --data-dir`);
      }
      this.setMeta(HOLDER_KEY, String(process.pid));
    });
  }

  /** A number that moves whenever a webhook, a delivery or an attempt is written (never for tokens or meta). */
  get changes(): number {
    return this.changeCount;
  }

  /** Said by a repository that wrote a webhook, a delivery or an attempt. */
  changed(): void {
    this.changeCount += 1;
  }

  close(): void {
    if (!this.db.isOpen) return;
    if (this.held && this.getMeta(HOLDER_KEY) === String(process.pid)) this.run('DELETE FROM meta WHERE key = ?', HOLDER_KEY);
    this.db.close();
  }

  /** The statement of `sql`, prepared once. */
  statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.statement(sql).get(...params) as Row | undefined;
  }

  all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.statement(sql).all(...params) as Row[];
  }

  run(sql: string, ...params: SQLInputValue[]): StatementResultingChanges {
    return this.statement(sql).run(...params);
  }

  transaction<T>(work: () => T): T {
    this.statement('BEGIN IMMEDIATE').run();
    try {
      const result = work();
      this.statement('COMMIT').run();
      return result;
    } catch (error) {
      this.statement('ROLLBACK').run();
      throw error;
    }
  }

  getMeta(key: string): string | undefined {
    const row = this.get('SELECT value FROM meta WHERE key = ?', key);
    return row ? String(row.value) : undefined;
  }

  setMeta(key: string, value: string): void {
    this.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', key, value);
  }
}
