import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/server.js';
import type { Env } from './cli.js';
import { getToken, http } from './http.js';

// A create whose answer never reaches whsvc: the sandbox in the test's process, behind a service of the test's own that
// passes every request on and, for a create, answers as the test says once the sandbox has acted on it (an error, a
// reset, nothing, half an answer). whsvc runs in-process (test/integration/lost-answers.test.ts) or as processes
// killed or run side by side (test/e2e/lost-answers.test.ts).

/** How the front answers a create the sandbox has made. */
export type CreateAnswer = 'pass' | 'error-500' | 'error-503' | 'reset' | 'hold' | 'half';

export interface Front {
  url: string;
  /** `acted`: a create was made and will not be answered whole (hold, half). `answered`: a whole answer was sent. */
  events: EventEmitter;
  /** How the nth create from now on (counted from 1) is answered. */
  answerCreates(how: (n: number) => CreateAnswer): void;
  /** Holds the answers to the event catalog until `n` requests for it have come, then gives them all at once. */
  gatherCatalogRequests(n: number): void;
  close(): Promise<void>;
}

const FORWARDED = ['authorization', 'content-type', 'accept', 'user-agent'];
const forwardedHeaders = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(FORWARDED.filter((name) => typeof headers[name] === 'string').map((name) => [name, headers[name] as string]));

async function startFront(target: string): Promise<Front> {
  const events = new EventEmitter();
  let how: (n: number) => CreateAnswer = () => 'pass';
  let creates = 0;
  let gathering = 0;
  const gathered: Array<() => void> = [];
  const server: Server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.url === '/v1/webhooks/webhook-events' && gathering > 0) {
        await new Promise<void>((resolve) => {
          gathered.push(resolve);
          if (gathered.length < gathering) return;
          gathering = 0;
          for (const release of gathered.splice(0)) release();
        });
      }
      const body = Buffer.concat(chunks);
      const answer = await fetch(target + req.url, { method: req.method!, headers: forwardedHeaders(req.headers), ...(body.length > 0 ? { body } : {}) });
      const text = await answer.text();
      const isCreate = req.method === 'POST' && req.url === '/v1/webhooks';
      const mode = isCreate ? how(++creates) : 'pass';
      const head = { 'content-type': 'application/json' };
      if (mode === 'error-500') res.writeHead(500, head).end('{"error":{"code":"bad_gateway","message":"the upstream did not answer in time"}}');
      else if (mode === 'error-503') res.writeHead(503, { ...head, 'retry-after': '0' }).end('{"error":{"code":"unavailable","message":"try again"}}');
      else if (mode === 'reset') res.socket?.resetAndDestroy();
      else if (mode === 'hold') events.emit('acted');
      else if (mode === 'half') {
        res.writeHead(answer.status, { ...head, 'content-length': String(Buffer.byteLength(text)) });
        res.write(text.slice(0, text.length / 2), () => events.emit('acted'));
      } else res.writeHead(answer.status, head).end(text, () => isCreate && events.emit('answered'));
    } catch {
      res.socket?.destroy(); // the test killed the client meanwhile
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events,
    answerCreates(next) {
      how = next;
      creates = 0;
    },
    gatherCatalogRequests(n) {
      gathering = n;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
}

export interface LostAnswers {
  front: () => Front;
  /** The sandbox's own address (the front bypassed). */
  base: () => string;
  /** A token of the sandbox's client, for asking it directly. */
  token: () => string;
  /** The temporary directory of the file, removed when it ends. */
  work: () => string;
  /** A user of the front (the service as the CLI sees it), with a config dir of its own unless given. */
  userEnv: (configDir?: string) => Env;
  /** The sandbox's webhooks, asked directly. */
  webhooks: () => Promise<Webhook[]>;
  withUrl: (url: string) => Promise<Webhook[]>;
}

/** The sandbox and its front, made before the file's tests and closed after them. */
export function lostAnswersSetup(): LostAnswers {
  let sandbox: Sandbox;
  let front: Front;
  let work: string;
  let token: string;
  const base = () => `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'whsvc-lost-answers-'));
    sandbox = createSandbox();
    const address = await sandbox.listen(0, '127.0.0.1');
    front = await startFront(address);
    token = await getToken(address, sandbox.clients[0]!.client_id, sandbox.clients[0]!.client_secret);
  });
  afterAll(async () => {
    await front?.close();
    await sandbox?.close();
    rmSync(work, { recursive: true, force: true });
  });
  const webhooks = async (): Promise<Webhook[]> => (await http(base(), 'GET', '/v1/webhooks?limit=200', { token })).json.data;
  return {
    front: () => front,
    base,
    token: () => token,
    work: () => work,
    userEnv: (configDir = mkdtempSync(join(work, 'config-'))) => {
      const client = sandbox.clients[0]!;
      return {
        WHSVC_BASE_URL: front.url,
        WHSVC_CLIENT_ID: client.client_id,
        WHSVC_CLIENT_SECRET: client.client_secret,
        WHSVC_CONFIG_DIR: configDir,
        CI: 'true',
      };
    },
    webhooks,
    withUrl: async (url) => (await webhooks()).filter((webhook) => webhook.url === url),
  };
}

/** A file for webhooks apply declaring a webhook for invoice.paid at each URL. */
export function declare(path: string, urls: string[]): void {
  writeFileSync(path, `webhooks:\n${urls.map((url) => `  - url: ${url}\n    events: [invoice.paid]\n`).join('')}`);
}
