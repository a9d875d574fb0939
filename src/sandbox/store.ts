import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isAlive } from '../alive.js';
import { checkUserFile } from '../files/user-file.js';

export interface ClientRecord {
  client_id: string;
  client_secret: string;
  account_id: string;
  scopes: string[];
  label: string;
}

export interface WebhookRecord {
  seq: number;
  id: string;
  account_id: string;
  url: string;
  events: string[];
  active: boolean;
  signing_secret: string;
  created_at: string;
  updated_at: string;
}

/** One delivery: an event occurrence for one webhook, sent by one or more attempts. */
export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  event: string;
  body: string;
  signature: string;
  auto_attempts: number;
  next_due_at: number | null;
  delivered: boolean;
  created_at: string;
}

export type AttemptStatus = 'pending' | 'delivered' | 'failed';

/**
 * A delivery's status, the one rule of the whole tool: delivered once any of
 * its attempts got through; otherwise its newest attempt's status (failed, or
 * pending while it is under way), pending before its first. A failed delivery
 * may have an automatic retry due: that is said beside the status
 * (`next_attempt_at`), never as another status.
 */
export function deliveryStatus(delivered: boolean, newest: AttemptStatus | undefined): AttemptStatus {
  if (delivered) return 'delivered';
  return newest === 'failed' ? 'failed' : 'pending';
}

/** deliveryStatus in SQL, for the delivery `c`. */
const DELIVERY_STATUS_SQL = `CASE WHEN c.delivered = 1 THEN 'delivered'
  WHEN (SELECT x.status FROM attempts x WHERE x.delivery_id = c.id ORDER BY x.attempt DESC LIMIT 1) = 'failed' THEN 'failed'
  ELSE 'pending' END`;

export interface AttemptRecord {
  seq: number;
  id: string;
  delivery_id: string;
  webhook_id: string;
  account_id: string;
  event: string;
  attempt: number;
  status: AttemptStatus;
  response_code: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number | null;
  created_at: string;
  body: string;
  signature: string;
  /** When the delivery's next automatic attempt is due, on the newest attempt of a failed delivery that has one; else null. */
  next_attempt_at: string | null;
}

export interface PageQuery {
  beforeSeq?: number | undefined;
  limit: number;
}

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

type Row = Record<string, SQLInputValue>;

/** The meta key of the pid of the sandbox that holds a --data-dir store. */
const HOLDER_KEY = 'held_by_pid';

/**
 * Makes a --data-dir directory (and its parents), the user's alone. Not
 * mkdirSync's recursive mode: on a path it cannot create under an existing
 * parent (under /proc) that loops forever; and a file in the directory's place
 * is said as such.
 */
function makeDirectory(directory: string): void {
  try {
    mkdirSync(directory, { mode: 0o700 });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (!statSync(directory).isDirectory()) throw new Error(`${directory} is a file, not a directory`);
      return;
    }
    if (code !== 'ENOENT' || dirname(directory) === directory || existsSync(dirname(directory))) throw error;
  }
  makeDirectory(dirname(directory));
  mkdirSync(directory, { mode: 0o700 });
}

function toClient(row: Row): ClientRecord {
  return {
    client_id: String(row.client_id),
    client_secret: String(row.client_secret),
    account_id: String(row.account_id),
    scopes: String(row.scopes).split(' ').filter(Boolean),
    label: String(row.label),
  };
}

