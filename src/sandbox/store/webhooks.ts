import type { Database, Row } from './database.js';
import type { DeliveryRepository } from './deliveries.js';
import type { PageQuery, WebhookRow } from './rows.js';

function toWebhook(row: Row): WebhookRow {
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

/** The webhooks, and which of them an event goes to. */
export class WebhookRepository {
  private readonly subscribers = new Map<string, WebhookRow[]>();

  constructor(
    private readonly db: Database,
    /** A webhook deleted takes its deliveries with it (ON DELETE CASCADE). */
    private readonly deliveries: Pick<DeliveryRepository, 'webhookDeleted'>,
  ) {}

  insert(webhook: Omit<WebhookRow, 'seq'>): WebhookRow {
    this.written();
    this.db.run(
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
    return this.find(webhook.account_id, webhook.id)!;
  }

  /** The account's webhook `id`. */
  find(accountId: string, id: string): WebhookRow | undefined {
    const row = this.db.get('SELECT * FROM webhooks WHERE id = ? AND account_id = ?', id, accountId);
    return row ? toWebhook(row) : undefined;
  }

  /** The webhook `id`, whatever its account. */
  byId(id: string): WebhookRow | undefined {
    const row = this.db.get('SELECT * FROM webhooks WHERE id = ?', id);
    return row ? toWebhook(row) : undefined;
  }

  exists(id: string): boolean {
    return this.db.get('SELECT 1 FROM webhooks WHERE id = ?', id) !== undefined;
  }

  list(accountId: string, query: PageQuery & { active?: boolean | undefined }): WebhookRow[] {
    const rows = this.db.all(
      `SELECT * FROM webhooks WHERE account_id = ?4
         AND (?1 IS NULL OR seq < ?1) AND (?2 IS NULL OR active = ?2)
       ORDER BY seq DESC LIMIT ?3`,
      query.beforeSeq ?? null,
      query.active === undefined ? null : query.active ? 1 : 0,
      query.limit,
      accountId,
    );
    return rows.map(toWebhook);
  }

  update(webhook: WebhookRow): void {
    this.written();
    this.db.run(
      'UPDATE webhooks SET url = ?, events = ?, active = ?, updated_at = ? WHERE id = ?',
      webhook.url,
      JSON.stringify(webhook.events),
      webhook.active ? 1 : 0,
      webhook.updated_at,
      webhook.id,
    );
  }

  /** Removes the webhook with its deliveries and their attempts (and so any retry still due). */
  delete(accountId: string, id: string): boolean {
    this.written();
    this.deliveries.webhookDeleted();
    return Number(this.db.run('DELETE FROM webhooks WHERE id = ? AND account_id = ?', id, accountId).changes) > 0;
  }

  /**
   * The active webhooks of an account subscribed to an event: asked for every
   * event, so kept in memory until a webhook is created, changed or deleted.
   */
  subscribedActive(accountId: string, event: string): WebhookRow[] {
    const key = `${accountId}\n${event}`;
    let cached = this.subscribers.get(key);
    if (!cached) {
      cached = this.querySubscribers(accountId, event);
      this.subscribers.set(key, cached);
    }
    return cached;
  }

  private querySubscribers(accountId: string, event: string): WebhookRow[] {
    const rows = this.db.all(
      `SELECT * FROM webhooks WHERE account_id = ? AND active = 1
         AND EXISTS (SELECT 1 FROM json_each(webhooks.events) WHERE value = ?)
       ORDER BY seq`,
      accountId,
      event,
    );
    return rows.map(toWebhook);
  }

  /** A webhook written: the inspector's count moves, and who subscribes to what is asked afresh. */
  private written(): void {
    this.db.changed();
    this.subscribers.clear();
  }
}
