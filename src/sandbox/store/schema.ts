import type { DatabaseSync } from 'node:sqlite';

const SCHEMA = `
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
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL, body TEXT NOT NULL, signature TEXT NOT NULL,
  auto_attempts INTEGER NOT NULL DEFAULT 0, next_due_at INTEGER, delivered INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (next_due_at) WHERE next_due_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_by_webhook ON deliveries (webhook_id);
CREATE TABLE IF NOT EXISTS attempts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
  delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  webhook_id TEXT NOT NULL, attempt INTEGER NOT NULL, status TEXT NOT NULL,
  response_code INTEGER, response_body TEXT, error TEXT, duration_ms INTEGER,
  created_at TEXT NOT NULL, queued TEXT);
CREATE INDEX IF NOT EXISTS attempts_by_webhook ON attempts (webhook_id, seq);
CREATE INDEX IF NOT EXISTS attempts_by_delivery ON attempts (delivery_id, attempt);
`;

/**
 * Makes the tables, and brings a store an earlier version made up to them. No
 * version number is kept: each change is recognized by what the file holds.
 */
export function migrate(db: DatabaseSync, transaction: (work: () => void) => void): void {
  const hasTable = (name: string) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  const hasColumn = (table: string, column: string) =>
    db
      .prepare(`PRAGMA table_info(${table})`)
      .all()
      .some((row) => row.name === column);
  // A store made when a delivery was called a chain (its table chains, its attempts' chain_id): renamed, data kept, in one
  // transaction (a stop half-way leaves it as it was). A chains table beside deliveries, empty, is one an older version
  // made again on the way back: dropped.
  if (hasTable('chains')) {
    transaction(() => {
      if (!hasTable('deliveries')) {
        db.exec('DROP INDEX IF EXISTS chains_due; DROP INDEX IF EXISTS chains_by_webhook; ALTER TABLE chains RENAME TO deliveries;');
      } else if (db.prepare('SELECT 1 FROM chains LIMIT 1').get() === undefined) {
        db.exec('DROP TABLE chains;');
      }
      if (hasColumn('attempts', 'chain_id')) db.exec('DROP INDEX IF EXISTS attempts_by_chain; ALTER TABLE attempts RENAME COLUMN chain_id TO delivery_id;');
    });
  }
  db.exec(SCHEMA);
  // A store made before attempts could be marked queued.
  if (!hasColumn('attempts', 'queued')) db.exec('ALTER TABLE attempts ADD COLUMN queued TEXT');
}
