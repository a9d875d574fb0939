import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { FileError } from '../../../../src/files/user-file.js';
import { Database } from '../../../../src/sandbox/store/database.js';
import { openStore } from '../../../helpers/store.js';

/** The schema of a store made before a delivery had its name in the store (a "chain"), as --data-dir kept it. */
const CHAIN_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS clients (
  client_id TEXT PRIMARY KEY, client_secret TEXT NOT NULL, account_id TEXT NOT NULL,
  scopes TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
  token TEXT PRIMARY KEY, client_id TEXT NOT NULL, account_id TEXT NOT NULL,
  scope TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS webhooks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL,
  url TEXT NOT NULL, events TEXT NOT NULL, active INTEGER NOT NULL, signing_secret TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS webhooks_by_account ON webhooks (account_id, seq);
CREATE TABLE IF NOT EXISTS chains (
  id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL, body TEXT NOT NULL, signature TEXT NOT NULL,
  auto_attempts INTEGER NOT NULL DEFAULT 0, next_due_at INTEGER, delivered INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chains_due ON chains (next_due_at) WHERE next_due_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS chains_by_webhook ON chains (webhook_id);
CREATE TABLE IF NOT EXISTS attempts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  chain_id TEXT NOT NULL REFERENCES chains (id) ON DELETE CASCADE,
  webhook_id TEXT NOT NULL, attempt INTEGER NOT NULL, status TEXT NOT NULL,
  response_code INTEGER, response_body TEXT, error TEXT, duration_ms INTEGER,
  created_at TEXT NOT NULL, queued TEXT);
CREATE INDEX IF NOT EXISTS attempts_by_webhook ON attempts (webhook_id, seq);
CREATE INDEX IF NOT EXISTS attempts_by_chain ON attempts (chain_id, attempt);
`;

describe('Database: a --data-dir made by an earlier version', () => {
  it('is opened with its deliveries, attempts and due retries kept (chains renamed deliveries)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-store-'));
    try {
      const old = new DatabaseSync(join(dir, 'sandbox.db'));
      old.exec(CHAIN_SCHEMA);
      const now = new Date(0).toISOString();
      old
        .prepare('INSERT INTO webhooks (id, account_id, url, events, active, signing_secret, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?)')
        .run('wh_1', 'acct', 'https://example.com/h', '["invoice.paid"]', 's', now, now);
      old
        .prepare(
          'INSERT INTO chains (id, webhook_id, event, body, signature, auto_attempts, next_due_at, delivered, created_at) VALUES (?, ?, ?, ?, ?, 1, 5000, 0, ?)',
        )
        .run('dlv_1', 'wh_1', 'invoice.paid', '{}', 'sha256=x', now);
      old.prepare("INSERT INTO attempts (id, chain_id, webhook_id, attempt, status, created_at) VALUES ('dlv_1', 'dlv_1', 'wh_1', 1, 'failed', ?)").run(now);
      old.close();
      const store = openStore(dir);
      expect(store.deliveries.byId('dlv_1')).toMatchObject({ id: 'dlv_1', webhook_id: 'wh_1', next_due_at: 5000, delivered: false });
      expect(store.log.attemptsOfDelivery('dlv_1').map((a) => [a.id, a.delivery_id, a.status])).toEqual([['dlv_1', 'dlv_1', 'failed']]);
      expect(store.deliveries.due(10_000, 10).map((d) => d.id)).toEqual(['dlv_1']);
      store.database.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Database: the rename of an earlier store, the bad days', () => {
  it('a chains table an older version made again beside deliveries (a downgrade, then an upgrade) is dropped when empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-store-'));
    try {
      new Database(dir).close();
      const old = new DatabaseSync(join(dir, 'sandbox.db'));
      old.exec('CREATE TABLE chains (id TEXT PRIMARY KEY)');
      old.close();
      const store = openStore(dir);
      expect(store.deliveries.due(0, 10)).toEqual([]);
      store.database.close();
      const check = new DatabaseSync(join(dir, 'sandbox.db'));
      expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'chains'").get()).toBeUndefined();
      check.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Database: a --data-dir holds only its own regular files', () => {
  it.each(['sandbox.db', 'sandbox.db-wal', 'sandbox.db-shm'])('a symlink planted as %s is refused, and the file it points to is untouched', (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-store-link-'));
    try {
      const victim = join(dir, 'victim');
      writeFileSync(victim, 'untouched\n', { mode: 0o644 });
      const dataDir = join(dir, 'data');
      new Database(dataDir).close();
      rmSync(join(dataDir, name), { force: true });
      symlinkSync(victim, join(dataDir, name));
      expect(() => new Database(dataDir)).toThrow(FileError);
      expect(() => new Database(dataDir)).toThrow(`--data-dir ${join(dataDir, name)} is a symbolic link, not a regular file`);
      expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
      expect(statSync(victim).mode & 0o777).toBe(0o644);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Database: one sandbox at a time on a --data-dir', () => {
  /** Writes the holder's pid into the data dir's meta, as a sandbox that holds it leaves it there. */
  function holdAs(dir: string, pid: number): void {
    const db = new DatabaseSync(join(dir, 'sandbox.db'));
    db.prepare("INSERT INTO meta (key, value) VALUES ('held_by_pid', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(String(pid));
    db.close();
  }
  const holder = (dir: string) => {
    const db = new DatabaseSync(join(dir, 'sandbox.db'));
    const row = db.prepare("SELECT value FROM meta WHERE key = 'held_by_pid'").get();
    db.close();
    return row?.value;
  };

  it('is refused while another process that is alive holds it, taken over once that one is gone, and let go on close', () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-store-hold-'));
    try {
      const first = new Database(dir);
      first.setMeta('cursor_key', 'kept');
      expect(holder(dir)).toBe(String(process.pid));
      first.close();
      expect(holder(dir)).toBeUndefined();

      holdAs(dir, process.ppid);
      expect(() => new Database(dir)).toThrow(`another sandbox (pid ${process.ppid}) is using it; stop that one first, or give another --data-dir`);

      const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
      holdAs(dir, gone);
      const next = new Database(dir);
      expect(holder(dir)).toBe(String(process.pid));
      expect(next.getMeta('cursor_key')).toBe('kept');
      next.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
