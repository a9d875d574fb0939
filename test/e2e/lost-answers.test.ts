import { EventEmitter, once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { runCli, startWhsvc, type Env } from '../helpers/cli.js';
import { getToken, http, postWebhook } from '../helpers/http.js';

// A create whose answer never reaches whsvc, and updates of one webhook run side by side, through the built binary:
// the sandbox in this process, behind a service of the test's own that passes every request on and, for a create,
// answers as the test says once the sandbox has acted on it (an error, a reset, nothing, half an answer).

/** How the front answers a create the sandbox has made. */
type CreateAnswer = 'pass' | 'error-500' | 'error-503' | 'reset' | 'hold' | 'half';

interface Front {
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

let sandbox: Sandbox;
let front: Front;
let work: string;
let token: string;

/** A user of the front (the service as the CLI sees it), with a config dir of its own unless given. */
function userEnv(configDir = mkdtempSync(join(work, 'config-'))): Env {
  const client = sandbox.clients[0]!;
  return { WHSVC_BASE_URL: front.url, WHSVC_CLIENT_ID: client.client_id, WHSVC_CLIENT_SECRET: client.client_secret, WHSVC_CONFIG_DIR: configDir, CI: 'true' };
}

/** The sandbox's webhooks, asked directly. */
async function webhooks(): Promise<Array<{ id: string; url: string; events: string[] }>> {
  const page = await http(base(), 'GET', '/v1/webhooks?limit=200', { token });
  return page.json.data;
}
const base = () => `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
const withUrl = async (url: string) => (await webhooks()).filter((webhook) => webhook.url === url);

function declare(path: string, urls: string[]): void {
  writeFileSync(path, `webhooks:\n${urls.map((url) => `  - url: ${url}\n    events: [invoice.paid]\n`).join('')}`);
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

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

describe('a create whose answer is lost', () => {
  it('acted on, then answered 500, 503 (Retry-After: 0) or reset: one webhook, exit 1, a "may exist" line; the next apply names it by id', async () => {
    const env = userEnv();
    const secrets = join(work, 'secrets-errors');
    for (const answer of ['error-500', 'error-503', 'reset'] as const) {
      front.answerCreates(() => answer);
      const url = `https://create-${answer}.example.com/hooks`;
      const secretFile = join(work, `create-${answer}.secret`);
      const created = await runCli(['webhooks', 'create', '--url', url, '--events', 'invoice.paid', '--secret-file', secretFile], { env });
      expect(created.code, created.stderr).toBe(1);
      expect(created.stderr).toMatch(new RegExp(`^whsvc: the create request .*: the webhook for ${escaped(url)} may exist, without its signing secret`, 'm'));
      expect(created.stderr).toMatch(new RegExp(`^hint: check with \`whsvc webhooks list\`: if a webhook for ${escaped(url)} is there, delete it`, 'm'));
      expect(existsSync(secretFile)).toBe(false);
      expect(await withUrl(url)).toHaveLength(1);

      const file = join(work, `apply-${answer}.yaml`);
      const applyUrl = `https://apply-${answer}.example.com/hooks`;
      declare(file, [applyUrl]);
      const applied = await runCli(['webhooks', 'apply', '-f', file, '--secret-dir', secrets], { env });
      expect(applied.code, applied.stderr).toBe(1);
      expect(applied.stderr).toMatch(
        new RegExp(`^whsvc: the create request .*: the webhook for ${escaped(applyUrl)} may exist, without its signing secret`, 'm'),
      );
      const made = await withUrl(applyUrl);
      expect(made).toHaveLength(1);

      front.answerCreates(() => 'pass');
      const again = await runCli(['webhooks', 'apply', '-f', file, '--secret-dir', secrets], { env });
      expect(again.code, again.stderr).toBe(1);
      expect(again.stderr).toContain(`whsvc: 1 webhook of the file has no signing secret in ${secrets} (its file missing or empty): ${made[0]!.id}; `);
      expect(again.stderr).toContain(
        `hint: the service gives a secret only once, in the answer to the create (a create whose answer was lost leaves none): delete it (\`whsvc webhooks delete ${made[0]!.id} --yes\`) and apply again`,
      );
      expect(await withUrl(applyUrl)).toHaveLength(1);
    }
  });

  it('apply killed at chosen points over several runs, then run again: each declared webhook has one non-empty 0600 secret file, or is named by id', async () => {
    const env = userEnv();
    const secrets = join(work, 'secrets-killed');
    const file = join(work, 'killed.yaml');
    const urls = Array.from({ length: 5 }, (_, i) => `https://killed-${i + 1}.example.com/hooks`);
    declare(file, urls);
    // Each run is killed (SIGKILL) where the test says: the second create made but never answered; the first create
    // answered whole (the secret maybe written, maybe not); the first create answered by half.
    const kills: Array<[(n: number) => CreateAnswer, 'acted' | 'answered']> = [
      [(n) => (n === 2 ? 'hold' : 'pass'), 'acted'],
      [() => 'pass', 'answered'],
      [() => 'half', 'acted'],
    ];
    for (const [how, point] of kills) {
      front.answerCreates(how);
      const apply = startWhsvc(['webhooks', 'apply', '-f', file, '--secret-dir', secrets], { env });
      await Promise.race([once(front.events, point), apply.exit.then((code) => Promise.reject(new Error(`apply exited ${code}: ${apply.stderr()}`)))]);
      expect(await apply.stop('SIGKILL')).toBeNull();
    }
    front.answerCreates(() => 'pass');
    const last = await runCli(['webhooks', 'apply', '-f', file, '--secret-dir', secrets], { env });
    const account = await webhooks();
    const named = new Set(/^whsvc: \d+ webhooks? of the file (?:has|have) no signing secret in .*?: (.*); /m.exec(last.stderr)?.[1]?.split(', ') ?? []);
    for (const url of urls) {
      const made = account.filter((webhook) => webhook.url === url);
      expect(made, url).toHaveLength(1);
      const path = join(secrets, `${made[0]!.id}.secret`);
      const stats = statSync(path, { throwIfNoEntry: false });
      if (named.has(made[0]!.id)) expect(stats?.size ?? 0, `${path} is named, and is there`).toBe(0);
      else {
        expect(stats?.size ?? 0, `${url} (${made[0]!.id}) has neither a secret file nor its name in: ${last.stderr}`).toBeGreaterThan(0);
        expect(stats!.mode & 0o777).toBe(0o600);
      }
    }
    // Made and never answered whole: the second create of the first run, the one of the third; so the run fails.
    const idOf = (url: string) => account.find((webhook) => webhook.url === url)!.id;
    expect([...named].sort()).toEqual(expect.arrayContaining([idOf(urls[1]!), idOf(urls[3]!)]));
    expect(last.code, last.stderr).toBe(1);
    // No empty file anywhere, and nothing but secret files and, from a kill mid-write, a hidden temporary.
    for (const name of readdirSync(secrets)) {
      expect(name).toMatch(/^(wh_\w+\.secret|\.wh_\w+\.secret\.whsvc-\d+-[0-9a-z]+\.tmp)$/);
      if (!name.startsWith('.')) expect(statSync(join(secrets, name)).size).toBeGreaterThan(0);
    }
  });
});

