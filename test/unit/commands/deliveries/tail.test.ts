import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Webhook } from '../../../../src/api/shapes.js';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Interceptable } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardRoute, routeFor } from '../../../../src/receiver/routes.js';
import { undiciTransport, type TransportRequest, type TransportResponse } from '../../../../src/api/transport.js';
import { toTransportError } from '../../../../src/net.js';
import { run, type TailOptions } from '../../../../src/commands/deliveries/tail.js';
import { holdCheckpoint } from '../../../../src/commands/deliveries/tail/checkpoint.js';
import { sendRetrieved } from '../../../../src/commands/deliveries/tail/forward.js';
import { sign, verify } from '../../../../src/protocol/signature.js';
import { startEndlessServer } from '../../../helpers/endless.js';
import { CATALOG, T0, fakeDeps, finishFakeDeps, jsonReply, mockToken, queryOf, rejectionOf, type FakeDepsOptions } from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

const SECRET = 'whsec_unit_tail';

interface Attempt {
  id: string;
  delivery_id: string;
  event: string;
  status: string;
  response_code: number | null;
  attempts: number;
  created_at: string;
}

type Reply = ReturnType<typeof jsonReply>;

/**
 * The service's delivery log in memory, answering as the sandbox does: each
 * webhook's attempts newest first, keyset cursors (the position of the last
 * item), retrieve with payload and signature. Tests change it between polls.
 */
class FakeLog {
  webhooks: Array<Webhook> = [];
  private readonly log = new Map<string, Attempt[]>();
  private clock = T0;
  /** Answers given before the log's own, in turn, each to one request it matches (a 429, say). */
  readonly interjections: Array<(path: string) => Reply | undefined> = [];
  readonly requests: string[] = [];
  signatureOverride: string | undefined;

  webhook(id: string): this {
    this.webhooks.push({ id, url: `https://${id}.example/in`, events: ['invoice.paid'], active: true, created_at: new Date(this.tick()).toISOString() });
    this.log.set(id, []);
    return this;
  }

  /** Deleted, with its log (as the sandbox does). */
  remove(id: string): void {
    this.webhooks = this.webhooks.filter((w) => w.id !== id);
    this.log.delete(id);
  }

  private tick(): number {
    this.clock += 1000;
    return this.clock;
  }

  /** A new attempt (the first of its delivery unless `of` names it). */
  add(webhookId: string, id: string, fields: Partial<Attempt> & { of?: string } = {}): Attempt {
    const list = this.log.get(webhookId)!;
    const delivery = fields.of ?? id;
    const attempt: Attempt = {
      id,
      delivery_id: delivery,
      event: fields.event ?? 'invoice.paid',
      status: fields.status ?? 'pending',
      response_code: fields.response_code ?? (fields.status === 'delivered' ? 200 : fields.status === 'failed' ? 500 : null),
      attempts: list.filter((a) => a.delivery_id === delivery).length + 1,
      created_at: new Date(this.tick()).toISOString(),
    };
    list.push(attempt);
    return attempt;
  }

  set(id: string, status: string, response_code: number | null = status === 'delivered' ? 200 : 500): void {
    for (const list of this.log.values()) for (const a of list) if (a.id === id) Object.assign(a, { status, response_code });
  }

  payloadOf(attempt: Attempt) {
    return { id: `inv_${attempt.delivery_id}`, event: attempt.event, amount: { amount: 12900, currency: 'EUR' } };
  }

  private answer(path: string): Reply {
    const url = new URL(path, 'http://x');
    const query = queryOf(path);
    if (url.pathname === '/v1/webhooks/webhook-events') return jsonReply(200, CATALOG);
    if (url.pathname === '/v1/webhooks') return jsonReply(200, { data: this.webhooks, has_more: false, next_cursor: null });
    let match = /^\/v1\/webhooks\/webhook-deliveries\/([^/]+)$/.exec(url.pathname);
    if (match) {
      for (const [webhookId, list] of this.log) {
        const attempt = list.find((a) => a.id === match![1]);
        if (!attempt) continue;
        const payload = this.payloadOf(attempt);
        return jsonReply(200, { ...attempt, webhook_id: webhookId, signature: this.signatureOverride ?? sign(SECRET, JSON.stringify(payload)), payload });
      }
      return jsonReply(404, { error: { code: 'not_found', message: 'no such delivery' } });
    }
    match = /^\/v1\/webhooks\/([^/]+)\/deliveries$/.exec(url.pathname);
    if (match) {
      const list = this.log.get(match[1]!);
      if (!list) return jsonReply(404, { error: { code: 'not_found', message: 'no such webhook' } });
      const limit = Number(query.get('limit') ?? 50);
      const newestFirst = [...list].reverse();
      const cursor = query.get('cursor');
      const from = cursor === null ? 0 : newestFirst.findIndex((a) => list.indexOf(a) < Number(cursor));
      const data = from < 0 ? [] : newestFirst.slice(from, from + limit);
      const more = from >= 0 && from + limit < newestFirst.length;
      return jsonReply(200, { data, has_more: more, next_cursor: more ? String(list.indexOf(data[data.length - 1]!)) : null });
    }
    match = /^\/v1\/webhooks\/([^/]+)$/.exec(url.pathname);
    if (match) {
      const webhook = this.webhooks.find((w) => w.id === match![1]);
      return webhook
        ? jsonReply(200, { ...webhook, url: 'https://example.com/h', events: ['invoice.paid'], active: true })
        : jsonReply(404, { error: { code: 'not_found', message: 'no such webhook' } });
    }
    return jsonReply(404, { error: { code: 'not_found', message: path } });
  }

