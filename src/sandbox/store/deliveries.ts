import type { Database, Row } from './database.js';
import type { DeliveryRow } from './rows.js';
import type { DeliveryStatus } from '../../protocol/status.js';

export function toDelivery(row: Row): DeliveryRow {
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

/** What the deliverer writes and schedules: deliveries, their attempts, their automatic retries. */
export class DeliveryRepository {
  /** Deliveries recorded, counted as they are inserted and dropped; counted afresh after a webhook's deletion takes its own away. */
  private deliveriesCounted: number | undefined;

  constructor(private readonly db: Database) {}

  insert(delivery: DeliveryRow): void {
    this.db.changed();
    if (this.deliveriesCounted !== undefined) this.deliveriesCounted += 1;
    this.db.run(
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

  /** A webhook was deleted, and its deliveries with it. */
  webhookDeleted(): void {
    this.deliveriesCounted = undefined;
  }

  /**
   * Keeps at most `max` deliveries: the oldest go first, with their attempts,
   * all but those in `busy` (a send under way). Returns how many went.
   */
  dropOldest(max: number, busy: ReadonlySet<string> | ReadonlyMap<string, unknown>): number {
    this.deliveriesCounted ??= Number(this.db.get('SELECT COUNT(*) AS n FROM deliveries')!.n);
    const excess = this.deliveriesCounted - max;
    if (excess <= 0) return 0;
    // The oldest `excess`, passing over the busy ones. The oldest are seldom busy, so the first read asks for just
    // `excess`; each further read starts after the last row seen and asks for twice as many, so that a long run of
    // busy ones (a stalled webhook's backlog) costs a few reads, never a read per row.
    const oldest: string[] = [];
    for (let after = 0, page = excess; oldest.length < excess; page *= 2) {
      const rows = this.db.all('SELECT rowid AS position, id FROM deliveries WHERE rowid > ? ORDER BY rowid LIMIT ?', after, page);
      for (const row of rows) if (!busy.has(String(row.id)) && oldest.length < excess) oldest.push(String(row.id));
      if (rows.length < page) break;
      after = Number(rows.at(-1)!.position);
    }
    for (const id of oldest) this.db.run('DELETE FROM deliveries WHERE id = ?', id);
    if (oldest.length > 0) this.db.changed();
    this.deliveriesCounted -= oldest.length;
    return oldest.length;
  }

  byId(id: string): DeliveryRow | undefined {
    const row = this.db.get('SELECT * FROM deliveries WHERE id = ?', id);
    return row ? toDelivery(row) : undefined;
  }

  updateSchedule(id: string, fields: { auto_attempts: number; next_due_at: number | null; delivered: boolean }): void {
    this.db.changed();
    this.db.run(
      'UPDATE deliveries SET auto_attempts = ?, next_due_at = ?, delivered = ? WHERE id = ?',
      fields.auto_attempts,
      fields.next_due_at,
      fields.delivered ? 1 : 0,
      id,
    );
  }

  /** Deliveries whose automatic retry is due by `now`, on webhooks that are active. */
  due(now: number, limit: number): DeliveryRow[] {
    const rows = this.db.all(
      `SELECT c.* FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.next_due_at IS NOT NULL AND c.next_due_at <= ? AND w.active = 1
       ORDER BY c.next_due_at LIMIT ?`,
      now,
      limit,
    );
    return rows.map(toDelivery);
  }

  /** How many deliveries have an automatic retry due by `until`, on webhooks that are active. */
  countDue(until: number): number {
    const row = this.db.get(
      `SELECT COUNT(*) AS due FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.next_due_at IS NOT NULL AND c.next_due_at <= ? AND w.active = 1`,
      until,
    );
    return Number(row?.due ?? 0);
  }

  /** When the next automatic retry on an active webhook falls due, if any is scheduled. */
  earliestDue(): number | undefined {
    const row = this.db.get(
      `SELECT MIN(c.next_due_at) AS due FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.next_due_at IS NOT NULL AND w.active = 1`,
    );
    return row && row.due !== null ? Number(row.due) : undefined;
  }

  /** Records an attempt under way; its number is one more than the delivery's highest unless given. */
  insertAttempt(attempt: { id: string; delivery_id: string; webhook_id: string; created_at: string }, number?: number): { number: number; seq: number } {
    this.db.changed();
    const attemptNumber =
      number ?? Number(this.db.get('SELECT COALESCE(MAX(attempt), 0) + 1 AS next FROM attempts WHERE delivery_id = ?', attempt.delivery_id)!.next);
    const result = this.db.run(
      `INSERT INTO attempts (id, delivery_id, webhook_id, attempt, status, created_at) VALUES (?, ?, ?, ?, 'pending', ?)`,
      attempt.id,
      attempt.delivery_id,
      attempt.webhook_id,
      attemptNumber,
      attempt.created_at,
    );
    return { number: attemptNumber, seq: Number(result.lastInsertRowid) };
  }

  attemptStatus(id: string): DeliveryStatus | undefined {
    const row = this.db.get('SELECT status FROM attempts WHERE id = ?', id);
    return row ? (String(row.status) as DeliveryStatus) : undefined;
  }

  finishAttempt(
    id: string,
    outcome: { status: DeliveryStatus; response_code: number | null; response_body: string | null; error: string | null; duration_ms: number },
  ): void {
    this.db.changed();
    this.db.run(
      'UPDATE attempts SET status = ?, response_code = ?, response_body = ?, error = ?, duration_ms = ? WHERE id = ?',
      outcome.status,
      outcome.response_code,
      outcome.response_body,
      outcome.error,
      outcome.duration_ms,
      id,
    );
  }

  /**
   * Marks an attempt as waiting for its turn among its webhook's sends
   * (`kind`: an automatic attempt or a manual retry), or, with undefined, as
   * sent. Only attempts that had to wait are marked, so that the common case
   * writes nothing more.
   */
  markQueued(id: string, kind: 'automatic' | 'manual' | undefined): void {
    this.db.run('UPDATE attempts SET queued = ? WHERE id = ?', kind ?? null, id);
  }

  /**
   * Attempts left pending by a sandbox that stopped mid-send become failed,
   * and their deliveries are due again at once (unless already delivered or
   * already scheduled). Attempts that were still waiting for their turn were
   * never sent: they are taken back (an automatic one gives its try back and
   * is due again at once), not recorded as failed tries.
   */
  recoverInterrupted(now: number): number {
    const { db } = this;
    db.changed();
    return db.transaction(() => {
      const pending = db.all("SELECT id, delivery_id, queued FROM attempts WHERE status = 'pending'");
      for (const row of pending) {
        if (row.queued !== null) {
          db.run('DELETE FROM attempts WHERE id = ?', row.id as string);
          if (row.queued === 'automatic') {
            db.run(
              'UPDATE deliveries SET auto_attempts = MAX(0, auto_attempts - 1), next_due_at = COALESCE(next_due_at, ?) WHERE id = ? AND delivered = 0',
              now,
              row.delivery_id as string,
            );
          }
          continue;
        }
        db.run("UPDATE attempts SET status = 'failed', error = 'the sandbox stopped during this attempt' WHERE id = ?", row.id as string);
        db.run('UPDATE deliveries SET next_due_at = ? WHERE id = ? AND delivered = 0 AND next_due_at IS NULL', now, row.delivery_id as string);
      }
      return pending.length;
    });
  }
}