describe('updates side by side', () => {
  it('10 processes adding and removing events of two webhooks at once, on one machine: no change is lost', async () => {
    const configDir = mkdtempSync(join(work, 'config-race-'));
    const env = userEnv(configDir);
    const start = ['invoice.paid', 'product.updated'];
    const ids = [
      (await postWebhook(base(), token, 'https://race-a.example.com/hooks', start)).id,
      (await postWebhook(base(), token, 'https://race-b.example.com/hooks', start)).id,
    ];
    // In any order one after the other, they leave the same list (product.updated is never removed: none empties it).
    const changes = [
      ['--add-events', 'inventory.changed'],
      ['--add-events', 'sales_order.created'],
      ['--add-events', 'production_order.completed'],
      ['--add-events', 'product.updated'],
      ['--remove-events', 'invoice.paid'],
    ];
    // All ten read the catalog first; its answers are held until all have asked, so their reads of the webhook meet.
    front.gatherCatalogRequests(ids.length * changes.length);
    const runs = await Promise.all(
      ids.flatMap((id) => changes.map((change) => runCli(['webhooks', 'update', id, ...change, '--json'], { env, timeoutMs: 120_000 }))),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    for (const id of ids) {
      const webhook = (await webhooks()).find((w) => w.id === id)!;
      expect([...webhook.events].sort()).toEqual(['inventory.changed', 'product.updated', 'production_order.completed', 'sales_order.created']);
    }
  });
});
