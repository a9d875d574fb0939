import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/api/errors.js';
import { CliError } from '../../../../src/cli/errors.js';
import { run as update, type UpdateOptions } from '../../../../src/commands/webhooks/update.js';
import { run as del } from '../../../../src/commands/webhooks/delete.js';
import { CATALOG, T0, fakeDeps, finishFakeDeps, json, jsonReply, mockCatalog, mockToken, rejectionOf, type FakeDeps } from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const CURRENT = {
  id: 'wh_1',
  url: 'https://example.com/hooks',
  events: ['invoice.paid', 'sales_order.created'],
  active: true,
  created_at: new Date(T0 - 86_400_000).toISOString(),
  updated_at: new Date(T0 - 86_400_000).toISOString(),
};

function mockGet(fake: FakeDeps): void {
  fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(json(200, CURRENT));
}

/** PATCH answered with the current webhook merged with the body; returns the bodies. */
function mockPatch(fake: FakeDeps): Array<Record<string, unknown>> {
  const bodies: Array<Record<string, unknown>> = [];
  fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'PATCH' }).reply((opts) => {
    const body = JSON.parse(String(opts.body)) as Record<string, unknown>;
    bodies.push(body);
    return jsonReply(200, { ...CURRENT, ...body, updated_at: new Date(T0).toISOString() });
  });
  return bodies;
}

const opts = (o: Partial<UpdateOptions>): UpdateOptions => ({ id: 'wh_1', ...o });

/** The service, for as many requests as come: each GET of wh_1 answers its events as the last PATCH left them. */
function eventsService(fake: FakeDeps): { events: string[] } {
  const service = { events: ['invoice.paid'] };
  fake.mock
    .intercept({ path: '/v1/webhooks/webhook-events', method: 'GET' })
    .reply(() => jsonReply(200, CATALOG))
    .persist();
  fake.mock
    .intercept({ path: '/v1/webhooks/wh_1', method: 'GET' })
    .reply(() => jsonReply(200, { ...CURRENT, events: service.events }))
    .persist();
  fake.mock
    .intercept({ path: '/v1/webhooks/wh_1', method: 'PATCH' })
    .reply((request) => {
      service.events = (JSON.parse(String(request.body)) as { events: string[] }).events;
      return jsonReply(200, { ...CURRENT, events: service.events });
    })
    .persist();
  return service;
}

describe('webhooks update', () => {
  it('--add-events reads the current list, then PATCHes the merged list (no duplicates)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockGet(fake);
    const bodies = mockPatch(fake);
    await update(opts({ addEvents: ['product.updated', 'invoice.paid'] }), fake.deps);
    expect(bodies).toEqual([{ events: ['invoice.paid', 'sales_order.created', 'product.updated'] }]);
    const order = fake.requests.map((r) => `${r.method} ${r.url.pathname}`).filter((r) => r.includes('/wh_1'));
    expect(order).toEqual(['GET /v1/webhooks/wh_1', 'PATCH /v1/webhooks/wh_1']);
    expect(fake.stdout.text).toMatch(/^events\s+invoice\.paid, sales_order\.created, product\.updated$/m);
  });

  it('concurrent --add-events and --remove-events of one webhook on this machine take turns: no change is lost', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    const service = eventsService(fake);
    // One run first: the token and the catalog are cached, so the four below race to their reads at once.
    await update(opts({ addEvents: ['invoice.paid'] }), fake.deps);
    await Promise.all([
      update(opts({ addEvents: ['product.updated'] }), fake.deps),
      update(opts({ addEvents: ['invoice.created'] }), fake.deps),
      update(opts({ addEvents: ['sales_order.created'] }), fake.deps),
      update(opts({ removeEvents: ['invoice.paid'] }), fake.deps),
    ]);
    expect([...service.events].sort()).toEqual(['invoice.created', 'product.updated', 'sales_order.created']);
    // Each read came after the PATCH before it.
    const order = fake.requests.filter((r) => r.url.pathname === '/v1/webhooks/wh_1').map((r) => r.method);
    expect(order).toEqual(['GET', 'PATCH', 'GET', 'PATCH', 'GET', 'PATCH', 'GET', 'PATCH', 'GET', 'PATCH']);
  });

  it('take turns too when each spells the base URL its own way (case, a trailing slash, . and ..): one lock', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock, { times: 4 });
    const service = eventsService(fake);
    const spelled = ['http://127.0.0.1:4010/', 'HTTP://127.0.0.1:4010', 'http://127.0.0.1:4010/v1/..', 'http://127.0.0.1:4010/./'].map((baseUrl) => ({
      ...fake.deps,
      api: fake.client({ baseUrl }),
    }));
    // One run each first: each client's token and the catalog are had, so the four below race to their reads at once.
    for (const deps of spelled) await update(opts({ addEvents: ['invoice.paid'] }), deps);
    const added = ['product.updated', 'invoice.created', 'sales_order.created'];
    await Promise.all([
      ...added.map((event, i) => update(opts({ addEvents: [event] }), spelled[i]!)),
      update(opts({ removeEvents: ['invoice.paid'] }), spelled[3]!),
    ]);
    expect([...service.events].sort()).toEqual(['invoice.created', 'product.updated', 'sales_order.created']);
  });

  it('--remove-events PATCHes the list without them', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockGet(fake);
    const bodies = mockPatch(fake);
    await update(opts({ removeEvents: ['invoice.paid'] }), fake.deps);
    expect(bodies).toEqual([{ events: ['sales_order.created'] }]);
  });

  it('--add-events and --remove-events together', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockGet(fake);
    const bodies = mockPatch(fake);
    await update(opts({ addEvents: ['invoice.created'], removeEvents: ['sales_order.created'] }), fake.deps);
    expect(bodies).toEqual([{ events: ['invoice.paid', 'invoice.created'] }]);
  });

  it('removing every event is refused before the PATCH', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    mockGet(fake);
    const error = await rejectionOf(update(opts({ removeEvents: ['invoice.paid', 'sales_order.created'] }), fake.deps));
    expect(error).toMatchObject({ exitCode: 2 });
    expect(fake.requests.some((r) => r.method === 'PATCH')).toBe(false);
  });

  it('PATCHes only what is given (--inactive)', async () => {
    const fake = fakeDeps({ json: true });
    mockToken(fake.mock);
    const bodies = mockPatch(fake);
    await update(opts({ active: false }), fake.deps);
    expect(bodies).toEqual([{ active: false }]);
    expect(JSON.parse(fake.stdout.text)).toMatchObject({ id: 'wh_1', active: false });
  });

  it('--url and --events replace, without reading the webhook first', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const bodies = mockPatch(fake);
    await update(opts({ url: 'https://new.example/h', events: ['product.updated'] }), fake.deps);
    expect(bodies).toEqual([{ url: 'https://new.example/h', events: ['product.updated'] }]);
    expect(fake.requests.some((r) => r.method === 'GET' && r.url.pathname === '/v1/webhooks/wh_1')).toBe(false);
  });

  it('an unknown event in --add-events: exit 2 with a suggestion, nothing read or changed', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    mockCatalog(fake.mock);
    const error = await rejectionOf(update(opts({ addEvents: ['product.update'] }), fake.deps));
    expect(error).toMatchObject({ exitCode: 2 });
    expect(error.message).toMatch(/did you mean product\.updated\?/);
    expect(fake.requests.some((r) => r.url.pathname === '/v1/webhooks/wh_1')).toBe(false);
  });
});

