import { describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../helpers/store.js';

function webhookWithDeliveries(store: Store, webhookId: string, deliveryIds: string[]): void {
  const now = new Date(0).toISOString();
  store.webhooks.insert({
    id: webhookId,
    account_id: 'acct',
    url: 'https://example.com/h',
    events: ['invoice.paid'],
    active: true,
    signing_secret: 's',
    created_at: now,
    updated_at: now,
  });
  for (const id of deliveryIds) {
    store.deliveries.insert({
      id,
      webhook_id: webhookId,
      event: 'invoice.paid',
      body: '{}',
      signature: 's',
      auto_attempts: 1,
      next_due_at: null,
      delivered: true,
      created_at: now,
    });
  }
}

describe('DeliveryRepository: keeping the newest deliveries', () => {
  it('drops the oldest past the cap, passing over busy ones however many, and keeps the newest', () => {
    const store = openStore();
    const ids = Array.from({ length: 8 }, (_, i) => `dlv_${i}`);
    webhookWithDeliveries(store, 'wh_1', ids);
    const kept = () => ids.filter((id) => store.deliveries.byId(id) !== undefined);
    expect(store.deliveries.dropOldest(3, new Set(['dlv_0', 'dlv_1', 'dlv_3']))).toBe(5);
    expect(kept()).toEqual(['dlv_0', 'dlv_1', 'dlv_3']);
    // Everything left busy: nothing can go, and the store says so.
    expect(store.deliveries.dropOldest(1, new Set(ids))).toBe(0);
    expect(store.deliveries.dropOldest(1, new Set(['dlv_3']))).toBe(2);
    expect(kept()).toEqual(['dlv_3']);
    store.database.close();
  });

  it('counts afresh once a deleted webhook took its deliveries away', () => {
    const store = openStore();
    webhookWithDeliveries(store, 'wh_1', ['dlv_1', 'dlv_2', 'dlv_3']);
    webhookWithDeliveries(store, 'wh_2', ['dlv_4', 'dlv_5']);
    expect(store.deliveries.dropOldest(5, new Set())).toBe(0);
    store.webhooks.delete('acct', 'wh_1');
    // Two left: one over a cap of one, the older.
    expect(store.deliveries.dropOldest(1, new Set())).toBe(1);
    expect(store.deliveries.byId('dlv_5')).toBeDefined();
    store.database.close();
  });
});