function toWebhook(row: Row): WebhookRecord {
  return {
    seq: Number(row.seq),
    id: String(row.id),
    account_id: String(row.account_id),
    url: String(row.url),
    events: JSON.parse(String(row.events)) as string[],
    active: row.active === 1 || row.active === 1n,
    signing_secret: String(row.signing_secret),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

function toDelivery(row: Row): DeliveryRecord {
  return {
    id: String(row.id),
    webhook_id: String(row.webhook_id),
    event: String(row.event),
    body: String(row.body),
    signature: String(row.signature),
    auto_attempts: Number(row.auto_attempts),
    next_due_at: row.next_due_at === null ? null : Number(row.next_due_at),
    delivered: Number(row.delivered) === 1,
    created_at: String(row.created_at),
  };
}

function toAttempt(row: Row): AttemptRecord {
  const nullableString = (v: SQLInputValue | undefined) => (v === null || v === undefined ? null : String(v));
  return {
    seq: Number(row.seq),
    id: String(row.id),
    delivery_id: String(row.delivery_id),
    webhook_id: String(row.webhook_id),
    account_id: String(row.account_id),
    event: String(row.event),
    attempt: Number(row.attempt),
    status: String(row.status) as AttemptStatus,
    response_code: row.response_code === null ? null : Number(row.response_code),
    response_body: nullableString(row.response_body),
    error: nullableString(row.error),
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
    created_at: String(row.created_at),
    body: String(row.body),
    signature: String(row.signature),
    next_attempt_at: row.next_attempt_at === null || row.next_attempt_at === undefined ? null : new Date(Number(row.next_attempt_at)).toISOString(),
  };
}

const ATTEMPT_COLUMNS = `a.seq, a.id, a.delivery_id, a.webhook_id, w.account_id, c.event, a.attempt, a.status,
  a.response_code, a.response_body, a.error, a.duration_ms, a.created_at, c.body, c.signature,
  CASE WHEN a.status = 'failed' AND c.delivered = 0 AND c.next_due_at IS NOT NULL
    AND a.attempt = (SELECT MAX(n.attempt) FROM attempts n WHERE n.delivery_id = a.delivery_id) THEN c.next_due_at END AS next_attempt_at`;
const ATTEMPT_FROM = `attempts a JOIN deliveries c ON c.id = a.delivery_id JOIN webhooks w ON w.id = a.webhook_id`;

/** What the inspector's list of deliveries is filtered by (null: not filtered); `before` is a delivery's seq, for paging. */
export interface DeliveryFilter {
  before: number | null;
  webhook: string | null;
  event: string | null;
  status: AttemptStatus | null;
  /** The start of the delivery's id, or of one of its attempts' ids. */
  q: string | null;
}

/** One delivery as a list shows it. */
export interface DeliverySummary {
  seq: number;
  id: string;
  webhook_id: string;
  webhook_url: string;
  event: string;
  status: AttemptStatus;
  /** Of its newest attempt. */
  response_code: number | null;
  attempt_count: number;
  created_at: string;
  last_attempt_at: string | null;
  next_due_at: number | null;
}

export interface DeliveryCounts {
  total: number;
  delivered: number;
  pending: number;
  failed: number;
  /** Failed, with an automatic retry scheduled. */
  retry_due: number;
}

const DELIVERY_PAGE_SQL = `SELECT * FROM (
  SELECT c.rowid AS seq, c.id, c.webhook_id, w.url AS webhook_url, c.event, c.created_at, c.next_due_at,
    ${DELIVERY_STATUS_SQL} AS status,
    (SELECT COUNT(*) FROM attempts n WHERE n.delivery_id = c.id) AS attempt_count,
    l.response_code AS response_code, l.created_at AS last_attempt_at
  FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
  LEFT JOIN attempts l ON l.id = (SELECT x.id FROM attempts x WHERE x.delivery_id = c.id ORDER BY x.attempt DESC LIMIT 1)
  WHERE w.account_id = :account
    AND (:before IS NULL OR c.rowid < :before)
    AND (:webhook IS NULL OR c.webhook_id = :webhook)
    AND (:event IS NULL OR c.event = :event)
    AND (:q IS NULL OR substr(c.id, 1, length(:q)) = :q
         OR EXISTS (SELECT 1 FROM attempts s WHERE s.delivery_id = c.id AND substr(s.id, 1, length(:q)) = :q))
) WHERE (:status IS NULL OR status = :status)
ORDER BY seq DESC LIMIT :limit`;

const DELIVERY_COUNTS_SQL = `SELECT webhook_id, COUNT(*) AS total, SUM(status = 'delivered') AS delivered, SUM(status = 'pending') AS pending,
  SUM(status = 'failed') AS failed, SUM(status = 'failed' AND next_due_at IS NOT NULL) AS retry_due
  FROM (SELECT c.webhook_id, c.next_due_at, ${DELIVERY_STATUS_SQL} AS status
    FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id WHERE w.account_id = ?) GROUP BY webhook_id`;

/**
 * The sandbox's store: SQLite through node:sqlite, in memory or in
 * `<dataDir>/sandbox.db`. Every method is synchronous and each is one
 * statement or one transaction, so a stop between two calls leaves nothing
 * half-written.
 */
export class Store {
  readonly db: DatabaseSync;
  /** The database file with --data-dir; undefined in memory. */
  readonly file: string | undefined;
  private readonly statements = new Map<string, StatementSync>();
  private readonly subscribers = new Map<string, WebhookRecord[]>();
  /** Deliveries recorded, counted as they are inserted and dropped; counted afresh after a webhook's deletion takes its own away. */
  private deliveriesCounted: number | undefined;
  /** Counts the writes to webhooks, deliveries and attempts: the inspector page refreshes when it moves. */
  private changeCount = 0;

  constructor(dataDir?: string) {
    if (!dataDir) {
      this.file = undefined;
      this.db = new DatabaseSync(':memory:');
    } else {
      this.file = join(dataDir, 'sandbox.db');
      // Client secrets, signing secrets and tokens live here: the folder and its files are the user's alone.
      makeDirectory(dataDir);
      // Only its own regular files: a symlink planted in their place would have SQLite write, and the chmod below
      // narrow, the file it points to.
      const files = ['sandbox.db', 'sandbox.db-wal', 'sandbox.db-shm'].map((file) => join(dataDir, file));
      for (const file of files) checkUserFile(file, '--data-dir', 'a data dir holds only its own files: remove that one, or give another --data-dir');
      const umask = process.umask(0o077);
      try {
        this.db = new DatabaseSync(this.file);
        this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
      } finally {
        process.umask(umask);
      }
      for (const file of files) if (existsSync(file)) chmodSync(file, 0o600);
    }
    this.db.exec('PRAGMA foreign_keys = ON;');
    // A store made when a delivery was called a chain (its table chains, its attempts' chain_id): renamed, data kept, in one
    // transaction (a stop half-way leaves it as it was). A chains table beside deliveries, empty, is one an older version
    // made again on the way back: dropped.
    const hasTable = (name: string) => this.get("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", name) !== undefined;
    if (hasTable('chains')) {
      this.transaction(() => {
        if (!hasTable('deliveries')) {
          this.db.exec('DROP INDEX IF EXISTS chains_due; DROP INDEX IF EXISTS chains_by_webhook; ALTER TABLE chains RENAME TO deliveries;');
        } else if (this.get('SELECT 1 FROM chains LIMIT 1') === undefined) {
          this.db.exec('DROP TABLE chains;');
        }
        if (this.all('PRAGMA table_info(attempts)').some((column) => column.name === 'chain_id')) {
          this.db.exec('DROP INDEX IF EXISTS attempts_by_chain; ALTER TABLE attempts RENAME COLUMN chain_id TO delivery_id;');
        }
      });
    }
    this.db.exec(SCHEMA);
    // A store made before attempts could be marked queued.
    if (!this.all('PRAGMA table_info(attempts)').some((column) => column.name === 'queued')) this.db.exec('ALTER TABLE attempts ADD COLUMN queued TEXT');
    if (dataDir) {
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

  close(): void {
    if (!this.db.isOpen) return;
    if (this.file !== undefined && this.getMeta(HOLDER_KEY) === String(process.pid)) this.run('DELETE FROM meta WHERE key = ?', HOLDER_KEY);
    this.db.close();
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.statement(sql).get(...params) as Row | undefined;
  }

  private all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.statement(sql).all(...params) as Row[];
  }

  private run(sql: string, ...params: SQLInputValue[]): number {
    return Number(this.statement(sql).run(...params).changes);
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

  // --- meta -----------------------------------------------------------------

  getMeta(key: string): string | undefined {
    const row = this.get('SELECT value FROM meta WHERE key = ?', key);
    return row ? String(row.value) : undefined;
  }

  setMeta(key: string, value: string): void {
    this.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', key, value);
  }

  // --- clients and tokens ---------------------------------------------------

  listClients(): ClientRecord[] {
    return this.all('SELECT * FROM clients ORDER BY rowid').map(toClient);
  }

  insertClient(client: ClientRecord): void {
    this.run(
      'INSERT INTO clients (client_id, client_secret, account_id, scopes, label) VALUES (?, ?, ?, ?, ?)',
      client.client_id,
      client.client_secret,
      client.account_id,
      client.scopes.join(' '),
      client.label,
    );
  }

  findClient(clientId: string): ClientRecord | undefined {
    const row = this.get('SELECT * FROM clients WHERE client_id = ?', clientId);
    return row ? toClient(row) : undefined;
  }

  insertToken(token: string, clientId: string, accountId: string, scope: string, expiresAt: number): void {
    this.run('DELETE FROM tokens WHERE expires_at < ?', expiresAt - 86_400_000);
    this.run('INSERT INTO tokens (token, client_id, account_id, scope, expires_at) VALUES (?, ?, ?, ?, ?)', token, clientId, accountId, scope, expiresAt);
  }

  findToken(token: string): { client_id: string; account_id: string; scopes: string[]; expires_at: number } | undefined {
    const row = this.get('SELECT * FROM tokens WHERE token = ?', token);
    if (!row) return undefined;
    return {
      client_id: String(row.client_id),
      account_id: String(row.account_id),
      scopes: String(row.scope).split(' ').filter(Boolean),
      expires_at: Number(row.expires_at),
    };
  }

  // --- webhooks -------------------------------------------------------------

  insertWebhook(webhook: Omit<WebhookRecord, 'seq'>): WebhookRecord {
    this.changeCount += 1;
    this.subscribers.clear();
    this.run(
      `INSERT INTO webhooks (id, account_id, url, events, active, signing_secret, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      webhook.id,
      webhook.account_id,
      webhook.url,
      JSON.stringify(webhook.events),
      webhook.active ? 1 : 0,
      webhook.signing_secret,
      webhook.created_at,
      webhook.updated_at,
    );
    return this.findWebhook(webhook.account_id, webhook.id)!;
  }

  findWebhook(accountId: string, id: string): WebhookRecord | undefined {
    const row = this.get('SELECT * FROM webhooks WHERE id = ? AND account_id = ?', id, accountId);
    return row ? toWebhook(row) : undefined;
  }

  hasWebhook(id: string): boolean {
    return this.get('SELECT 1 FROM webhooks WHERE id = ?', id) !== undefined;
  }

  webhookById(id: string): WebhookRecord | undefined {
    const row = this.get('SELECT * FROM webhooks WHERE id = ?', id);
    return row ? toWebhook(row) : undefined;
  }

  listWebhooks(accountId: string, query: PageQuery & { active?: boolean | undefined }): WebhookRecord[] {
    return this.all(
      `SELECT * FROM webhooks WHERE account_id = ?4
         AND (?1 IS NULL OR seq < ?1) AND (?2 IS NULL OR active = ?2)
       ORDER BY seq DESC LIMIT ?3`,
      query.beforeSeq ?? null,
      query.active === undefined ? null : query.active ? 1 : 0,
      query.limit,
      accountId,
    ).map(toWebhook);
  }

  updateWebhook(webhook: WebhookRecord): void {
    this.changeCount += 1;
    this.subscribers.clear();
    this.run(
      'UPDATE webhooks SET url = ?, events = ?, active = ?, updated_at = ? WHERE id = ?',
      webhook.url,
      JSON.stringify(webhook.events),
      webhook.active ? 1 : 0,
      webhook.updated_at,
      webhook.id,
    );
  }

  /** Removes the webhook with its deliveries and their attempts (and so any retry still due). */
  deleteWebhook(accountId: string, id: string): boolean {
    this.changeCount += 1;
    this.subscribers.clear();
    this.deliveriesCounted = undefined;
    return this.run('DELETE FROM webhooks WHERE id = ? AND account_id = ?', id, accountId) > 0;
  }

  /**
   * The active webhooks of an account subscribed to an event: asked for every
   * event, so kept in memory until a webhook is created, changed or deleted.
   */
  subscribedActiveWebhooks(accountId: string, event: string): WebhookRecord[] {
    const key = `${accountId}\n${event}`;
    let cached = this.subscribers.get(key);
    if (!cached) {
      cached = this.querySubscribers(accountId, event);
      this.subscribers.set(key, cached);
    }
    return cached;
  }

  private querySubscribers(accountId: string, event: string): WebhookRecord[] {
    return this.all(
      `SELECT * FROM webhooks WHERE account_id = ? AND active = 1
         AND EXISTS (SELECT 1 FROM json_each(webhooks.events) WHERE value = ?)
       ORDER BY seq`,
      accountId,
      event,
    ).map(toWebhook);
  }

  // --- deliveries and their attempts ----------------------------------------------

  insertDelivery(delivery: DeliveryRecord): void {
    this.changeCount += 1;
    if (this.deliveriesCounted !== undefined) this.deliveriesCounted += 1;
    this.run(
      `INSERT INTO deliveries (id, webhook_id, event, body, signature, auto_attempts, next_due_at, delivered, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      delivery.id,
      delivery.webhook_id,
      delivery.event,
      delivery.body,
      delivery.signature,
      delivery.auto_attempts,
      delivery.next_due_at,
      delivery.delivered ? 1 : 0,
      delivery.created_at,
    );
  }

  /**
   * Keeps at most `max` deliveries: the oldest go first, with their attempts,
   * all but those in `busy` (a send under way). Returns how many went.
   */
  dropOldestDeliveries(max: number, busy: ReadonlySet<string> | ReadonlyMap<string, unknown>): number {
    this.deliveriesCounted ??= Number(this.get('SELECT COUNT(*) AS n FROM deliveries')!.n);
    const excess = this.deliveriesCounted - max;
    if (excess <= 0) return 0;
    // The oldest `excess`, passing over the busy ones. The oldest are seldom busy, so the first read asks for just
    // `excess`; each further read starts after the last row seen and asks for twice as many, so that a long run of
    // busy ones (a stalled webhook's backlog) costs a few reads, never a read per row.
    const oldest: string[] = [];
    for (let after = 0, page = excess; oldest.length < excess; page *= 2) {
      const rows = this.all('SELECT rowid AS position, id FROM deliveries WHERE rowid > ? ORDER BY rowid LIMIT ?', after, page);
      for (const row of rows) if (!busy.has(String(row.id)) && oldest.length < excess) oldest.push(String(row.id));
      if (rows.length < page) break;
      after = Number(rows.at(-1)!.position);
    }
    for (const id of oldest) this.run('DELETE FROM deliveries WHERE id = ?', id);
    if (oldest.length > 0) this.changeCount += 1;
    this.deliveriesCounted -= oldest.length;
    return oldest.length;
  }

  deliveryById(id: string): DeliveryRecord | undefined {
    const row = this.get('SELECT * FROM deliveries WHERE id = ?', id);
    return row ? toDelivery(row) : undefined;
  }

  updateDeliverySchedule(id: string, fields: { auto_attempts: number; next_due_at: number | null; delivered: boolean }): void {
    this.changeCount += 1;
    this.run(
      'UPDATE deliveries SET auto_attempts = ?, next_due_at = ?, delivered = ? WHERE id = ?',
      fields.auto_attempts,
      fields.next_due_at,
      fields.delivered ? 1 : 0,
      id,
    );
  }

  /** Deliveries whose automatic retry is due by `now`, on webhooks that are active. */
  dueDeliveries(now: number, limit: number): DeliveryRecord[] {
    return this.all(
      `SELECT c.* FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.next_due_at IS NOT NULL AND c.next_due_at <= ? AND w.active = 1
       ORDER BY c.next_due_at LIMIT ?`,
      now,
      limit,
    ).map(toDelivery);
  }

  /** The automatic attempts scheduled next (on active webhooks), soonest first, with the number each will have. */
  upcoming(limit: number): Array<{ delivery_id: string; webhook_id: string; event: string; attempt: number; due_at: number }> {
    return this.all(
      `SELECT c.id AS delivery_id, c.webhook_id, c.event, c.next_due_at AS due_at,
         (SELECT COALESCE(MAX(a.attempt), 0) + 1 FROM attempts a WHERE a.delivery_id = c.id) AS attempt
       FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.next_due_at IS NOT NULL AND w.active = 1
       ORDER BY c.next_due_at, c.id LIMIT ?`,
      limit,
    ).map((row) => ({
      delivery_id: String(row.delivery_id),
      webhook_id: String(row.webhook_id),
      event: String(row.event),
      attempt: Number(row.attempt),
      due_at: Number(row.due_at),
    }));
  }

  /** When the next automatic retry on an active webhook falls due, if any is scheduled. */
  earliestDue(): number | undefined {
    const row = this.get(
      `SELECT MIN(c.next_due_at) AS due FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.next_due_at IS NOT NULL AND w.active = 1`,
    );
    return row && row.due !== null ? Number(row.due) : undefined;
  }

  /** Records an attempt under way; its number is one more than the delivery's highest unless given. */
  insertAttempt(attempt: { id: string; delivery_id: string; webhook_id: string; created_at: string }, number?: number): { number: number; seq: number } {
    this.changeCount += 1;
    const attemptNumber =
      number ?? Number(this.get('SELECT COALESCE(MAX(attempt), 0) + 1 AS next FROM attempts WHERE delivery_id = ?', attempt.delivery_id)!.next);
    const result = this.statement(`INSERT INTO attempts (id, delivery_id, webhook_id, attempt, status, created_at) VALUES (?, ?, ?, ?, 'pending', ?)`).run(
      attempt.id,
      attempt.delivery_id,
      attempt.webhook_id,
      attemptNumber,
      attempt.created_at,
    );
    return { number: attemptNumber, seq: Number(result.lastInsertRowid) };
  }

  attemptStatus(id: string): AttemptStatus | undefined {
    const row = this.get('SELECT status FROM attempts WHERE id = ?', id);
    return row ? (String(row.status) as AttemptStatus) : undefined;
  }

  finishAttempt(
    id: string,
    outcome: { status: AttemptStatus; response_code: number | null; response_body: string | null; error: string | null; duration_ms: number },
  ): void {
    this.changeCount += 1;
    this.run(
      'UPDATE attempts SET status = ?, response_code = ?, response_body = ?, error = ?, duration_ms = ? WHERE id = ?',
      outcome.status,
      outcome.response_code,
      outcome.response_body,
      outcome.error,
      outcome.duration_ms,
      id,
    );
  }

  findAttempt(accountId: string, id: string): AttemptRecord | undefined {
    const row = this.get(`SELECT ${ATTEMPT_COLUMNS} FROM ${ATTEMPT_FROM} WHERE a.id = ? AND w.account_id = ?`, id, accountId);
    return row ? toAttempt(row) : undefined;
  }

  listAttempts(webhookId: string, query: PageQuery & { status?: AttemptStatus | undefined }): AttemptRecord[] {
    return this.all(
      `SELECT ${ATTEMPT_COLUMNS} FROM ${ATTEMPT_FROM}
       WHERE a.webhook_id = ?4 AND (?1 IS NULL OR a.seq < ?1) AND (?2 IS NULL OR a.status = ?2)
       ORDER BY a.seq DESC LIMIT ?3`,
      query.beforeSeq ?? null,
      query.status ?? null,
      query.limit,
      webhookId,
    ).map(toAttempt);
  }

  /**
   * Marks an attempt as waiting for its turn among its webhook's sends
   * (`kind`: an automatic attempt or a manual retry), or, with undefined, as
   * sent. Only attempts that had to wait are marked, so that the common case
   * writes nothing more.
   */
  markQueued(id: string, kind: 'automatic' | 'manual' | undefined): void {
    this.run('UPDATE attempts SET queued = ? WHERE id = ?', kind ?? null, id);
  }

  /**
   * Attempts left pending by a sandbox that stopped mid-send become failed,
   * and their deliveries are due again at once (unless already delivered or
   * already scheduled). Attempts that were still waiting for their turn were
   * never sent: they are taken back (an automatic one gives its try back and
   * is due again at once), not recorded as failed tries.
   */
  recoverInterrupted(now: number): number {
    this.changeCount += 1;
    return this.transaction(() => {
      const pending = this.all("SELECT id, delivery_id, queued FROM attempts WHERE status = 'pending'");
      for (const row of pending) {
        if (row.queued !== null) {
          this.run('DELETE FROM attempts WHERE id = ?', row.id as string);
          if (row.queued === 'automatic') {
            this.run(
              'UPDATE deliveries SET auto_attempts = MAX(0, auto_attempts - 1), next_due_at = COALESCE(next_due_at, ?) WHERE id = ? AND delivered = 0',
              now,
              row.delivery_id as string,
            );
          }
          continue;
        }
        this.run("UPDATE attempts SET status = 'failed', error = 'the sandbox stopped during this attempt' WHERE id = ?", row.id as string);
        this.run('UPDATE deliveries SET next_due_at = ? WHERE id = ? AND delivered = 0 AND next_due_at IS NULL', now, row.delivery_id as string);
      }
      return pending.length;
    });
  }

  // --- the inspector's views: deliveries with their status, counted and found ---------------------

  /** A page of deliveries, newest first, with each one's status (deliveryStatus), attempt count and last attempt. */
  deliveryPage(accountId: string, filter: DeliveryFilter, limit: number): DeliverySummary[] {
    const rows = this.statement(DELIVERY_PAGE_SQL).all({ account: accountId, limit, ...filter }) as Row[];
    return rows.map((row) => ({
      seq: Number(row.seq),
      id: String(row.id),
      webhook_id: String(row.webhook_id),
      webhook_url: String(row.webhook_url),
      event: String(row.event),
      status: row.status as AttemptStatus,
      response_code: row.response_code === null ? null : Number(row.response_code),
      attempt_count: Number(row.attempt_count),
      created_at: String(row.created_at),
      last_attempt_at: row.last_attempt_at === null ? null : String(row.last_attempt_at),
      next_due_at: row.next_due_at === null ? null : Number(row.next_due_at),
    }));
  }

  /** Per webhook of the account: its deliveries by status, and the failed ones with a retry due. */
  deliveryCounts(accountId: string): Map<string, DeliveryCounts> {
    return new Map(
      this.all(DELIVERY_COUNTS_SQL, accountId).map((row) => [
        String(row.webhook_id),
        {
          total: Number(row.total ?? 0),
          delivered: Number(row.delivered ?? 0),
          pending: Number(row.pending ?? 0),
          failed: Number(row.failed ?? 0),
          retry_due: Number(row.retry_due ?? 0),
        },
      ]),
    );
  }

  /** A delivery of the account by its id, or by the id of one of its attempts, with its webhook's URL and state. */
  findDelivery(accountId: string, id: string): (DeliveryRecord & { webhook_url: string; webhook_active: boolean }) | undefined {
    const owner = this.get('SELECT delivery_id FROM attempts WHERE id = ?', id);
    const deliveryId = this.get('SELECT id FROM deliveries WHERE id = ?', id) ? id : owner ? String(owner.delivery_id) : undefined;
    if (deliveryId === undefined) return undefined;
    const row = this.get(
      `SELECT c.*, w.url AS webhook_url, w.active AS webhook_active FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
        WHERE c.id = ? AND w.account_id = ?`,
      deliveryId,
      accountId,
    );
    if (!row) return undefined;
    return { ...toDelivery(row), webhook_url: String(row.webhook_url), webhook_active: Number(row.webhook_active) === 1 };
  }

  /** Every attempt of a delivery, first to last. */
  attemptsOfDelivery(deliveryId: string): AttemptRecord[] {
    return this.all(`SELECT ${ATTEMPT_COLUMNS} FROM ${ATTEMPT_FROM} WHERE a.delivery_id = ? ORDER BY a.attempt`, deliveryId).map(toAttempt);
  }
}
