import type { Database, Row } from './database.js';
import { toDelivery } from './deliveries.js';
import { DELIVERY_STATUS_SQL, type AttemptRow, type DeliveryRow, type PageQuery } from './rows.js';
import type { DeliveryStatus } from '../../protocol/status.js';

/** What the inspector's list of deliveries is filtered by (null: not filtered); `before` is a delivery's seq, for paging. */
export interface DeliveryFilter {
  before: number | null;
  webhook: string | null;
  event: string | null;
  status: DeliveryStatus | null;
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
  status: DeliveryStatus;
  /** Of its newest attempt. */
  response_code: number | null;
  attempt_count: number;
  created_at: string;
  last_attempt_at: string | null;
  /** Its newest attempt's number. */
  last_attempt: number | null;
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

/** An automatic attempt scheduled, with the number it will have. */
export interface UpcomingAttempt {
  delivery_id: string;
  webhook_id: string;
  event: string;
  attempt: number;
  due_at: number;
}

function toAttempt(row: Row): AttemptRow {
  const nullableString = (v: Row[string] | undefined) => (v === null || v === undefined ? null : String(v));
  return {
    seq: Number(row.seq),
    id: String(row.id),
    delivery_id: String(row.delivery_id),
    webhook_id: String(row.webhook_id),
    account_id: String(row.account_id),
    event: String(row.event),
    attempt: Number(row.attempt),
    status: String(row.status) as DeliveryStatus,
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

const DELIVERY_PAGE_SQL = `SELECT * FROM (
  SELECT c.rowid AS seq, c.id, c.webhook_id, w.url AS webhook_url, c.event, c.created_at, c.next_due_at,
    ${DELIVERY_STATUS_SQL} AS status,
    (SELECT COUNT(*) FROM attempts n WHERE n.delivery_id = c.id) AS attempt_count,
    l.response_code AS response_code, l.created_at AS last_attempt_at, l.attempt AS last_attempt
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
 * The delivery log as the API and the inspector read it: attempts as the
 * interface shows them, deliveries with their status, counted and found, and
 * the automatic attempts due next. It only reads.
 */
export class DeliveryLog {
  constructor(private readonly db: Database) {}

  findAttempt(accountId: string, id: string): AttemptRow | undefined {
    const row = this.db.get(`SELECT ${ATTEMPT_COLUMNS} FROM ${ATTEMPT_FROM} WHERE a.id = ? AND w.account_id = ?`, id, accountId);
    return row ? toAttempt(row) : undefined;
  }

  /** A webhook's attempts, newest first. */
  listAttempts(webhookId: string, query: PageQuery & { status?: DeliveryStatus | undefined }): AttemptRow[] {
    const rows = this.db.all(
      `SELECT ${ATTEMPT_COLUMNS} FROM ${ATTEMPT_FROM}
       WHERE a.webhook_id = ?4 AND (?1 IS NULL OR a.seq < ?1) AND (?2 IS NULL OR a.status = ?2)
       ORDER BY a.seq DESC LIMIT ?3`,
      query.beforeSeq ?? null,
      query.status ?? null,
      query.limit,
      webhookId,
    );
    return rows.map(toAttempt);
  }

  /** Every attempt of a delivery, first to last. */
  attemptsOfDelivery(deliveryId: string): AttemptRow[] {
    return this.db.all(`SELECT ${ATTEMPT_COLUMNS} FROM ${ATTEMPT_FROM} WHERE a.delivery_id = ? ORDER BY a.attempt`, deliveryId).map(toAttempt);
  }

  /** A page of deliveries, newest first, with each one's status (deliveryStatus), attempt count and last attempt. */
  deliveryPage(accountId: string, filter: DeliveryFilter, limit: number): DeliverySummary[] {
    const rows = this.db.statement(DELIVERY_PAGE_SQL).all({ account: accountId, limit, ...filter }) as Row[];
    return rows.map((row) => ({
      seq: Number(row.seq),
      id: String(row.id),
      webhook_id: String(row.webhook_id),
      webhook_url: String(row.webhook_url),
      event: String(row.event),
      status: row.status as DeliveryStatus,
      response_code: row.response_code === null ? null : Number(row.response_code),
      attempt_count: Number(row.attempt_count),
      created_at: String(row.created_at),
      last_attempt_at: row.last_attempt_at === null ? null : String(row.last_attempt_at),
      last_attempt: row.last_attempt === null ? null : Number(row.last_attempt),
      next_due_at: row.next_due_at === null ? null : Number(row.next_due_at),
    }));
  }

  /** Per webhook of the account: its deliveries by status, and the failed ones with a retry due. */
  deliveryCounts(accountId: string): Map<string, DeliveryCounts> {
    return new Map(
      this.db.all(DELIVERY_COUNTS_SQL, accountId).map((row) => [
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
  findDelivery(accountId: string, id: string): (DeliveryRow & { webhook_url: string; webhook_active: boolean }) | undefined {
    const owner = this.db.get('SELECT delivery_id FROM attempts WHERE id = ?', id);
    const deliveryId = this.db.get('SELECT id FROM deliveries WHERE id = ?', id) ? id : owner ? String(owner.delivery_id) : undefined;
    if (deliveryId === undefined) return undefined;
    const row = this.db.get(
      `SELECT c.*, w.url AS webhook_url, w.active AS webhook_active FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
        WHERE c.id = ? AND w.account_id = ?`,
      deliveryId,
      accountId,
    );
    if (!row) return undefined;
    return { ...toDelivery(row), webhook_url: String(row.webhook_url), webhook_active: Number(row.webhook_active) === 1 };
  }

  /** The automatic attempts scheduled next (on active webhooks), soonest first, with the number each will have. */
  upcoming(limit: number): UpcomingAttempt[] {
    const rows = this.db.all(
      `SELECT c.id AS delivery_id, c.webhook_id, c.event, c.next_due_at AS due_at,
         (SELECT COALESCE(MAX(a.attempt), 0) + 1 FROM attempts a WHERE a.delivery_id = c.id) AS attempt
       FROM deliveries c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.next_due_at IS NOT NULL AND w.active = 1
       ORDER BY c.next_due_at, c.id LIMIT ?`,
      limit,
    );
    return rows.map((row) => ({
      delivery_id: String(row.delivery_id),
      webhook_id: String(row.webhook_id),
      event: String(row.event),
      attempt: Number(row.attempt),
      due_at: Number(row.due_at),
    }));
  }
}
