import type { Database, Row } from './database.js';
import type { ClientRow, TokenRow } from './rows.js';

function toClient(row: Row): ClientRow {
  return {
    client_id: String(row.client_id),
    client_secret: String(row.client_secret),
    account_id: String(row.account_id),
    scopes: String(row.scopes).split(' ').filter(Boolean),
    label: String(row.label),
  };
}

/** The API's clients and the tokens issued to them. */
export class ClientRepository {
  constructor(private readonly db: Database) {}

  list(): ClientRow[] {
    return this.db.all('SELECT * FROM clients ORDER BY rowid').map(toClient);
  }

  /** Inserts the clients in one transaction. */
  insert(clients: ClientRow[]): void {
    this.db.transaction(() => {
      for (const client of clients) {
        this.db.run(
          'INSERT INTO clients (client_id, client_secret, account_id, scopes, label) VALUES (?, ?, ?, ?, ?)',
          client.client_id,
          client.client_secret,
          client.account_id,
          client.scopes.join(' '),
          client.label,
        );
      }
    });
  }

  find(clientId: string): ClientRow | undefined {
    const row = this.db.get('SELECT * FROM clients WHERE client_id = ?', clientId);
    return row ? toClient(row) : undefined;
  }

  /** Keeps a token, and forgets those that expire more than a day before it. */
  insertToken(token: string, clientId: string, accountId: string, scope: string, expiresAt: number): void {
    this.db.run('DELETE FROM tokens WHERE expires_at < ?', expiresAt - 86_400_000);
    this.db.run('INSERT INTO tokens (token, client_id, account_id, scope, expires_at) VALUES (?, ?, ?, ?, ?)', token, clientId, accountId, scope, expiresAt);
  }

  findToken(token: string): TokenRow | undefined {
    const row = this.db.get('SELECT * FROM tokens WHERE token = ?', token);
    if (!row) return undefined;
    return {
      client_id: String(row.client_id),
      account_id: String(row.account_id),
      scopes: String(row.scope).split(' ').filter(Boolean),
      expires_at: Number(row.expires_at),
    };
  }
}