  install(mock: Interceptable): void {
    mock
      .intercept({ path: (path: string) => path.startsWith('/v1/webhooks'), method: 'GET' })
      .reply((options) => {
        const path = String(options.path);
        this.requests.push(path);
        // The first interjection that has something to say about this request answers it, once.
        const interjection = this.interjections.length > 0 ? this.interjections[0]!(path) : undefined;
        if (interjection) this.interjections.shift();
        return interjection ?? this.answer(path);
      })
      .persist();
  }
}

interface AppRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The local app of --forward-to: records what it gets; `down` makes the next sends fail as a refused connection. */
function fakeApp() {
  const app = {
    received: [] as AppRequest[],
    timeouts: [] as number[],
    down: 0,
    status: 200,
    transport: async (request: TransportRequest): Promise<TransportResponse> => {
      app.timeouts.push(request.timeoutMs);
      if (app.down > 0) {
        app.down -= 1;
        throw toTransportError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3000'), { code: 'ECONNREFUSED' }), 10_000);
      }
      app.received.push({ url: request.url.href, headers: request.headers, body: String(request.body) });
      return { status: app.status, headers: {}, text: 'ok' };
    },
  };
  return app;
}

/**
 * Runs the tail against the log. Between polls (the tail's sleep), the next
 * step changes the log; when the steps are done, the tail is stopped (as by Ctrl-C).
 */
async function tail(
  log: FakeLog,
  options: Partial<TailOptions>,
  steps: Array<() => void>,
  extra: { fake?: FakeDepsOptions; app?: ReturnType<typeof fakeApp> } = {},
) {
  const fake = fakeDeps({ json: true, ...extra.fake });
  mockToken(fake.mock);
  log.install(fake.mock);
  let stop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (stop = resolve));
  const waits: number[] = [];
  let step = 0;
  const sleep = async (ms: number) => {
    waits.push(ms);
    const next = steps[step++];
    if (next) next();
    else stop();
  };
  const code = await run({ intervalMs: 1000, platformName: 'Service', ...options }, { ...fake.deps, stopSignal, sleep, transport: extra.app?.transport });
  const lines = (fake.deps.json ? fake.stdout.text : '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, lines, stderr: fake.stderr.text, stdout: fake.stdout.text, waits, fake };
}

/** [change, attempt id, status] of each attempt line. */
const brief = (lines: Array<Record<string, unknown>>) =>
  lines.filter((l) => l.change === 'new' || l.change === 'status').map((l) => [l.change, l.attempt_id, l.status]);

