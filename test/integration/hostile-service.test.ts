import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

// whsvc against a service of our own on 127.0.0.1 that does not play fair: pages that loop, answers that quote the
// secrets they were sent. The whole command as a user runs it, in-process: the one line, the exit code, what reaches
// the output.

const CLIENT_SECRET = 'cs_hostile_Sup3rS3cret_0123456789';
const TOKEN = 'tok_hostile_access_token_abcdef';

/** How the service answers a request, given its body as text; set by each test. */
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let handler: Handler;
let server: Server;
let baseUrl: string;
let configDir: string;

const send = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));

/** Answers the token request with TOKEN, and everything else with `rest`. */
const withToken =
  (rest: Handler): Handler =>
  (req, body, res) =>
    req.url === '/v1/oauth/token' ? send(res, 200, { access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 }) : rest(req, body, res);

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-hostile-'));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});

const whsvc = (args: string[]) =>
  runInProcess(args, {
    env: {
      WHSVC_BASE_URL: baseUrl,
      WHSVC_CLIENT_ID: 'cli_hostile',
      WHSVC_CLIENT_SECRET: CLIENT_SECRET,
      WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')),
      WHSVC_PROFILE: undefined,
    },
  });

describe('pages that go round in a circle', () => {
  /** Lists whose first page points to c1, and c<length> back to c1; counts the pages asked for. */
  const looping = (length: number, asked: string[]) =>
    withToken((req, _, res) => {
      const cursor = new URL(req.url!, baseUrl).searchParams.get('cursor');
      asked.push(cursor ?? '(first)');
      const at = cursor === null ? 0 : Number(cursor.slice(1));
      send(res, 200, {
        data: [{ id: `wh_${at}`, url: 'https://e.example/h', events: ['invoice.paid'], active: true }],
        has_more: true,
        next_cursor: `c${(at % length) + 1}`,
      });
    });

  it.each([
    [2, ['api', '/v1/webhooks', '--paginate']],
    [3, ['webhooks', 'list', '--all', '--json']],
  ])('a cycle of %i pages: `whsvc %s` ends with one line, exit 1', async (length, args) => {
    const asked: string[] = [];
    handler = looping(length, asked);
    const result = await whsvc([...args]);
    expect(result.code, result.stderr).toBe(1);
    const [line, json, ...rest] = result.stderr.trimEnd().split('\n');
    expect(line).toMatch(
      /^whsvc: the service's pages of (GET \/v1\/webhooks|the account's webhooks) go round in a circle: page \d gave a next_cursor given before; following it would never end \(HTTP 200 unexpected_answer\)$/,
    );
    expect(rest).toEqual([]);
    if (args.includes('--json')) expect(JSON.parse(json!).error.code).toBe('unexpected_answer');
    expect(asked).toEqual(['(first)', ...Array.from({ length }, (_, i) => `c${i + 1}`)]);
  });
});

describe('a walk cut short: pages 1 and 2 answered, then page 3 fails', () => {
  /** Pages of one item each, webhooks or attempts as the path asks, more following; page 3 answers 500 or drops the connection. */
  const failingOnPageThree = (how: '500' | 'drop') =>
    withToken((req, _, res) => {
      const url = new URL(req.url!, baseUrl);
      const page = Number(url.searchParams.get('cursor')?.slice(1) ?? 1);
      if (page === 3) return how === 'drop' ? req.socket.destroy() : send(res, 500, { error: { code: 'internal', message: 'page 3 broke' } });
      const id = `item_${page}`;
      const item = url.pathname.endsWith('/deliveries')
        ? { id, event: 'invoice.paid', status: 'failed', response_code: 503, attempts: 1, created_at: '2026-11-23T08:00:00Z' }
        : { id, url: 'https://e.example/h', events: ['invoice.paid'], active: true, created_at: '2026-11-23T08:00:00Z' };
      send(res, 200, { data: [item], has_more: true, next_cursor: `c${page + 1}` });
    });

  it.each([
    ['500', ['webhooks', 'list', '--all', '--json']],
    ['drop', ['webhooks', 'list', '--all', '--json']],
    ['500', ['deliveries', 'list', 'wh_1', '--all', '--json']],
    ['drop', ['api', '/v1/webhooks', '--paginate']],
  ] as const)('page 3 %s: `whsvc %s` leaves no document a parser takes for the whole list: the part unfinished, the error, exit 1', async (how, args) => {
    handler = failingOnPageThree(how);
    const result = await whsvc([...args]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^whsvc: /);
    // As `| jq` reads it: not one document.
    expect(() => JSON.parse(result.stdout)).toThrow();
    // What is there is the two whole items of pages 1 and 2, ended by a line of its own: only the closing is missing.
    expect(result.stdout.endsWith('}\n')).toBe(true);
    expect(JSON.parse(`${result.stdout}]}`).data.map((item: { id: string }) => item.id)).toEqual(['item_1', 'item_2']);
    // --jq is given nothing to filter: no part of the list reaches the user's program.
    const filtered = await whsvc([...args, '--jq', '.data[].id']);
    expect(filtered).toMatchObject({ code: 1, stdout: '' });
  });
});

