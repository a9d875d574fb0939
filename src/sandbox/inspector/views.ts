import { DEMO_ACCOUNT } from '../auth.js';
import { EVENT_CATALOG } from '../../protocol/catalog.js';
import { isManual, type Clock } from '../clock.js';
import type { Cursors } from '../cursor.js';
import type { DeliveryPolicy } from '../deliverer.js';
import { notFound } from '../http.js';
import type { Database } from '../store/database.js';
import type { DeliveryLog, DeliverySummary } from '../store/delivery-log.js';
import { deliveryStatus } from '../store/rows.js';
import type { WebhookRepository } from '../store/webhooks.js';
import { parseLimit, parseStatusFilter, validateEventType } from '../validation.js';
import { deliveryHeaders, signatureHeaderName } from '../../protocol/headers.js';
import { shellQuote } from '../../render/text.js';
import { deliveryFate, type Fate } from '../../protocol/fate.js';
import type { DeliveryStatus } from '../../protocol/status.js';
import type { InspectorAttempt, InspectorDelivery, InspectorDeliveryItem, InspectorDeliveryPage, InspectorOverview } from './types.js';
import { idParameter } from './query.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * What the inspector's data routes answer, read from the store: the overview,
 * a page of deliveries, one delivery with its attempts. Each view names its
 * fields one by one, so that no answer ever holds a secret.
 */
export class InspectorViews {
  readonly signatureHeader: string;

  constructor(
    private readonly deps: {
      database: Pick<Database, 'changes'>;
      webhooks: WebhookRepository;
      log: DeliveryLog;
      clock: Clock;
      cursors: Cursors;
      policy: DeliveryPolicy;
    },
  ) {
    this.signatureHeader = signatureHeaderName(deps.policy.platformName);
  }

  overview(): InspectorOverview {
    const { database, webhooks, log, clock, policy } = this.deps;
    const counts = log.deliveryCounts(DEMO_ACCOUNT);
    const rows = webhooks.list(DEMO_ACCOUNT, { limit: 201 });
    const none = { total: 0, delivered: 0, pending: 0, failed: 0, retry_due: 0 };
    return {
      sandbox: {
        version: WHSVC_VERSION,
        clock: isManual(clock) ? 'manual' : 'wall',
        now: new Date(clock.now()).toISOString(),
        signature_header: this.signatureHeader,
        max_attempts: policy.maxAttempts,
        retry_base_ms: policy.retryBaseMs,
        changes: database.changes,
      },
      catalog: EVENT_CATALOG.map(({ type, module, desc }) => ({ type, module, desc })),
      webhooks: rows.slice(0, 200).map((w) => ({
        id: w.id,
        url: w.url,
        events: w.events,
        active: w.active,
        created_at: w.created_at,
        deliveries: { ...(counts.get(w.id) ?? none) },
      })),
      webhooks_more: rows.length > 200,
      due: log.upcoming(5).map((due) => ({
        delivery_id: due.delivery_id,
        webhook_id: due.webhook_id,
        event: due.event,
        attempt: due.attempt,
        due_at: new Date(due.due_at).toISOString(),
      })),
    };
  }

  /** A page of deliveries, newest first, filtered by the query's webhook, event, status and id start (q). */
  deliveries(query: URLSearchParams): InspectorDeliveryPage {
    const { webhooks, log, cursors } = this.deps;
    const limit = parseLimit(query.get('limit'));
    const webhook = query.get('webhook') || null;
    if (webhook !== null && !webhooks.find(DEMO_ACCOUNT, idParameter('webhook', webhook))) throw notFound('webhook', webhook);
    const event = query.get('event') || null;
    if (event !== null) validateEventType('event', event);
    const status = parseStatusFilter(query.get('status') || null) ?? null;
    const q = query.get('q')?.trim() || null;
    if (q !== null) idParameter('q', q);
    const list = 'inspector:deliveries';
    const cursor = query.get('cursor');
    const before = cursor === null || cursor === '' ? null : cursors.decode(list, cursor);
    const rows = log.deliveryPage(DEMO_ACCOUNT, { before, webhook, event, status, q }, limit + 1);
    return cursors.page(rows, limit, list, deliveryItem);
  }

  /** A delivery by its id, or by the id of one of its attempts, with every attempt and the headers it was sent with. */
  delivery(id: string): InspectorDelivery {
    const { log, policy } = this.deps;
    const delivery = log.findDelivery(DEMO_ACCOUNT, idParameter('id', id));
    if (!delivery) throw notFound('delivery', id);
    const rows = log.attemptsOfDelivery(delivery.id);
    const attempts: InspectorAttempt[] = rows.map((a) => ({
      id: a.id,
      attempt: a.attempt,
      status: a.status,
      response_code: a.response_code,
      duration_ms: a.duration_ms,
      failure_reason: a.error,
      response_body: a.response_body,
      created_at: a.created_at,
      headers: deliveryHeaders(policy.platformName, policy.userAgent, {
        signature: delivery.signature,
        event: delivery.event,
        deliveryId: delivery.id,
        attempt: a.attempt,
        attemptId: a.id,
        sentAt: a.created_at,
      }),
    }));
    const last = attempts[attempts.length - 1];
    const status: DeliveryStatus = deliveryStatus(delivery.delivered, last?.status);
    return {
      id: delivery.id,
      webhook_id: delivery.webhook_id,
      webhook_url: delivery.webhook_url,
      event: delivery.event,
      status,
      response_code: last?.response_code ?? null,
      attempt_count: attempts.length,
      created_at: delivery.created_at,
      last_attempt_at: last?.created_at ?? null,
      next_attempt_at: status === 'failed' ? iso(delivery.next_due_at) : null,
      fate: deliveryFate([...rows].reverse(), true) ?? null,
      webhook_active: delivery.webhook_active,
      signature: delivery.signature,
      signature_header: this.signatureHeader,
      body: delivery.body,
      attempts,
      verify_command: `printf '%s' ${shellQuote(delivery.body)} | whsvc verify --signature ${delivery.signature} --secret-file ./whsec.txt`,
    };
  }
}

function deliveryItem(row: DeliverySummary): InspectorDeliveryItem {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    webhook_url: row.webhook_url,
    event: row.event,
    status: row.status,
    response_code: row.response_code,
    attempt_count: row.attempt_count,
    created_at: row.created_at,
    last_attempt_at: row.last_attempt_at,
    next_attempt_at: row.status === 'failed' ? iso(row.next_due_at) : null,
    fate: fateOfSummary(row),
  };
}

/** A delivery's fate from its summary: its status is its newest attempt's, unless delivered (then by its newest, the last sent). */
function fateOfSummary(row: DeliverySummary): Fate | null {
  const newest = {
    status: row.status,
    attempt: row.last_attempt ?? undefined,
    created_at: row.last_attempt_at ?? row.created_at,
    next_attempt_at: row.status === 'failed' ? iso(row.next_due_at) : null,
  };
  return deliveryFate([newest], true) ?? null;
}
