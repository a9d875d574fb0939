// The sandbox's rows as its repositories read and write them (the database's, not a record file's lines), and the one rule of a delivery's status.

import type { DeliveryStatus } from '../../protocol/status.js';

export interface ClientRow {
  client_id: string;
  client_secret: string;
  account_id: string;
  scopes: string[];
  label: string;
}

/** A token the sandbox issued: whose, for what, until when. */
export interface TokenRow {
  client_id: string;
  account_id: string;
  scopes: string[];
  expires_at: number;
}

export interface WebhookRow {
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
export interface DeliveryRow {
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

/**
 * A delivery's status, the one rule of the whole tool: delivered once any of
 * its attempts got through; otherwise its newest attempt's status (failed, or
 * pending while it is under way), pending before its first. A failed delivery
 * may have an automatic retry due: that is said beside the status
 * (`next_attempt_at`), never as another status.
 */
export function deliveryStatus(delivered: boolean, newest: DeliveryStatus | undefined): DeliveryStatus {
  if (delivered) return 'delivered';
  return newest === 'failed' ? 'failed' : 'pending';
}

/** deliveryStatus in SQL, for the delivery `c`. */
export const DELIVERY_STATUS_SQL = `CASE WHEN c.delivered = 1 THEN 'delivered'
  WHEN (SELECT x.status FROM attempts x WHERE x.delivery_id = c.id ORDER BY x.attempt DESC LIMIT 1) = 'failed' THEN 'failed'
  ELSE 'pending' END`;

export interface AttemptRow {
  seq: number;
  id: string;
  delivery_id: string;
  webhook_id: string;
  account_id: string;
  event: string;
  attempt: number;
  status: DeliveryStatus;
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

/** A page of a list, newest first: `beforeSeq` is the last seq of the page before. */
export interface PageQuery {
  beforeSeq?: number | undefined;
  limit: number;
}
