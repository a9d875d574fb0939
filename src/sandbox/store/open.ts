import { ClientRepository } from './clients.js';
import { Database } from './database.js';
import { DeliveryRepository } from './deliveries.js';
import { DeliveryLog } from './delivery-log.js';
import { WebhookRepository } from './webhooks.js';

/** The sandbox's database, in memory or in `dataDir`, and one repository per kind of row on it. */
export function openStore(dataDir?: string) {
  const database = new Database(dataDir);
  const deliveries = new DeliveryRepository(database);
  return {
    database,
    clients: new ClientRepository(database),
    webhooks: new WebhookRepository(database, deliveries),
    deliveries,
    log: new DeliveryLog(database),
  };
}

export type Store = ReturnType<typeof openStore>;