describe('pages of nothing without end', () => {
  /**
   * Four webhooks whose logs (or, with `account`, the account's list itself) are pages of nothing without end: empty,
   * each saying more follow, with a fresh cursor. Counts the pages of each list asked for; a list asked 200 times
   * ends, so that a guard that fails is a test that fails, not one that runs 400,000 requests.
   */
  const emptyWithoutEnd = (endless: 'logs' | 'account', asked: Map<string, number>) =>
    withToken((req, _, res) => {
      const url = new URL(req.url!, baseUrl);
      const count = (asked.get(url.pathname) ?? 0) + 1;
      asked.set(url.pathname, count);
      const more = count < 200;
      const nothing = { data: [], has_more: more, next_cursor: more ? `c${count}` : null };
      if (url.pathname === '/v1/webhooks' && endless === 'logs') {
        const webhook = (n: number) => ({ id: `wh_${n}`, url: `https://e.example/h${n}`, events: ['invoice.paid'], active: true });
        return send(res, 200, { data: [1, 2, 3, 4].map(webhook), has_more: false, next_cursor: null });
      }
      send(res, 200, nothing);
    });

  it.each([
    ['logs', ['deliveries', 'list'], 'the log of webhook wh_\\d'],
    ['account', ['webhooks', 'list', '--all'], "the account's webhooks"],
  ] as const)('endless %s: `whsvc %s` stops after 10 empty pages of a list, naming it in one line, exit 1', async (endless, args, list) => {
    const asked = new Map<string, number>();
    handler = emptyWithoutEnd(endless, asked);
    const result = await whsvc([...args]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^whsvc: the service gave 10 empty pages of ${list} in a row \\(pages 1 to 10\\), each saying more follow: whsvc stops rather than read without end \\(HTTP 200 unexpected_answer\\)$`,
        ),
      ),
    ]);
    // At most ten pages of each list, read four at once: not 400,007 requests.
    for (const [path, count] of asked) if (path !== '/v1/webhooks' || endless === 'account') expect(count, path).toBeLessThanOrEqual(10);
  });
});

describe('secrets a service echoes back', () => {
  it('a token endpoint that quotes the request body: the error line and the --json error hold no client secret', async () => {
    handler = (_, body, res) => send(res, 401, { error: 'invalid_client', error_description: `rejected ${body}` });
    const result = await whsvc(['webhooks', 'list', '--json', '--debug']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('the service refused the credentials (invalid_client): rejected {"grant_type":"client_credentials"');
    expect(result.stderr).toContain('[redacted]');
    expect(result.stderr).not.toContain(CLIENT_SECRET);
    const jsonError = result.stderr.trimEnd().split('\n').at(-1);
    expect(JSON.parse(jsonError!).error.message).toMatch(/"client_secret":"\[redacted\]"/);
  });

  it('an API error quoting `Authorization: Bearer <token>`: no token in the line, the --json error or --debug', async () => {
    handler = withToken((req, _, res) =>
      send(res, 400, { error: { code: 'bad_request', message: `cannot read authorization: ${req.headers.authorization}` } }),
    );
    const result = await whsvc(['webhooks', 'list', '--json', '--debug']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('whsvc: cannot read authorization: Bearer [redacted] (HTTP 400 bad_request)');
    expect(result.stderr).not.toContain(TOKEN);
  });
});

describe("the service's numbers, as it wrote them", () => {
  const HUGE = '12345678901234567890123';
  beforeAll(() => {
    handler = withToken((_, __, res) =>
      send(
        res,
        200,
        `{"data":[{"id":"dlv_1","event":"invoice.paid","status":"failed","response_code":${HUGE},"attempts":1e400,"created_at":"2025-01-15T12:00:00Z"}],"has_more":false,"next_cursor":null}`,
      ),
    );
  });

  it('a 23-digit number and 1e400 come out of --json, and --jq reads them, as the service wrote them', async () => {
    const json = await whsvc(['deliveries', 'list', 'wh_1', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain(`"response_code": ${HUGE},`);
    expect(json.stdout).toContain('"attempts": 1e400,');
    const jq = await whsvc(['deliveries', 'list', 'wh_1', '--jq', '.data[0].response_code']);
    expect(jq.code, jq.stderr).toBe(0);
    expect(jq.stdout).toBe(`${HUGE}\n`);
    const rows = await whsvc(['deliveries', 'list', 'wh_1']);
    expect(rows.code, rows.stderr).toBe(0);
    expect(rows.stdout).toContain('\t1e400\t');
  });
});

describe('--debug and a platform name of its own (--platform-name)', () => {
  it("shows the delivery headers of the platform given, though named like a credential (Monkey's key), and masks them without it", async () => {
    handler = withToken((_req, _body, res) =>
      res
        .writeHead(404, { 'content-type': 'application/json', 'x-monkey-signature': 'sha256=shown', 'x-api-key': 'k_hidden' })
        .end(JSON.stringify({ error: { code: 'not_found', message: 'no such delivery' } })),
    );
    const given = await whsvc(['deliveries', 'diagnose', 'dlv_1', '--platform-name', 'Monkey', '--debug']);
    expect(given.code, given.stderr).toBe(5);
    expect(given.stderr).toContain('x-monkey-signature: sha256=shown');
    const without = await whsvc(['deliveries', 'diagnose', 'dlv_1', '--debug']);
    expect(without.stderr).toContain('x-monkey-signature: [redacted]');
    for (const { stderr } of [given, without]) expect(stderr).not.toContain('k_hidden');
  });
});
