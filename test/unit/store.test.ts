import { describe, expect, it } from 'vitest';
import { Store, type WebhookRecord } from '../../src/sandbox/store.js';

function webhook(store: Store, id: string, events: string[], active = true): WebhookRecord {
  const now = new Date(0).toISOString();
  return store.insertWebhook({ id, account_id: 'acct', url: 'https://example.com/h', events, active, signing_secret: 's', created_at: now, updated_at: now });
}

describe('Store: the subscribers of an event, kept in memory', () => {
  it('follows every create, change and delete of a webhook', () => {
    const store = new Store();
    const ids = () => store.subscribedActiveWebhooks('acct', 'invoice.paid').map((w) => w.id);
    expect(ids()).toEqual([]);
    const first = webhook(store, 'wh_1', ['invoice.paid']);
    expect(ids()).toEqual(['wh_1']);
    webhook(store, 'wh_2', ['product.updated']);
    webhook(store, 'wh_3', ['invoice.paid', 'product.updated'], false);
    expect(ids()).toEqual(['wh_1']);
    store.updateWebhook({ ...first, active: false });
    expect(ids()).toEqual([]);
    store.updateWebhook({ ...first, active: true, events: ['product.updated'] });
    expect(ids()).toEqual([]);
    expect(store.subscribedActiveWebhooks('acct', 'product.updated').map((w) => w.id)).toEqual(['wh_1', 'wh_2']);
    const third = store.findWebhook('acct', 'wh_3')!;
    store.updateWebhook({ ...third, active: true });
    expect(ids()).toEqual(['wh_3']);
    store.deleteWebhook('acct', 'wh_3');
    expect(ids()).toEqual([]);
    expect(store.subscribedActiveWebhooks('other', 'product.updated')).toEqual([]);
    store.close();
  });
});
