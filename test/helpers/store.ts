import { ClientRepository } from '../../src/sandbox/store/clients.js';
import { Database } from '../../src/sandbox/store/database.js';
import { DeliveryRepository } from '../../src/sandbox/store/deliveries.js';
import { DeliveryLog } from '../../src/sandbox/store/delivery-log.js';
import { WebhookRepository } from '../../src/sandbox/store/webhooks.js';

/** The sandbox's database and its repositories, built as server.ts builds them: in memory, or in `dataDir`. */
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
