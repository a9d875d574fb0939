import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { errors } from 'undici';
import { CliError } from '../../../../src/cli/errors.js';
import { ApiError } from '../../../../src/api/errors.js';
import { FileError } from '../../../../src/files/user-file.js';
import { run as create, type CreateOptions } from '../../../../src/commands/webhooks/create.js';
import { undoCreate } from '../../../../src/commands/webhooks/shared/secret-file.js';
import { JqJson, loadJqFilter } from '../../../../src/cli/jq.js';
import { T0, fakeDeps, finishFakeDeps, jsonReply, mockCatalog, mockToken, rejectionOf, type FakeDeps } from '../../../helpers/fake-deps.js';
import { refusedError } from '../../../helpers/undici-transport.js';

afterEach(finishFakeDeps);

const SECRET = 'whsec_0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const URL_ = 'https://example.com/hooks';

function created(body: Record<string, unknown>) {
  return {
    id: 'wh_new0001',
    url: body.url,
    events: body.events,
    active: body.active ?? true,
    signing_secret: SECRET,
    created_at: new Date(T0).toISOString(),
    updated_at: new Date(T0).toISOString(),
  };
}

/** POST /v1/webhooks answered 201 with the created webhook; returns the request bodies. */
function mockCreate(fake: FakeDeps): Array<Record<string, unknown>> {
  const bodies: Array<Record<string, unknown>> = [];
  fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply((opts) => {
    const body = JSON.parse(String(opts.body)) as Record<string, unknown>;
    bodies.push(body);
    return jsonReply(201, created(body));
  });
  return bodies;
}

const options = (o: Partial<CreateOptions> = {}): CreateOptions => ({ inactive: false, force: false, ...o });

describe('webhooks create: input', () => {
  it('on a terminal, asks for url and events and sends the answers', async () => {
    const fake = fakeDeps({
      canPrompt: true,
      answers: [
        { kind: 'input', message: /URL/i, answer: 'https://prompted.example/in' },
        { kind: 'checkbox', message: /events/i, answer: ['invoice.paid', 'product.updated'] },
      ],
    });
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const bodies = mockCreate(fake);
    const code = await create(options(), fake.deps);
    expect(code).toBe(0);
    expect(bodies).toEqual([{ url: 'https://prompted.example/in', events: ['invoice.paid', 'product.updated'] }]);
    // The checklist offered the catalog from the service.
    const checkbox = fake.prompter.asked.find((q) => q.kind === 'checkbox')!;
    expect(checkbox.choices!.map((c) => c.value)).toEqual(['invoice.paid', 'invoice.created', 'sales_order.created', 'product.updated']);
  });

  it('an unknown event type is a usage error with a suggestion, checked against the catalog, and nothing is created', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid', 'invoice.piad'] }), fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('invoice.piad');
    expect(error.message).toMatch(/did you mean invoice\.paid\?/);
    expect(fake.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual(['POST /v1/oauth/token', 'GET /v1/webhooks/webhook-events']);
  });

  it('--inactive sends active: false', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const bodies = mockCreate(fake);
    await create(options({ url: URL_, events: ['invoice.paid'], inactive: true }), fake.deps);
    expect(bodies).toEqual([{ url: URL_, events: ['invoice.paid'], active: false }]);
  });
});

