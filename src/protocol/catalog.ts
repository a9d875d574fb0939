export interface EventType {
  type: string;
  module: string;
  desc: string;
}

/** The interface's event catalog, in module order (grouped by module). */
export const EVENT_CATALOG: readonly EventType[] = [
  { type: 'product.updated', module: 'products', desc: "A product's master data changed." },
  { type: 'inventory.changed', module: 'inventory', desc: 'On-hand quantity moved at a location.' },
  { type: 'sales_order.created', module: 'sales', desc: 'A sales order was placed.' },
  { type: 'production_order.completed', module: 'manufacturing', desc: 'A production order finished.' },
  { type: 'invoice.paid', module: 'finance', desc: 'An invoice was fully settled.' },
];

export const EVENT_TYPES: readonly string[] = EVENT_CATALOG.map((e) => e.type);

export function isEventType(value: unknown): value is string {
  return typeof value === 'string' && EVENT_TYPES.includes(value);
}

let sampleCounter = 0;

/** Sample ids need only differ: a counter, offset by the start time. */
function sampleId(prefix: string): string {
  sampleCounter += 1;
  return `${prefix}_${(Date.now() % 1_000_000_000).toString(16)}${sampleCounter.toString(16).padStart(4, '0')}`;
}

/**
 * A sample payload of each event type: what the sandbox delivers when an event
 * occurs, and what `send` and `check-receiver` send. invoice.paid is exactly
 * the shape the interface gives; the others are the sandbox's own, documented
 * in docs/sandbox.md (Payloads).
 */
export function samplePayload(type: string, now: Date): Record<string, unknown> {
  switch (type) {
    case 'product.updated':
      return { id: sampleId('prod'), event: type, sku: 'SKU-1042', name: 'Steel bracket 40 mm', changed: ['price'] };
    case 'inventory.changed':
      return { id: sampleId('item'), event: type, sku: 'SKU-1042', location: 'WH-1', quantity_on_hand: 120, delta: -5 };
    case 'sales_order.created':
      return {
        id: sampleId('so'),
        event: type,
        customer_id: 'cus_1001',
        total: { amount: 12900, currency: 'EUR' },
        line_count: 3,
      };
    case 'production_order.completed':
      return {
        id: sampleId('mo'),
        event: type,
        product_id: 'prod_7a1c',
        quantity: 50,
        completed_at: now.toISOString(),
      };
    case 'invoice.paid':
      return { id: sampleId('inv'), event: type, amount: { amount: 12900, currency: 'EUR' } };
    default:
      throw new Error(`unknown event type ${type}`);
  }
}
