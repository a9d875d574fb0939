import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getToken } from '../helpers/http.js';
import { startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// A corpus of bad requests against the sandbox as \`whsvc sandbox start\` runs it (in-process), written on raw
// sockets so that nothing in between tidies them up: every answer must be a
// JSON error naming the problem, never a 5xx, and the sandbox must not end
// nor log a stack trace.

let sandbox: SandboxInProcess;
/** Whether the sandbox's run has ended (its until rejects then): never, before the test stops it. */
let ended = false;
let port: number;
let writeToken: string;
let readToken: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  sandbox
    .until(() => false, 'its end')
    .catch(() => {
      ended = true;
    });
  port = Number(new URL(sandbox.info.base_url).port);
  writeToken = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
  readToken = await getToken(sandbox.info.base_url, sandbox.info.readonly_client_id, sandbox.info.readonly_client_secret);
});

afterAll(async () => {
  expect(await sandbox?.stop('SIGTERM')).toBe(0);
});

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Writes `request` as is (in pieces, if given several) and reads the whole answer until the server closes or a full response is in. */
function raw(request: string | Buffer | Array<string | Buffer>, options: { hangUpAfterWrite?: boolean } = {}): Promise<RawAnswer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 20 s to ${String(request).slice(0, 80)}`));
    }, 20_000);
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      if (text === '') return resolve(undefined);
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body: text.slice(head.length + 4) });
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(text) >= Buffer.byteLength(text.slice(0, end + 4)) + Number(length)) {
        socket.destroy();
        finish();
      }
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      for (const piece of Array.isArray(request) ? request : [request]) socket.write(piece);
      if (options.hangUpAfterWrite) socket.destroy();
    });
  });
}

function request(method: string, path: string, options: { token?: string; type?: string; body?: string; headers?: string[] } = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, `host: 127.0.0.1:${port}`, 'connection: close'];
  if (options.token !== undefined) lines.push(`authorization: Bearer ${options.token}`);
  if (options.type !== undefined) lines.push(`content-type: ${options.type}`);
  if (options.body !== undefined) lines.push(`content-length: ${Buffer.byteLength(options.body)}`);
  lines.push(...(options.headers ?? []));
  return `${lines.join('\r\n')}\r\n\r\n${options.body ?? ''}`;
}

/** An error answer as the interface words it: a 4xx with a JSON body `{ error: { code, message } }` (OAuth's own shape on the token route). */
function expectJsonError(answer: RawAnswer | undefined, what: string): void {
  expect(answer, `${what}: no answer`).toBeDefined();
  expect(answer!.status, `${what}: ${answer!.headers}\n${answer!.body}`).toBeGreaterThanOrEqual(400);
  expect(answer!.status, `${what}: ${answer!.body}`).toBeLessThan(500);
  expect(answer!.headers, what).toMatch(/content-type: application\/json/i);
  const json = JSON.parse(answer!.body) as { error: unknown; error_description?: string };
  if (typeof json.error === 'string') {
    expect(typeof json.error_description, what).toBe('string');
  } else {
    const error = json.error as { code: unknown; message: unknown };
    expect(typeof error.code, what).toBe('string');
    expect(typeof error.message, what).toBe('string');
    expect((error.message as string).length, what).toBeGreaterThan(5);
  }
}

const JSON_TYPE = 'application/json';
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Bodies for create and update: each one wrong in its own way. */
const BAD_BODIES: Array<[string, string, string]> = [
  ['truncated JSON', JSON_TYPE, '{"url":'],
  ['not JSON at all', JSON_TYPE, 'url=https://example.com'],
  ['a JSON array', JSON_TYPE, '[1,2,3]'],
  ['a JSON string', JSON_TYPE, '"hello"'],
  ['null', JSON_TYPE, 'null'],
  ['an empty body', JSON_TYPE, ''],
  ['a UTF-8 byte order mark and JSON', JSON_TYPE, '\ufeff{"url":"https://example.com","events":["invoice.paid"]}'],
  ['url a number', JSON_TYPE, '{"url":5,"events":["invoice.paid"]}'],
  ['url an object', JSON_TYPE, '{"url":{"href":"https://example.com"},"events":["invoice.paid"]}'],
  ['events a string', JSON_TYPE, '{"url":"https://example.com/h","events":"invoice.paid"}'],
  ['events of numbers', JSON_TYPE, '{"url":"https://example.com/h","events":[1,2]}'],
  ['events nested', JSON_TYPE, '{"url":"https://example.com/h","events":[["invoice.paid"]]}'],
  ['active a string', JSON_TYPE, '{"url":"https://example.com/h","events":["invoice.paid"],"active":"true"}'],
  ['a __proto__ field', JSON_TYPE, '{"__proto__":{"url":"https://example.com/h"},"events":["invoice.paid"]}'],
  ['a constructor field', JSON_TYPE, '{"constructor":1,"url":"https://example.com/h","events":["invoice.paid"]}'],
  ['deeply nested arrays', JSON_TYPE, `{"url":"https://example.com/h","events":${deep(20_000)}}`],
  [
    'deeply nested objects in a field',
    JSON_TYPE,
    `{"type":"invoice.paid","data":{"a":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}},"url":"https://example.com/h","events":["invoice.paid"]}`,
  ],
  ['a huge body', JSON_TYPE, JSON.stringify({ url: 'https://example.com/h', events: ['invoice.paid'], pad: 'x'.repeat(200_000) })],
  ['a huge URL', JSON_TYPE, JSON.stringify({ url: `https://example.com/${'a'.repeat(10_000)}`, events: ['invoice.paid'] })],
  ['lone surrogates', JSON_TYPE, '{"url":"https://example.com/\\ud800","events":["invoice.paid"]}'],
  ['the wrong content type', 'text/plain', '{"url":"https://example.com/h","events":["invoice.paid"]}'],
  ['a form', 'application/x-www-form-urlencoded', 'url=https%3A%2F%2Fexample.com&events=invoice.paid'],
  ['multipart', 'multipart/form-data; boundary=x', '--x\r\ncontent-disposition: form-data; name="url"\r\n\r\nhttps://example.com\r\n--x--'],
];