describe('webhooks create: the signing secret', () => {
  it('human mode shows the secret once with a warning on stderr', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockCreate(fake);
    await create(options({ url: URL_, events: ['invoice.paid'] }), fake.deps);
    expect(fake.stdout.text).toMatch(new RegExp(`^signing secret\\s+${SECRET}$`, 'm'));
    expect(fake.stdout.text).toMatch(/^id\s+wh_new0001$/m);
    expect(fake.stderr.text).toMatch(/only this once/);
    expect(fake.stderr.text).not.toContain(SECRET);
  });

  it('--json prints the webhook as returned, signing_secret included', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockCreate(fake);
    await create(options({ url: URL_, events: ['invoice.paid'] }), fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual(created({ url: URL_, events: ['invoice.paid'] }));
  });

  it('--secret-file writes the secret alone (no newline: the file is the key) with mode 0600, and keeps it off stdout in human mode', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockCreate(fake);
    const file = join(fake.configDir, 'whsec.txt');
    await create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps);
    expect(readFileSync(file, 'utf8')).toBe(SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(fake.stdout.text).toContain('wh_new0001');
    expect(fake.stdout.text).not.toContain(SECRET);
    expect(fake.stderr.text).not.toContain(SECRET);
    expect(fake.stderr.text).toContain(file);
  });

  it('--secret-file with --json: file written, and the JSON names the file in place of the secret', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockCreate(fake);
    const file = join(fake.configDir, 'whsec.txt');
    await create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps);
    expect(readFileSync(file, 'utf8')).toBe(SECRET);
    const printed = JSON.parse(fake.stdout.text) as Record<string, unknown>;
    expect(printed.signing_secret_file).toBe(file);
    expect(printed).not.toHaveProperty('signing_secret');
    expect(fake.stdout.text).not.toContain(SECRET);
  });

  it('an existing --secret-file without --force: usage error and no POST', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const file = join(fake.configDir, 'existing.txt');
    writeFileSync(file, 'old secret\n');
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps));
    expect(error).toBeInstanceOf(FileError);
    expect(error).toMatchObject({ refused: true, hint: 'pass --force to overwrite it, or choose another path' });
    expect(error.message).toContain('already exists');
    expect(readFileSync(file, 'utf8')).toBe('old secret\n');
    expect(fake.requests.some((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toBe(false);
  });

  it('a directory as --secret-file: usage error that does not offer --force, and no POST', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: fake.configDir }), fake.deps));
    expect(error).toBeInstanceOf(FileError);
    expect(error).toMatchObject({ refused: true });
    expect(error.message).toBe(`--secret-file ${fake.configDir} is a directory, not a regular file`);
    expect(error.hint).not.toContain('--force');
    expect(fake.requests.some((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toBe(false);
  });

  it('an existing --secret-file with --force is overwritten', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockCreate(fake);
    const file = join(fake.configDir, 'existing.txt');
    writeFileSync(file, 'an older and longer secret that must not survive\n');
    await create(options({ url: URL_, events: ['invoice.paid'], secretFile: file, force: true }), fake.deps);
    expect(readFileSync(file, 'utf8')).toBe(SECRET);
  });

  it('--force over an existing world-readable file still leaves it mode 0600', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockCreate(fake);
    const file = join(fake.configDir, 'readable.txt');
    writeFileSync(file, 'old\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    await create(options({ url: URL_, events: ['invoice.paid'], secretFile: file, force: true }), fake.deps);
    expect(readFileSync(file, 'utf8')).toBe(SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('--force: a create that fails leaves the existing file as it was (the old secret is not lost)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(() => jsonReply(400, { error: { code: 'invalid_url', message: 'url must be https' } }));
    const file = join(fake.configDir, 'existing.txt');
    writeFileSync(file, 'whsec_previous_still_in_use\n', { mode: 0o600 });
    await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file, force: true }), fake.deps));
    expect(readFileSync(file, 'utf8')).toBe('whsec_previous_still_in_use\n');
  });

  it('a --secret-file in a missing directory is a usage error before the POST', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const error = await rejectionOf(
      create(options({ url: URL_, events: ['invoice.paid'], secretFile: join(fake.configDir, 'no', 'such', 'dir', 's.txt') }), fake.deps),
    );
    expect(error).toMatchObject({ refused: true, message: expect.stringMatching(/: its directory does not exist$/) });
    expect(fake.requests.some((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toBe(false);
  });
});

