// The shapes of the inspector's data routes, shared by the server (routes.ts)
// and the page (client/app.ts). Nothing here may name a secret: no signing
// secret, client secret or token is ever part of an inspector answer.

import type { Fate } from '../../protocol/fate.js';
import type { DeliveryStatus } from '../../protocol/status.js';

export interface InspectorWebhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  created_at: string;
  /** `retry_due`: of the failed, those whose automatic retry is scheduled. */
  deliveries: { total: number; delivered: number; failed: number; pending: number; retry_due: number };
}

export interface InspectorEventType {
  type: string;
  module: string;
  desc: string;
}

/** GET /_sandbox/inspector/api/overview */
export interface InspectorOverview {
  sandbox: {
    version: string;
    clock: 'wall' | 'manual';
    /** The sandbox's time (with --clock manual, where it stands). */
    now: string;
    signature_header: string;
    max_attempts: number;
    retry_base_ms: number;
    /** Moves whenever a webhook, delivery or attempt is written. */
    changes: number;
  };
  catalog: InspectorEventType[];
  webhooks: InspectorWebhook[];
  /** More webhooks than the overview lists (it lists the newest 200). */
  webhooks_more: boolean;
  /** The automatic attempts due next, soonest first (at most 5). */
  due: Array<{ delivery_id: string; webhook_id: string; event: string; attempt: number; due_at: string }>;
}

/** One delivery (an event sent to one webhook, by one or more attempts), as the list shows it. */
export interface InspectorDeliveryItem {
  id: string;
  webhook_id: string;
  webhook_url: string;
  event: string;
  status: DeliveryStatus;
  /** The last attempt's HTTP status, null when it had no answer (or is under way). */
  response_code: number | null;
  attempt_count: number;
  created_at: string;
  last_attempt_at: string | null;
  /** When the next automatic attempt is due, if one is. */
  next_attempt_at: string | null;
  /** What it came to, as the CLI tells it (protocol/fate.ts): delivered by which attempt, a retry due, no more retries. */
  fate: Fate | null;
}

/** GET /_sandbox/inspector/api/deliveries */
export interface InspectorDeliveryPage {
  data: InspectorDeliveryItem[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface InspectorAttempt {
  id: string;
  attempt: number;
  status: DeliveryStatus;
  response_code: number | null;
  duration_ms: number | null;
  failure_reason: string | null;
  /** What the endpoint answered, as stored (its first 1024 bytes). */
  response_body: string | null;
  created_at: string;
  /** The request headers this attempt was sent with (Content-Length and Host are added by the HTTP client). */
  headers: Record<string, string>;
}

/** GET /_sandbox/inspector/api/deliveries/{id} */
export interface InspectorDelivery extends InspectorDeliveryItem {
  webhook_active: boolean;
  signature: string;
  signature_header: string;
  /** The raw body as signed and sent. */
  body: string;
  attempts: InspectorAttempt[];
  /** A shell line that checks the signature with `whsvc verify` (the secret from ./whsec.txt, as in the quickstart). */
  verify_command: string;
}

/** What an SSE `change` event of /_sandbox/inspector/api/stream carries. */
export interface InspectorChange {
  changes: number;
  now: string;
}