describe('deliveries tail: following the log', () => {
  it('prints each new attempt once, and each change of status once, across polls; nothing from before it started', async () => {
    const log = new FakeLog().webhook('wh_1');
    log.add('wh_1', 'dlv_old', { status: 'delivered' });
    log.add('wh_1', 'dlv_busy', { status: 'pending' });
    const { code, lines } = await tail(log, {}, [
      () => log.add('wh_1', 'dlv_a'),
      () => undefined,
      () => {
        log.set('dlv_a', 'delivered');
        log.set('dlv_busy', 'failed');
        log.add('wh_1', 'dlv_b', { status: 'failed' });
      },
      () => log.add('wh_1', 'dlv_b2', { of: 'dlv_b', status: 'delivered' }),
      () => undefined,
    ]);
    expect(code).toBe(0);
    expect(brief(lines)).toEqual([
      ['new', 'dlv_a', 'pending'],
      // The attempt under way when it started is followed too.
      ['status', 'dlv_busy', 'failed'],
      ['status', 'dlv_a', 'delivered'],
      ['new', 'dlv_b', 'failed'],
      ['new', 'dlv_b2', 'delivered'],
    ]);
    // The changes showed in the page each poll reads anyway: no attempt was retrieved one by one.
    expect(log.requests.filter((path) => path.startsWith('/v1/webhooks/webhook-deliveries/'))).toEqual([]);
  });

  it('--json: one object per line, of a documented shape', async () => {
    const log = new FakeLog().webhook('wh_1');
    const { lines } = await tail(log, {}, [() => log.add('wh_1', 'dlv_a'), () => log.set('dlv_a', 'failed', null)]);
    expect(lines).toEqual([
      {
        change: 'new',
        time: new Date(T0).toISOString(),
        webhook_id: 'wh_1',
        event: 'invoice.paid',
        status: 'pending',
        previous_status: null,
        response_code: null,
        attempt: 1,
        attempt_id: 'dlv_a',
        delivery_id: 'dlv_a',
        created_at: expect.any(String),
      },
      expect.objectContaining({ change: 'status', attempt_id: 'dlv_a', status: 'failed', previous_status: 'pending', response_code: null }),
    ]);
  });

  it('on a terminal narrower than a line with its ids whole: the ids in their one short form, the fields decided by the width', async () => {
    const lineAt = async (columns: number) => {
      const log = new FakeLog().webhook('wh_aaaaaaaaaaaaaaaaaaaaaaaa');
      const { stdout } = await tail(
        log,
        {},
        [
          () =>
            log.add('wh_aaaaaaaaaaaaaaaaaaaaaaaa', 'dlv_bbbbbbbbbbbbbbbbbbbbbbbb', {
              of: 'dlv_cccccccccccccccccccccccc',
              status: 'delivered',
              event: 'production_order.completed',
            }),
        ],
        {
          fake: { json: false, stdoutTTY: true, stdoutColumns: columns, env: { NO_COLOR: '1' } },
        },
      );
      return stdout.trimEnd();
    };
    const wide = await lineAt(200);
    expect(wide).toContain('production_order.completed');
    expect(wide).toContain('(dlv_bbbbbbbbbbbbbbbbbbbbbbbb)');
    // At 120 the attempt's own id goes, the event type is cut between its words, the webhook id takes its short form;
    // the delivery id stays whole.
    const narrow = await lineAt(120);
    expect(narrow.length).toBeLessThanOrEqual(120);
    expect(narrow).toContain('wh_aaa…aaaa');
    expect(narrow).not.toContain('(dlv_b');
    expect(narrow).toMatch(/dlv_cccccccccccccccccccccccc #\d$/);
    expect(narrow).toContain('production_order.… ');
    // Narrower still, the delivery id takes its short form, the event type goes; the webhook stays, short; the ids keep the same form.
    const narrower = await lineAt(100);
    expect(narrower.length).toBeLessThanOrEqual(100);
    expect(narrower).toContain('wh_aaa…aaaa');
    expect(narrower).toContain('production_order.… ');
    expect(narrower).toMatch(/dlv_cc…cccc #\d$/);
    const at80 = await lineAt(80);
    expect(at80.length).toBeLessThanOrEqual(80);
    expect(at80).toContain('wh_aaa…aaaa');
    expect(at80).not.toContain('production_');
    expect(at80).toMatch(/dlv_cc…cccc #\d$/);
    // At 60 the webhook goes, for the status's words whole (issue 44).
    expect(await lineAt(60)).toMatch(/^\d\d:\d\d {2}delivered +200 +dlv_cc…cccc #\d$/);
  });

  it('the human line: time, webhook, event, status, code, delivery and attempt', async () => {
    const log = new FakeLog().webhook('wh_1');
    const { stdout } = await tail(
      log,
      {},
      [() => log.add('wh_1', 'dlv_a'), () => log.set('dlv_a', 'failed', 503), () => log.add('wh_1', 'dlv_a2', { of: 'dlv_a', status: 'delivered' })],
      {
        fake: { json: false },
      },
    );
    const rows = stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^\d\d:\d\d:\d\d {2}wh_1\s+invoice\.paid\s+pending\s+-\s+dlv_a #1$/);
    expect(rows[1]).toMatch(/wh_1\s+invoice\.paid\s+pending → failed\s+503\s+dlv_a #1$/);
    expect(rows[2]).toMatch(/delivered\s+200\s+dlv_a #2\s+\(dlv_a2\)$/);
    // Fixed places: the delivery starts in the same column on every line.
    expect(new Set(rows.map((row) => row.indexOf('dlv_a #'))).size).toBe(1);
    expect(rows).toHaveLength(3);
  });

  it('picks up a webhook created while it runs, with its whole log', async () => {
    const log = new FakeLog().webhook('wh_1');
    const { lines, stderr } = await tail(log, {}, [
      () => {
        log.webhook('wh_2');
        log.add('wh_2', 'dlv_x', { status: 'delivered' });
        log.add('wh_2', 'dlv_y', { status: 'failed' });
      },
      () => log.add('wh_2', 'dlv_z'),
    ]);
    expect(lines.map((l) => [l.webhook_id, l.attempt_id])).toEqual([
      ['wh_2', 'dlv_x'],
      ['wh_2', 'dlv_y'],
      ['wh_2', 'dlv_z'],
    ]);
    expect(stderr).toContain('following the new webhook wh_2');
  });

  it('reads on when more came than one page (and says it falls behind); a pending attempt off the pages is retrieved by id', async () => {
    const log = new FakeLog().webhook('wh_1');
    const { lines, stderr } = await tail(log, { webhookIds: ['wh_1'] }, [
      () => log.add('wh_1', 'dlv_slow'),
      () => {
        for (let i = 0; i < 60; i++) log.add('wh_1', `dlv_n${i}`, { status: 'delivered' });
      },
      () => log.set('dlv_slow', 'delivered'),
    ]);
    expect(brief(lines)).toEqual([
      ['new', 'dlv_slow', 'pending'],
      ...Array.from({ length: 60 }, (_, i) => ['new', `dlv_n${i}`, 'delivered']),
      ['status', 'dlv_slow', 'delivered'],
    ]);
    expect(stderr).toMatch(/wh_1: 60 new attempts since the last poll, more than one page: falling behind/);
    expect(log.requests).toContain('/v1/webhooks/webhook-deliveries/dlv_slow');
  });

  it('no more retries is said of an attempt read in a page of the log, never of one retrieved alone (a retry may have followed it)', async () => {
    const log = new FakeLog().webhook('wh_1');
    let slow!: Attempt;
    const { stdout } = await tail(
      log,
      { webhookIds: ['wh_1'] },
      [
        () => (slow = log.add('wh_1', 'dlv_slow')),
        () => {
          for (let i = 0; i < 60; i++) log.add('wh_1', `dlv_n${i}`, { status: 'delivered' });
        },
        () => {
          // Both failed with none due, as the service says it: the first is off the pages read, so it is retrieved by id.
          Object.assign(slow, { status: 'failed', response_code: 500, next_attempt_at: null });
          Object.assign(log.add('wh_1', 'dlv_last', { status: 'failed' }), { next_attempt_at: null });
        },
      ],
      { fake: { json: false } },
    );
    const line = (id: string) =>
      stdout
        .split('\n')
        .filter((l) => l.includes(` ${id} #1`))
        .pop() ?? '';
    expect(log.requests).toContain('/v1/webhooks/webhook-deliveries/dlv_slow');
    expect(line('dlv_slow')).toMatch(/ failed {2,}500 {2,}dlv_slow #1$/);
    expect(line('dlv_last')).toMatch(/ failed · no more retries {2,}500 {2,}dlv_last #1$/);
  });

  it('does not read whole logs: a quiet poll is one page per webhook', async () => {
    const log = new FakeLog().webhook('wh_1');
    for (let i = 0; i < 300; i++) log.add('wh_1', `dlv_${i}`, { status: 'delivered' });
    await tail(log, { webhookIds: ['wh_1'] }, [() => undefined, () => undefined]);
    const reads = log.requests.filter((path) => path.startsWith('/v1/webhooks/wh_1/deliveries'));
    expect(reads).toHaveLength(3);
    expect(reads.every((path) => !path.includes('cursor='))).toBe(true);
  });

  it('--status and --event choose the lines (checked against the catalog)', async () => {
    const log = new FakeLog().webhook('wh_1');
    const { lines } = await tail(log, { status: 'failed', events: ['invoice.paid'] }, [
      () => {
        log.add('wh_1', 'dlv_a');
        log.add('wh_1', 'dlv_b', { event: 'product.updated', status: 'failed' });
        log.add('wh_1', 'dlv_c', { status: 'delivered' });
      },
      () => log.set('dlv_a', 'failed'),
    ]);
    expect(brief(lines)).toEqual([['status', 'dlv_a', 'failed']]);
    const fake = fakeDeps();
    mockToken(fake.mock);
    new FakeLog().install(fake.mock);
    const error = await rejectionOf(
      run({ intervalMs: 1000, platformName: 'Service', events: ['invoice.payed'] }, { ...fake.deps, stopSignal: new Promise(() => {}) }),
    );
    expect(error.message).toMatch(/invoice\.payed.*invoice\.paid/);
  });

  it('--count N stops after N lines, exit 0', async () => {
    const log = new FakeLog().webhook('wh_1');
    const { code, lines } = await tail(log, { count: 2 }, [
      () => log.add('wh_1', 'dlv_a'),
      () => {
        log.add('wh_1', 'dlv_b');
        log.add('wh_1', 'dlv_c');
      },
      () => log.add('wh_1', 'dlv_d'),
    ]);
    expect(code).toBe(0);
    expect(brief(lines)).toEqual([
      ['new', 'dlv_a', 'pending'],
      ['new', 'dlv_b', 'pending'],
    ]);
  });

  it('429: waits as the service asks (Retry-After) and goes on; busy beyond that, it backs off and catches up, printing nothing twice', async () => {
    const log = new FakeLog().webhook('wh_1');
    const busy = (path: string) =>
      path.includes('/deliveries') ? jsonReply(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '1' }) : undefined;
    const { lines, stderr, waits, fake } = await tail(log, { webhookIds: ['wh_1'] }, [
      () => {
        log.add('wh_1', 'dlv_a');
        log.interjections.push(busy);
      },
      () => {
        log.set('dlv_a', 'delivered');
        log.add('wh_1', 'dlv_b');
        // More than the client waits out (3 Retry-After waits): the poll fails, tail backs off.
        for (let i = 0; i < 4; i++) log.interjections.push(busy);
      },
      () => undefined,
      () => undefined,
    ]);
    expect(fake.sleeps).toContain(1000);
    expect(brief(lines)).toEqual([
      ['new', 'dlv_a', 'pending'],
      ['status', 'dlv_a', 'delivered'],
      ['new', 'dlv_b', 'pending'],
    ]);
    expect(stderr).toMatch(/cannot poll the delivery log: slow down.*trying again in 2 s/);
    expect(stderr).toMatch(/the service answers again/);
    // The interval, the interval, a backed-off wait, then the interval again.
    expect(waits.slice(0, 4)).toEqual([1000, 1000, 2000, 1000]);
  });

  it('a poll that fails half-way (one webhook read, the next not) loses nothing: the next poll prints it, once', async () => {
    const log = new FakeLog().webhook('wh_1').webhook('wh_2');
    const down = (path: string) =>
      path.startsWith('/v1/webhooks/wh_2/deliveries') ? jsonReply(503, { error: { code: 'unavailable', message: 'down for a moment' } }) : undefined;
    const { lines, stderr } = await tail(log, {}, [
      () => {
        log.add('wh_1', 'dlv_a', { status: 'delivered' });
        log.add('wh_2', 'dlv_b', { status: 'delivered' });
        log.interjections.push(down);
      },
      () => undefined,
    ]);
    expect(stderr).toMatch(/cannot poll the delivery log: down for a moment/);
    expect(brief(lines)).toEqual([
      ['new', 'dlv_a', 'delivered'],
      ['new', 'dlv_b', 'delivered'],
    ]);
  });

  it('a webhook deleted while followed is said and dropped; a --webhook that does not exist is exit 5 material (404)', async () => {
    const log = new FakeLog().webhook('wh_1').webhook('wh_2');
    const { stderr } = await tail(log, {}, [() => log.remove('wh_2')]);
    expect(stderr).toContain('wh_2 is gone (deleted): no longer followed');
    // Named, and all gone: nothing is left to follow, which is not a silent success.
    const named = new FakeLog().webhook('wh_1');
    const alone = await tail(named, { webhookIds: ['wh_1', 'wh_1'] }, [() => named.remove('wh_1'), () => undefined]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('none of the webhooks named with --webhook is left to follow');
    const fake = fakeDeps();
    mockToken(fake.mock);
    new FakeLog().install(fake.mock);
    expect(
      await rejectionOf(run({ intervalMs: 1000, platformName: 'Service', webhookIds: ['wh_nope'] }, { ...fake.deps, stopSignal: new Promise(() => {}) })),
    ).toMatchObject({ status: 404 });
  });
});

describe('deliveries tail --forward-to', () => {
  it('forwards each new delivery once (not its retries) as the service sent it: body, signature and delivery headers; the rebuilt body verifies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
    try {
      writeFileSync(join(dir, 'whsec.txt'), `${SECRET}\n`);
      const log = new FakeLog().webhook('wh_1');
      const app = fakeApp();
      const { lines } = await tail(
        log,
        { webhookIds: ['wh_1'], forwardTo: [forwardRoute('http://127.0.0.1:3000/hooks')], secretFile: join(dir, 'whsec.txt') },
        [
          () => log.add('wh_1', 'dlv_a', { status: 'failed' }),
          () => {
            log.add('wh_1', 'dlv_a2', { of: 'dlv_a', status: 'delivered' });
            log.add('wh_1', 'dlv_b', { event: 'product.updated', status: 'delivered' });
          },
        ],
        { app },
      );
      expect(app.received.map((r) => r.headers['X-Service-Delivery-Id'])).toEqual(['dlv_a', 'dlv_b']);
      const first = app.received[0]!;
      expect(first.url).toBe('http://127.0.0.1:3000/hooks');
      expect(first.body).toBe(JSON.stringify(log.payloadOf({ delivery_id: 'dlv_a', event: 'invoice.paid' } as Attempt)));
      expect(verify(SECRET, first.body, first.headers['X-Service-Signature']!)).toBe(true);
      expect(first.headers).toMatchObject({
        'content-type': 'application/json',
        'X-Service-Event': 'invoice.paid',
        'X-Service-Attempt': '1',
        'X-Service-Attempt-Id': 'dlv_a',
      });
      const forwards = lines.filter((l) => l.change === 'forwarded');
      expect(forwards).toEqual([
        expect.objectContaining({
          delivery_id: 'dlv_a',
          attempt_id: 'dlv_a',
          url: 'http://127.0.0.1:3000/hooks',
          app_status: 200,
          error: null,
          signature_check: 'verified',
        }),
        expect.objectContaining({ delivery_id: 'dlv_b', event: 'product.updated', app_status: 200, signature_check: 'verified' }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says plainly when the rebuilt body does not carry the stored signature, and forwards it all the same', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
    try {
      writeFileSync(join(dir, 'whsec.txt'), 'whsec_of_another_webhook');
      const log = new FakeLog().webhook('wh_1');
      const app = fakeApp();
      const { lines, stderr } = await tail(
        log,
        { webhookIds: ['wh_1'], forwardTo: [forwardRoute('http://127.0.0.1:3000/')], secretFile: join(dir, 'whsec.txt') },
        [() => log.add('wh_1', 'dlv_a')],
        { app },
      );
      expect(app.received).toHaveLength(1);
      expect(lines.find((l) => l.change === 'forwarded')).toMatchObject({ signature_check: 'mismatch' });
      expect(stderr).toMatch(/does not carry the stored signature under the secret in .*whsec\.txt.*not for a bug of its own\. Forwarded all the same/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an app that is down is said once per delivery; it is tried again at the next poll, in order, and each delivery reaches it once', async () => {
    const log = new FakeLog().webhook('wh_1');
    const app = fakeApp();
    const { lines, stderr } = await tail(
      log,
      { forwardTo: [forwardRoute('http://127.0.0.1:3000/')] },
      [
        () => {
          log.add('wh_1', 'dlv_a', { status: 'delivered' });
          log.add('wh_1', 'dlv_b', { status: 'delivered' });
          app.down = 2;
        },
        () => undefined,
        () => log.add('wh_1', 'dlv_c', { status: 'delivered' }),
      ],
      { app },
    );
    expect(app.received.map((r) => r.headers['X-Service-Delivery-Id'])).toEqual(['dlv_a', 'dlv_b', 'dlv_c']);
    // Refused twice, said once; nothing after it jumped the queue.
    expect(lines.filter((l) => l.change === 'forward_failed')).toEqual([
      expect.objectContaining({ delivery_id: 'dlv_a', app_status: null, error: 'connection refused' }),
    ]);
    expect(lines.filter((l) => l.change === 'forwarded').map((l) => l.delivery_id)).toEqual(['dlv_a', 'dlv_b', 'dlv_c']);
    expect(stderr).toBe(
      'whsvc: following every webhook (1 now; new ones are picked up) from now, every 1 s; forwarding each new delivery to http://127.0.0.1:3000/; Ctrl-C to stop\n',
    );
  });

  it("each forward waits the service's 10 s for the app, or what --request-timeout says", async () => {
    for (const [forwardTimeoutMs, expected] of [
      [undefined, 10_000],
      [2_500, 2_500],
    ] as const) {
      const log = new FakeLog().webhook('wh_1');
      const app = fakeApp();
      await tail(log, { forwardTo: [forwardRoute('http://127.0.0.1:3000/')], forwardTimeoutMs }, [() => log.add('wh_1', 'dlv_a', { status: 'delivered' })], {
        app,
      });
      expect(app.timeouts).toEqual([expected]);
    }
  });

  it('the service out of reach while a delivery is retrieved: said, and the delivery is forwarded at the next poll', async () => {
    const log = new FakeLog().webhook('wh_1');
    const app = fakeApp();
    const busy = (path: string) =>
      path.startsWith('/v1/webhooks/webhook-deliveries/') ? jsonReply(503, { error: { code: 'unavailable', message: 'down for a moment' } }) : undefined;
    const { code, lines, stderr } = await tail(
      log,
      { forwardTo: [forwardRoute('http://127.0.0.1:3000/')] },
      [
        () => {
          log.add('wh_1', 'dlv_a', { status: 'delivered' });
          log.interjections.push(busy);
        },
        () => undefined,
      ],
      { app },
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(/cannot retrieve the next delivery to forward: down for a moment/);
    expect(app.received.map((r) => r.headers['X-Service-Delivery-Id'])).toEqual(['dlv_a']);
    expect(lines.filter((l) => l.change === 'forwarded')).toHaveLength(1);
  });
});

describe('deliveries tail --checkpoint', () => {
  it('after a stop, catches up on what came meanwhile, in order, and forwards none twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
    try {
      const checkpoint = join(dir, 'tail.json');
      const log = new FakeLog().webhook('wh_1');
      log.add('wh_1', 'dlv_before', { status: 'delivered' });
      const app = fakeApp();
      const first = await tail(
        log,
        { forwardTo: [forwardRoute('http://127.0.0.1:3000/')], checkpoint },
        [() => log.add('wh_1', 'dlv_a', { status: 'failed' })],
        { app },
      );
      expect(first.stderr).toContain(`no checkpoint at ${checkpoint} yet: starting from now`);
      // While it is stopped: a retry of a delivery forwarded already, and two new ones.
      log.add('wh_1', 'dlv_a2', { of: 'dlv_a', status: 'delivered' });
      log.add('wh_1', 'dlv_b', { status: 'delivered' });
      log.add('wh_1', 'dlv_c', { status: 'failed' });
      const second = await tail(log, { forwardTo: [forwardRoute('http://127.0.0.1:3000/')], checkpoint }, [() => log.add('wh_1', 'dlv_d')], { app });
      expect(second.stderr).toContain(`catching up from the checkpoint ${checkpoint}`);
      expect(brief(second.lines)).toEqual([
        ['new', 'dlv_a2', 'delivered'],
        ['new', 'dlv_b', 'delivered'],
        ['new', 'dlv_c', 'failed'],
        ['new', 'dlv_d', 'pending'],
      ]);
      expect(app.received.map((r) => r.headers['X-Service-Delivery-Id'])).toEqual(['dlv_a', 'dlv_b', 'dlv_c', 'dlv_d']);
      const saved = JSON.parse(readFileSync(checkpoint, 'utf8'));
      expect(saved).toMatchObject({
        whsvc_tail_checkpoint: 1,
        base_url: 'http://127.0.0.1:4010',
        webhooks: { wh_1: { after: { id: 'dlv_d' } } },
        forwarded: ['dlv_a', 'dlv_b', 'dlv_c', 'dlv_d'],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--count N stops after N lines, but every delivery the poll brought is forwarded and checkpointed: none is lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
    try {
      const checkpoint = join(dir, 'tail.json');
      const log = new FakeLog().webhook('wh_1');
      const app = fakeApp();
      const first = await tail(
        log,
        { forwardTo: [forwardRoute('http://127.0.0.1:3000/')], checkpoint, count: 1 },
        [
          () => {
            for (const id of ['dlv_a', 'dlv_b', 'dlv_c']) log.add('wh_1', id, { status: 'delivered' });
          },
        ],
        { app },
      );
      expect(first.code).toBe(0);
      expect(brief(first.lines)).toEqual([['new', 'dlv_a', 'delivered']]);
      expect(app.received.map((r) => r.headers['X-Service-Delivery-Id'])).toEqual(['dlv_a', 'dlv_b', 'dlv_c']);
      const second = await tail(log, { forwardTo: [forwardRoute('http://127.0.0.1:3000/')], checkpoint }, [], { app });
      expect(second.code).toBe(0);
      expect(app.received).toHaveLength(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('one tail per checkpoint: a second is refused (exit 2) while the first runs; a lock left by a process that is gone is taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
    try {
      const checkpoint = join(dir, 'tail.json');
      const release = holdCheckpoint(checkpoint);
      const fake = fakeDeps();
      const error = await rejectionOf(
        run(
          { intervalMs: 1000, platformName: 'Service', checkpoint },
          { ...fake.deps, stopSignal: new Promise(() => undefined), sleep: async () => undefined },
        ),
      );
      expect(error).toMatchObject({ exitCode: 2 });
      expect(error.message).toContain(`the checkpoint ${checkpoint} is in use by another tail (process ${process.pid})`);
      release();
      expect(existsSync(`${checkpoint}.lock`)).toBe(false);
      // kill -9 leaves the lock behind: a process id that no longer runs.
      writeFileSync(`${checkpoint}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname() }));
      const { code } = await tail(new FakeLog().webhook('wh_1'), { checkpoint }, []);
      expect(code).toBe(0);
      expect(existsSync(`${checkpoint}.lock`)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a delivery the app did not take holds the position back: the next run forwards it first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
    try {
      const checkpoint = join(dir, 'tail.json');
      const log = new FakeLog().webhook('wh_1');
      const app = fakeApp();
      await tail(
        log,
        { forwardTo: [forwardRoute('http://127.0.0.1:3000/')], checkpoint },
        [
          () => {
            log.add('wh_1', 'dlv_a', { status: 'delivered' });
            log.add('wh_1', 'dlv_b', { status: 'delivered' });
            app.down = 100;
          },
        ],
        { app },
      );
      expect(app.received).toHaveLength(0);
      app.down = 0;
      const second = await tail(log, { forwardTo: [forwardRoute('http://127.0.0.1:3000/')], checkpoint }, [], { app });
      expect(app.received.map((r) => r.headers['X-Service-Delivery-Id'])).toEqual(['dlv_a', 'dlv_b']);
      expect(brief(second.lines).map((l) => l[1])).toEqual(['dlv_a', 'dlv_b']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a corrupt checkpoint is one clear error, exit 1, and the file is left as it was; another service's is a usage error", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'whsvc-tail-'));
    try {
      const checkpoint = join(dir, 'tail.json');
      writeFileSync(checkpoint, '{"whsvc_tail_checkpoint": 1, "base_url": ');
      const fake = fakeDeps();
      const deps = { ...fake.deps, stopSignal: new Promise<void>(() => {}) };
      const error = await rejectionOf(run({ intervalMs: 1000, platformName: 'Service', checkpoint }, deps));
      expect(error).toMatchObject({
        exitCode: 1,
        message: expect.stringMatching(/checkpoint .*tail\.json is not one that deliveries tail wrote \(it is not JSON\)/),
      });
      expect(readFileSync(checkpoint, 'utf8')).toBe('{"whsvc_tail_checkpoint": 1, "base_url": ');
      writeFileSync(
        checkpoint,
        JSON.stringify({
          whsvc_tail_checkpoint: 1,
          base_url: 'https://api.example.com',
          forward_to: null,
          saved_at: new Date(T0).toISOString(),
          webhooks: {},
          forwarded: [],
        }),
      );
      expect(await rejectionOf(run({ intervalMs: 1000, platformName: 'Service', checkpoint }, deps))).toMatchObject({ exitCode: 2 });
      expect(await rejectionOf(run({ intervalMs: 1000, platformName: 'Service', checkpoint: join(dir, 'missing', 'tail.json') }, deps))).toMatchObject({
        exitCode: 2,
      });
      expect(fake.requests).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--forward-to routes', () => {
  it('the first route that matches the event type wins; a bare URL, last, takes the rest; * matches within a name', () => {
    const routes = ['invoice.*=http://127.0.0.1:3000/invoices', 'sales_order.created=http://127.0.0.1:5000/', 'http://127.0.0.1:4000/hooks'].map(forwardRoute);
    expect(routeFor(routes, 'invoice.paid')?.url.href).toBe('http://127.0.0.1:3000/invoices');
    expect(routeFor(routes, 'sales_order.created')?.url.href).toBe('http://127.0.0.1:5000/');
    expect(routeFor(routes, 'product.updated')?.label).toBe('*');
    expect(routeFor(routes, 'invoice.paid.late')?.label).toBe('*');
    expect(
      routeFor(
        routes.filter((route) => route.pattern !== null),
        'product.updated',
      ),
    ).toBeUndefined();
  });
});

describe('deliveries tail --forward-to, to an app that answers without end (over a real connection)', () => {
  it("reads the app's answer up to its head: its status stands, and the connection is closed", async () => {
    const app = await startEndlessServer({ status: 200, total: 64 * 1024 * 1024, contentType: 'text/plain' });
    const agent = new Agent();
    try {
      const record = { id: 'dlv_1', delivery_id: 'dlv_1', event: 'invoice.paid', status: 'delivered', attempts: 1, created_at: new Date(T0).toISOString() };
      const retrieved = { record, body: '{}', headers: { 'X-Service-Event': 'invoice.paid' }, signatureCheck: 'not_checked' as const };
      const outcome = await sendRetrieved({ send: undiciTransport(agent) }, new URL(app.url), '/hooks', retrieved as never);
      expect(outcome).toMatchObject({ kind: 'answered', status: 200 });
      expect(app.written()).toBeLessThan(64 * 1024 * 1024);
      await app.untilCutOff(1);
    } finally {
      await agent.destroy();
      await app.close();
    }
  });
});