describe('webhooks create --json --jq: a filter that fails on the answer loses the secret, which is never left without a word', () => {
  /** Create with --jq `expression`; DELETE of the new webhook answered `deleteStatus`. */
  async function createThrough(expression: string, deleteStatus: number | undefined, more: (configDir: string) => Partial<CreateOptions> = () => ({})) {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockCreate(fake);
    if (deleteStatus !== undefined) {
      fake.mock
        .intercept({ path: '/v1/webhooks/wh_new0001', method: 'DELETE' })
        .reply(() => (deleteStatus === 204 ? { statusCode: 204, data: '' } : jsonReply(deleteStatus, { error: { message: 'busy' } })));
    }
    const jq = new JqJson(await loadJqFilter(expression), fake.stdout, fake.stderr);
    fake.deps.jsonOut = jq;
    const outcome = await create(options({ url: URL_, events: ['invoice.paid'], ...more(fake.configDir) }), fake.deps).catch(
      (error: unknown) => error as CliError,
    );
    return { fake, outcome, code: jq.finish(typeof outcome === 'number' ? outcome : outcome.exitCode) };
  }

  it("the webhook is deleted again, and the error says so after jq's", async () => {
    const { fake, outcome, code } = await createThrough('.data[].id', 204);
    expect(outcome).toBeInstanceOf(CliError);
    expect(outcome).toMatchObject({
      message: '--jq failed on the webhook created, so its signing secret was not shown; webhook wh_new0001 was deleted again, so nothing was created',
      hint: expect.stringMatching(/^correct the --jq program .*--secret-file/),
    });
    expect(code).toBe(1);
    expect(fake.stderr.text).toBe('whsvc: --jq: Cannot iterate over null (null)\n');
    expect(fake.requests.map((r) => `${r.method} ${r.url.pathname}`).slice(-1)).toEqual(['DELETE /v1/webhooks/wh_new0001']);
  });

  it('a delete that fails too: the error names the webhook and how to delete it', async () => {
    const { outcome } = await createThrough('.signing_secret | tonumber', 500);
    expect(outcome).toMatchObject({
      message: expect.stringMatching(/; webhook wh_new0001 was created and could not be deleted again \(busy\)$/),
      hint: 'its secret is lost: delete it with `whsvc webhooks delete wh_new0001 --yes`, then create it again',
    });
  });

  it('a filter that shows the secret in a form it can be had back whole from keeps the webhook: base64 (a Kubernetes Secret), after its whsec_', async () => {
    for (const expression of ['.signing_secret | @base64', '.signing_secret | ltrimstr("whsec_")']) {
      const { fake, outcome, code } = await createThrough(expression, undefined);
      expect(outcome, expression).toBe(0);
      expect(code, expression).toBe(0);
      expect(fake.stdout.text, expression).toBe(`${expression.includes('base64') ? Buffer.from(SECRET).toString('base64') : SECRET.slice('whsec_'.length)}\n`);
      expect(fake.requests.some((r) => r.method === 'DELETE')).toBe(false);
    }
    // Cut, it is lost: the webhook is deleted again.
    const { outcome } = await createThrough('.signing_secret[0:-1]', 204);
    expect(outcome).toMatchObject({ message: expect.stringMatching(/webhook wh_new0001 was deleted again/) });
  });

  it("with --secret-file the secret is in its file: the webhook stays, and jq's failure is the exit code", async () => {
    const { fake, outcome, code } = await createThrough('.data[].id', undefined, (dir) => ({ secretFile: join(dir, 'whsec.txt') }));
    expect(outcome).toBe(0);
    expect(code).toBe(1);
    expect(readFileSync(join(fake.configDir, 'whsec.txt'), 'utf8')).toBe(SECRET);
    expect(fake.requests.some((r) => r.method === 'DELETE')).toBe(false);
  });
});