describe('webhooks delete', () => {
  it('on a terminal, asks, naming the webhook by id and URL; a yes sends the DELETE', async () => {
    const fake = fakeDeps({ canPrompt: true, answers: [{ kind: 'confirm', message: /wh_1 \(https:\/\/example\.com\/old\)\?/, answer: true }] });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(() => jsonReply(200, { ...CURRENT, id: 'wh_1', url: 'https://example.com/old' }));
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'DELETE' }).reply(204, '');
    const code = await del({ id: 'wh_1', yes: false }, fake.deps);
    expect(code).toBe(0);
    expect(fake.stdout.text).toContain('wh_1');
  });

  it("on a terminal, a read-only client is refused before the question, not after its yes (the token's scope says so)", async () => {
    const fake = fakeDeps({ canPrompt: true });
    mockToken(fake.mock, { scope: 'webhooks:read' });
    const error = await rejectionOf(del({ id: 'wh_1', yes: false }, fake.deps));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, requiredScope: 'webhooks:write' });
    expect(fake.prompter.asked).toEqual([]);
    expect(fake.requests.filter((r) => r.url.pathname.startsWith('/v1/webhooks'))).toHaveLength(0);
  });

  it('on a terminal, a no deletes nothing and does not succeed', async () => {
    const fake = fakeDeps({ canPrompt: true, answers: [{ kind: 'confirm', answer: false }] });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'GET' }).reply(() => jsonReply(200, { ...CURRENT, id: 'wh_1' }));
    const error = await rejectionOf(del({ id: 'wh_1', yes: false }, fake.deps));
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).not.toBe(0);
    expect(fake.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });

  it('--yes does not ask; --json prints {"id","deleted":true}', async () => {
    const fake = fakeDeps({ json: true, canPrompt: true });
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_1', method: 'DELETE' }).reply(204, '');
    await del({ id: 'wh_1', yes: true }, fake.deps);
    expect(JSON.parse(fake.stdout.text)).toEqual({ id: 'wh_1', deleted: true });
    expect(fake.prompter.asked).toEqual([]);
  });

  it('a 404 is passed on as an ApiError (exit 5 in main)', async () => {
    const fake = fakeDeps();
    mockToken(fake.mock);
    fake.mock.intercept({ path: '/v1/webhooks/wh_gone', method: 'DELETE' }).reply(json(404, { error: { code: 'not_found', message: 'no webhook wh_gone' } }));
    const error = await rejectionOf(del({ id: 'wh_gone', yes: true }, fake.deps));
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(fake.stdout.text).toBe('');
  });
});
