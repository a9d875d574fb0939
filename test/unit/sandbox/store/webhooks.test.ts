import { describe, expect, it } from 'vitest';
import type { WebhookRow } from '../../../../src/sandbox/store/rows.js';
import { openStore, type Store } from '../../../helpers/store.js';

function webhook(store: Store, id: string, events: string[], active = true): WebhookRow {
  const now = new Date(0).toISOString();
  return store.webhooks.insert({ id, account_id: 'acct', url: 'https://example.com/h', events, active, signing_secret: 's', created_at: now, updated_at: now });
}

describe('WebhookRepository: the subscribers of an event, kept in memory', () => {
  it('follows every create, change and delete of a webhook', () => {
    const store = openStore();
    const { webhooks } = store;
    const ids = () => webhooks.subscribedActive('acct', 'invoice.paid').map((w) => w.id);
    expect(ids()).toEqual([]);
    const first = webhook(store, 'wh_1', ['invoice.paid']);
    expect(ids()).toEqual(['wh_1']);
    webhook(store, 'wh_2', ['product.updated']);
    webhook(store, 'wh_3', ['invoice.paid', 'product.updated'], false);
    expect(ids()).toEqual(['wh_1']);
    webhooks.update({ ...first, active: false });
    expect(ids()).toEqual([]);
    webhooks.update({ ...first, active: true, events: ['product.updated'] });
    expect(ids()).toEqual([]);
    expect(webhooks.subscribedActive('acct', 'product.updated').map((w) => w.id)).toEqual(['wh_1', 'wh_2']);
    const third = webhooks.find('acct', 'wh_3')!;
    webhooks.update({ ...third, active: true });
    expect(ids()).toEqual(['wh_3']);
    webhooks.delete('acct', 'wh_3');
    expect(ids()).toEqual([]);
    expect(webhooks.subscribedActive('other', 'product.updated')).toEqual([]);
    store.database.close();
  });

  it('moves the count of changes the inspector follows at each write, and not at a read', () => {
    const store = openStore();
    const before = store.database.changes;
    const first = webhook(store, 'wh_1', ['invoice.paid']);
    store.webhooks.update({ ...first, active: false });
    store.webhooks.list('acct', { limit: 10 });
    store.webhooks.delete('acct', 'wh_1');
    expect(store.database.changes - before).toBe(3);
    store.database.close();
  });
});