describe('webhooks create: no answer', () => {
  it('a connection reset: the webhook may exist (message and hint say how to check), the reserved secret file is removed', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).replyWithError(new errors.SocketError('other side closed'));
    const file = join(fake.configDir, 'whsec.txt');
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/^the create request got no answer \(.*reset.*\): the webhook for \S+ may exist, without its signing secret$/);
    expect(String(error.hint)).toContain('whsvc webhooks list');
    expect(String(error.hint)).toContain(URL_);
    expect(existsSync(file)).toBe(false);
    // Never repeated.
    expect(fake.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toHaveLength(1);
    expect(fake.stdout.text).toBe('');
  });

  it.each([
    [500, {}],
    [502, {}],
    [503, { 'retry-after': '0' }],
    [429, { 'retry-after': '0' }],
  ])('answered %i: sent once, the webhook may exist (the status kept), the reserved secret file is removed', async (status, headers) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'POST' })
      .reply(() => jsonReply(status, { error: { code: 'upstream', message: 'gateway trouble' } }, headers));
    const file = join(fake.configDir, 'whsec.txt');
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status, code: 'upstream' });
    expect(error.message).toMatch(
      new RegExp(
        `^the create request was answered with an error \\(gateway trouble.*\\): the webhook for ${URL_.replace(/[.?]/g, '\\$&')} may exist, without its signing secret$`,
      ),
    );
    expect(String(error.hint)).toContain('whsvc webhooks list');
    expect(existsSync(file)).toBe(false);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toHaveLength(1);
  });

  it.each([
    ['not JSON', '<html>ok</html>'],
    ['not a webhook', JSON.stringify({ ok: true })],
  ])('answered 201 with %s: the service acted, so the webhook may exist, said as such; the reserved secret file is removed', async (_what, body) => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(201, body, { headers: { 'content-type': 'application/json' } });
    const file = join(fake.configDir, 'whsec.txt');
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toMatch(
      /^the create request was answered with an answer whsvc could not read \(.*\): the webhook for \S+ may exist, without its signing secret$/,
    );
    expect(String(error.hint)).toContain('whsvc webhooks list');
    expect(existsSync(file)).toBe(false);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/v1/webhooks')).toHaveLength(1);
  });

  it('a refused connection cannot have created anything: a plain network error, file removed', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).replyWithError(refusedError());
    const file = join(fake.configDir, 'whsec.txt');
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps));
    expect(error).not.toBeInstanceOf(CliError);
    expect(error.message).toMatch(/refused/);
    expect(existsSync(file)).toBe(false);
  });

  it('an API error (400) removes the reserved file and is passed on', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(() => jsonReply(400, { error: { code: 'invalid_url', message: 'url must be https' } }));
    const file = join(fake.configDir, 'whsec.txt');
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps));
    expect(error).toMatchObject({ status: 400, code: 'invalid_url' });
    expect(existsSync(file)).toBe(false);
  });

  it('--force on a path that does not exist yet: a failed create leaves no file behind', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(() => jsonReply(400, { error: { code: 'invalid_field', message: 'url: bad' } }));
    const file = join(fake.configDir, 'new-whsec.txt');
    await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file, force: true }), fake.deps));
    expect(existsSync(file)).toBe(false);
  });

  it('an answer without a signing_secret is an error naming the webhook, and writes no empty file', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock
      .intercept({ path: '/v1/webhooks', method: 'POST' })
      .reply(() => jsonReply(201, { id: 'wh_nosecret', url: URL_, events: ['invoice.paid'], active: true }));
    const file = join(fake.configDir, 'whsec.txt');
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'], secretFile: file }), fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toContain('wh_nosecret');
    expect(existsSync(file)).toBe(false);
  });
});

describe('webhooks create: a hostile id in the answer', () => {
  // Terminal escapes, a bell and a line break: printed raw they would clear the screen, retitle it and forge a line.
  const EVIL = 'wh_1\u001b[2J\u001b]0;owned\u0007\nwhsvc: all good, exit 0';
  // eslint-disable-next-line no-control-regex
  const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

  it('is printed without its control characters in the error; the command of its hint names it exactly, each escaped', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks', method: 'POST' }).reply(() => jsonReply(201, { id: EVIL, url: URL_, events: ['invoice.paid'], active: true }));
    const error = await rejectionOf(create(options({ url: URL_, events: ['invoice.paid'] }), fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe("webhook wh_1[2J]0;owned whsvc: all good, exit 0 was created, but the service's answer holds no signing_secret");
    expect(String(error.hint)).not.toMatch(CONTROL);
    expect(error.hint).toContain("`whsvc webhooks delete $'wh_1\\e[2J\\e]0;owned\\a\\nwhsvc: all good, exit 0'`");
  });

  it('undoing a create whose secret cannot be written names it without its control characters, whether the delete fails or not', async () => {
    for (const deleteStatus of [500, 204]) {
      const fake = fakeDeps();
      mockToken(fake.mock);
      fake.mock
        .intercept({ path: (path) => path.startsWith('/v1/webhooks/'), method: 'DELETE' })
        .reply(() => (deleteStatus === 204 ? { statusCode: 204, data: '' } : jsonReply(500, { error: { message: 'nope\u001b[2J' } })));
      const error = await undoCreate(fake.deps.api, EVIL, '/x/whsec.txt', new Error('EACCES'), () => {}, 'create it again');
      expect(error.message).not.toMatch(CONTROL);
      expect(String(error.hint)).not.toMatch(CONTROL);
      expect(error.message).toContain('webhook wh_1[2J]0;owned whsvc: all good, exit 0 was');
    }
  });
});
