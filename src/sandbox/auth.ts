import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorAnswer, readBody, sendJson } from './http.js';
import { newSecret } from './ids.js';
import { sameSecret } from '../protocol/signature.js';
import type { ClientRepository } from './store/clients.js';
import type { ClientRow } from './store/rows.js';

export const DEMO_ACCOUNT = 'acct_demo';

export interface Principal {
  client_id: string;
  account_id: string;
  scopes: string[];
}

/** Seeds the demo account's two clients on first start; later starts (with --data-dir) keep them. */
export function seedClients(repository: ClientRepository): ClientRow[] {
  const existing = repository.list();
  if (existing.length > 0) return existing;
  const clients: ClientRow[] = [
    {
      client_id: 'sbx_demo_readwrite',
      client_secret: newSecret('sbx_secret_'),
      account_id: DEMO_ACCOUNT,
      scopes: ['webhooks:read', 'webhooks:write'],
      label: 'read-write',
    },
    {
      client_id: 'sbx_demo_readonly',
      client_secret: newSecret('sbx_secret_'),
      account_id: DEMO_ACCOUNT,
      scopes: ['webhooks:read'],
      label: 'read-only',
    },
  ];
  repository.insert(clients);
  return clients;
}

/** An RFC 6749 section 5.2 error: `{ error, error_description }`. */
class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function parseTokenRequest(req: IncomingMessage, raw: string): Record<string, unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(raw));
  }
  if (type === 'application/json' || type === '') {
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // answered below
    }
    throw new OAuthError(400, 'invalid_request', 'the body must be a JSON object or application/x-www-form-urlencoded');
  }
  throw new OAuthError(400, 'invalid_request', `unsupported content type ${type}; use application/json or application/x-www-form-urlencoded`);
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError(401, 'invalid_client', 'malformed Basic credentials', { 'www-authenticate': 'Basic realm="whsvc-sandbox"' });
  try {
    // RFC 6749 2.3.1: both parts are form-urlencoded before being joined.
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError(401, 'invalid_client', 'malformed Basic credentials', { 'www-authenticate': 'Basic realm="whsvc-sandbox"' });
  }
}

/** POST /v1/oauth/token: the client credentials grant (RFC 6749 section 4.4). */
export async function handleTokenRequest(
  req: IncomingMessage,
  res: ServerResponse,
  clients: ClientRepository,
  tokenTtlSeconds: number,
  now: number,
): Promise<void> {
  const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
  try {
    let raw: string;
    try {
      raw = await readBody(req);
    } catch (error) {
      if (error instanceof ErrorAnswer) throw new OAuthError(error.status, 'invalid_request', error.message);
      throw error;
    }
    const params = parseTokenRequest(req, raw);
    const basic = basicCredentials(req.headers.authorization);
    const field = (name: string): string | undefined => {
      const value = params[name];
      if (value === undefined) return undefined;
      if (typeof value !== 'string') throw new OAuthError(400, 'invalid_request', `${name} must be a string`);
      return value;
    };
    const grantType = field('grant_type');
    const bodyId = field('client_id');
    const bodySecret = field('client_secret');
    const scopeText = field('scope');
    if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials') {
      throw new OAuthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported; use client_credentials`);
    }
    if (basic && bodySecret !== undefined) {
      throw new OAuthError(400, 'invalid_request', 'use one client authentication method: HTTP Basic or client_secret in the body, not both');
    }
    const clientId = basic?.id ?? bodyId;
    const clientSecret = basic?.secret ?? bodySecret;
    const challenge: Record<string, string> = basic ? { 'www-authenticate': 'Basic realm="whsvc-sandbox"' } : {};
    if (!clientId || clientSecret === undefined) {
      throw new OAuthError(401, 'invalid_client', 'client_id and client_secret are required', challenge);
    }
    const client = clients.find(clientId);
    if (!client || !sameSecret(client.client_secret, clientSecret)) {
      throw new OAuthError(401, 'invalid_client', 'unknown client or wrong client secret', challenge);
    }
    const requested = scopeText?.trim() ? scopeText.trim().split(/\s+/) : client.scopes;
    const refused = requested.filter((s) => !client.scopes.includes(s));
    if (refused.length > 0) {
      throw new OAuthError(400, 'invalid_scope', `this client may not have the scope ${refused.join(' ')}; it has ${client.scopes.join(' ')}`);
    }
    const scope = [...new Set(requested)].join(' ');
    const token = newSecret('sbx_at_', 32);
    clients.insertToken(token, client.client_id, client.account_id, scope, now + tokenTtlSeconds * 1000);
    sendJson(res, 200, { access_token: token, token_type: 'Bearer', expires_in: tokenTtlSeconds, scope }, noStore);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    sendJson(res, error.status, { error: error.code, error_description: error.message }, { ...noStore, ...error.headers });
  }
}

/** Checks the Bearer token and the scope an endpoint needs; throws the 401 or 403 to answer. */
export function authenticate(req: IncomingMessage, clients: ClientRepository, requiredScope: string, now: number): Principal {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) {
    throw new ErrorAnswer(401, 'unauthorized', 'missing access token: send Authorization: Bearer <token>', {
      'www-authenticate': 'Bearer realm="whsvc-sandbox"',
    });
  }
  const token = clients.findToken(match[1]!);
  if (!token || token.expires_at <= now) {
    throw new ErrorAnswer(401, 'invalid_token', token ? 'the access token has expired' : 'the access token is not valid', {
      'www-authenticate': `Bearer realm="whsvc-sandbox", error="invalid_token"`,
    });
  }
  if (!token.scopes.includes(requiredScope)) {
    throw new ErrorAnswer(
      403,
      'insufficient_scope',
      `this endpoint requires the ${requiredScope} scope`,
      { 'www-authenticate': `Bearer realm="whsvc-sandbox", error="insufficient_scope", scope="${requiredScope}"` },
      { required_scope: requiredScope },
    );
  }
  return { client_id: token.client_id, account_id: token.account_id, scopes: token.scopes };
}