describe('a fuzz corpus against the sandbox', () => {
  it('bodies of the wrong shape or type, on every route that takes one', async () => {
    const created = await raw(
      request('POST', '/v1/webhooks', {
        token: writeToken,
        type: JSON_TYPE,
        body: JSON.stringify({ url: 'https://example.com/fuzz', events: ['invoice.paid'], active: false }),
      }),
    );
    expect(created?.status, created?.body).toBe(201);
    const id = (JSON.parse(created!.body) as { id: string }).id;
    for (const [name, type, body] of BAD_BODIES) {
      expectJsonError(await raw(request('POST', '/v1/webhooks', { token: writeToken, type, body })), `create with ${name}`);
      if (name !== 'an empty body')
        expectJsonError(await raw(request('PATCH', `/v1/webhooks/${id}`, { token: writeToken, type, body })), `update with ${name}`);
      expectJsonError(await raw(request('POST', '/_sandbox/events', { type, body })), `trigger with ${name}`);
      expectJsonError(await raw(request('POST', '/v1/oauth/token', { type, body })), `token with ${name}`);
      if (body !== '')
        expectJsonError(
          await raw(request('POST', `/v1/webhooks/${id}/test`, { token: writeToken, type, body: body.replace('"url"', '"event"') })),
          `test send with ${name}`,
        );
    }
  });

  it('odd paths and queries', async () => {
    const paths = [
      '/v1/webhooks/%',
      '/v1/webhooks/%zz',
      '/v1/webhooks/%00',
      '/v1/webhooks/%2e%2e',
      '/v1/webhooks/..%2f..%2fetc%2fpasswd',
      '/v1/webhooks/wh_\u00e9',
      `/v1/webhooks/${'x'.repeat(4_000)}`,
      '/v1/webhooks/wh_nope/deliveries?limit=1e9',
      '/v1/webhooks/wh_nope/deliveries?status=everything',
      '/v1/webhooks?limit=%ff',
      '/v1/webhooks?cursor=%00',
      '/v1/webhooks?cursor=' + 'A'.repeat(3_000),
      '/v1/webhooks?limit=10&limit=20',
      '/v1/webhooks/webhook-deliveries/%20',
      '/v1',
      '/nothing',
      '/_sandbox/inspector/api/%00',
      '/_sandbox/inspector/api/deliveries/%E0%A4%A',
      '/_sandbox/inspector/api/deliveries?limit=-1&status=%00',
      `/_sandbox/inspector/api/deliveries/${'x'.repeat(4_000)}`,
      '//v1//webhooks',
      '/v1/webhooks/wh_x/test/extra',
      '*',
    ];
    for (const path of paths) expectJsonError(await raw(request('GET', path, { token: readToken })), `GET ${path}`);
    for (const method of ['PUT', 'TRACE', 'PROPFIND', 'DELETE'])
      expectJsonError(await raw(request(method, '/v1/webhooks', { token: writeToken })), `${method} /v1/webhooks`);
  });

  it('bad tokens and scopes', async () => {
    const tokens = ['', 'nope', 'a'.repeat(5_000), `${writeToken}x`, writeToken.slice(0, -1), '\u00ff\u00fe'];
    for (const token of tokens) expectJsonError(await raw(request('GET', '/v1/webhooks', { token })), `token ${JSON.stringify(token.slice(0, 20))}`);
    for (const header of ['authorization: Basic Zm9vOmJhcg==', 'authorization: Bearer', 'authorization: bearer  ', `authorization: Token ${writeToken}`]) {
      expectJsonError(await raw(request('GET', '/v1/webhooks', { headers: [header] })), header);
    }
    const scoped = await raw(
      request('POST', '/v1/webhooks', { token: readToken, type: JSON_TYPE, body: JSON.stringify({ url: 'https://example.com/h', events: ['invoice.paid'] }) }),
    );
    expectJsonError(scoped, 'a write with a read-only token');
    expect(scoped!.status).toBe(403);
    const grants = [
      'grant_type=password&client_id=x&client_secret=y',
      'grant_type=client_credentials',
      `grant_type=client_credentials&client_id=${sandbox.info.client_id}&client_secret=wrong`,
      `grant_type=client_credentials&client_id=${sandbox.info.readonly_client_id}&client_secret=${sandbox.info.readonly_client_secret}&scope=webhooks:write`,
      `grant_type=client_credentials&client_id=${sandbox.info.client_id}&client_secret=${sandbox.info.client_secret}&scope=admin`,
    ];
    for (const body of grants)
      expectJsonError(await raw(request('POST', '/v1/oauth/token', { type: 'application/x-www-form-urlencoded', body })), `token request ${body.slice(0, 40)}`);
  });

  it('requests that are not valid HTTP get a JSON 4xx, not a bare close', async () => {
    const broken: Array<[string, string]> = [
      ['garbage', 'hello there\r\n\r\n'],
      ['a bad method token', 'GE T /v1/webhooks HTTP/1.1\r\nhost: x\r\n\r\n'],
      ['HTTP/9.9', 'GET /v1/webhooks HTTP/9.9\r\nhost: x\r\n\r\n'],
      ['a header without a colon', 'GET /v1/webhooks HTTP/1.1\r\nhost x\r\n\r\n'],
      ['a control character in a header', 'GET /v1/webhooks HTTP/1.1\r\nhost: x\r\nx-a: b\u0001c\r\n\r\n'],
      ['both content-length and chunked', 'POST /_sandbox/events HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n'],
      ['two content-lengths', 'POST /_sandbox/events HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\nabcd'],
      [
        'a bad chunk size',
        'POST /_sandbox/events HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
      ],
      ['headers larger than the limit', `GET /v1/webhooks HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`],
    ];
    for (const [name, text] of broken) expectJsonError(await raw(text), name);
  });

  it('a client that hangs up mid-body, or mid-headers, is no error of the sandbox', async () => {
    const partial = (path: string) =>
      `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${writeToken}\r\ncontent-length: 1000\r\n\r\n{"type":"inv`;
    for (const path of ['/_sandbox/events', '/v1/webhooks', '/v1/oauth/token']) {
      for (let i = 0; i < 5; i += 1) await raw(partial(path), { hangUpAfterWrite: true });
    }
    await raw('GET /v1/webhooks HTTP/1.1\r\nhost: x\r\nauthoriz', { hangUpAfterWrite: true });
    // Still serving, and nothing in its log but the ready banner.
    const alive = await raw(request('GET', '/v1/webhooks', { token: readToken }));
    expect(alive?.status).toBe(200);
    expect(sandbox.stderr()).not.toMatch(/internal error|aborted/);
  });

  it('after the whole corpus: no crash, no internal error, no stack trace in the log', async () => {
    expect(ended).toBe(false);
    expect(sandbox.stderr()).not.toMatch(/internal error|\n\s+at /);
    expect(sandbox.stderr()).not.toContain('Error');
  });
});
