import { connect } from 'node:net';

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** One request with the global fetch; the JSON body (if any) is parsed. */
export async function http(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export async function getToken(baseUrl: string, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const result = await http(baseUrl, 'POST', '/v1/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...(scope ? { scope } : {}) },
  });
  if (result.status !== 200) throw new Error(`token request failed: ${result.status} ${result.text}`);
  return result.json.access_token as string;
}

/** A webhook as the API answers its creation: its signing secret with it. */
export interface PostedWebhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  signing_secret: string;
  created_at: string;
}

/** POST /v1/webhooks with `token`: a webhook to `url` for `events` (and any other `fields`), expected 201. */
export async function postWebhook(
  baseUrl: string,
  token: string,
  url: string,
  events = ['invoice.paid'],
  fields: Record<string, unknown> = {},
): Promise<PostedWebhook> {
  const result = await http(baseUrl, 'POST', '/v1/webhooks', { token, body: { url, events, ...fields } });
  if (result.status !== 201) throw new Error(`webhook creation failed: ${result.status} ${result.text}`);
  return result.json as PostedWebhook;
}

/** POST /_sandbox/events: one event of `type`, its payload merged with `data`, expected 202; the ids of the deliveries it made. */
export async function postEvent(baseUrl: string, type = 'invoice.paid', data?: Record<string, unknown>): Promise<string[]> {
  const result = await http(baseUrl, 'POST', '/_sandbox/events', { body: { type, ...(data ? { data } : {}) } });
  if (result.status !== 202) throw new Error(`trigger failed: ${result.status} ${result.text}`);
  return result.json.deliveries as string[];
}

/**
 * Resolves once a connection to `url`'s port is refused: the server there has stopped taking requests. Nothing says
 * so but the port itself, so it is tried again and again (a connection that is taken is closed at once, unused).
 */
export async function untilRefused(url: string, timeoutMs = 20_000): Promise<void> {
  const { hostname, port } = new URL(url);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    });
    if (refused) return;
    if (Date.now() > deadline) throw new Error(`${url} still takes connections after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
