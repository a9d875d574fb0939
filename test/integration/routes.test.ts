import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, jsonLines, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { signatureOf } from '../helpers/delivery.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// --forward-to routes by event type, for listen and tail: the first pattern that matches wins, a bare URL takes the rest.

let sandbox: SandboxInProcess;
let invoices: Receiver;
let rest: Receiver;
let workDir: string;

beforeAll(async () => {
  [sandbox, invoices, rest] = await Promise.all([startSandboxInProcess(['--quiet']), startReceiver(), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-routes-'));
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), invoices?.close(), rest?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

/** whsvc as the user of the sandbox. */
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));
const withCredentials = (url: string) => url.replace('http://', 'http://someone:pa55word@');
const eventOf = (body: string) => (JSON.parse(body) as { event: string }).event;
const EVENTS = ['invoice.paid', 'product.updated', 'sales_order.created'];

describe('--forward-to [PATTERN=]URL', () => {
  it('listen sends each verified delivery by the route of its event type, and names the route', async () => {
    invoices.received.length = 0;
    rest.received.length = 0;
    const secretFile = join(workDir, 'listen.txt');
    const listener = await startListenInProcess([
      '--secret-file',
      secretFile,
      '--count',
      '3',
      '--timeout',
      '60',
      '--json',
      '--forward-to',
      `invoice.*=${invoices.url}/invoices`,
      '--forward-to',
      `${rest.url}/rest`,
    ]);
    await createWebhook(cli, `${listener.url}/hooks`, EVENTS.join(','), ['--secret-file', secretFile]);
    for (const event of EVENTS) await trigger(cli, event);
    expect(await listener.exit).toBe(0);
    expect(invoices.received.map((request) => [request.path, eventOf(request.body)])).toEqual([['/invoices', 'invoice.paid']]);
    expect(rest.received.map((request) => eventOf(request.body)).sort()).toEqual(['product.updated', 'sales_order.created']);
    const lines = listener.deliveries();
    expect(lines.find((line) => line.event === 'invoice.paid').forward).toMatchObject({ route: 'invoice.*', status: 200 });
    expect(lines.find((line) => line.event === 'product.updated').forward).toMatchObject({ route: '*', status: 200 });
  });

  it('deliveries tail forwards each new delivery once by its route; one no route takes is shown, not forwarded', async () => {
    invoices.received.length = 0;
    rest.received.length = 0;
    const webhookId = (await createWebhook(cli, 'http://127.0.0.1:9/none', EVENTS.join(','))).id;
    for (const event of EVENTS) await trigger(cli, event);
    const tail = await cli([
      'deliveries',
      'tail',
      '--webhook',
      webhookId,
      '--since',
      '1h',
      '--count',
      '3',
      '--json',
      '--forward-to',
      `invoice.*=${withCredentials(invoices.url)}/`,
      '--forward-to',
      `sales_order.*=${rest.url}/`,
    ]);
    expect(tail.code, tail.stderr).toBe(0);
    // A user name and password in a route's URL are never shown: not where tail says what it forwards, not on its lines.
    expect(tail.stdout + tail.stderr).not.toContain('pa55word');
    expect(tail.stderr).toContain(`invoice.*=${invoices.url.replace('http://', 'http://***@')}/`);
    expect(invoices.received.map((request) => eventOf(request.body))).toEqual(['invoice.paid']);
    // A route URL without a path: the webhook's own path, as listen forwards to the path it was received at.
    expect(invoices.received[0]!.path).toBe('/none');
    expect(rest.received.map((request) => eventOf(request.body))).toEqual(['sales_order.created']);
    const forwards = jsonLines(tail.stdout).filter((line) => line.change === 'forwarded');
    expect(forwards.find((line) => line.route === 'invoice.*').url).toBe(`${invoices.url.replace('http://', 'http://***@')}/`);
    expect(forwards.map((line) => [line.event, line.route]).sort()).toEqual([
      ['invoice.paid', 'invoice.*'],
      ['sales_order.created', 'sales_order.*'],
    ]);
  });

  it("a route an earlier one shadows is refused at start, exit 2, naming both; a URL's password never shown", async () => {
    for (const [command, routes, refused, earlier] of [
      [
        'listen',
        ['invoice.*=http://127.0.0.1:1/a', 'invoice.paid=http://127.0.0.1:2/b'],
        'invoice.paid=http://127.0.0.1:2/b',
        'invoice.*=http://127.0.0.1:1/a',
      ],
      ['listen', ['*=http://someone:pa55word@127.0.0.1:1/a', 'http://127.0.0.1:2/b'], 'http://127.0.0.1:2/b', 'http://***@127.0.0.1:1/a'],
      ['tail', ['http://127.0.0.1:1/a', 'sales_order.*=http://127.0.0.1:2/b'], 'sales_order.*=http://127.0.0.1:2/b', 'http://127.0.0.1:1/a'],
    ] as const) {
      const args = [
        ...(command === 'listen' ? ['listen', '--port', '0', '--timeout', '5'] : ['deliveries', 'tail', '--timeout', '5']),
        ...routes.flatMap((route) => ['--forward-to', route]),
      ];
      const result = await cli(args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`--forward-to ${refused} could never be taken: the earlier route ${earlier} takes every`);
      expect(result.stderr).not.toMatch(/pa55word|ready at/);
    }
  });

  it("listen: a forward URL's user name and password are never shown, on stderr or in --json", async () => {
    invoices.received.length = 0;
    const secret = 'whsec_routes_credentials';
    const listener = await startListenInProcess([
      '--secret',
      secret,
      '--count',
      '1',
      '--timeout',
      '30',
      '--json',
      '--forward-to',
      `invoice.*=${withCredentials(invoices.url)}/inv`,
    ]);
    const body = JSON.stringify({ event: 'invoice.paid', id: 'inv_1' });
    const answer = await fetch(`${listener.url}/hooks`, {
      method: 'POST',
      headers: { 'x-service-signature': signatureOf(secret, body), 'x-service-event': 'invoice.paid' },
      body,
    });
    expect(answer.status).toBe(200);
    expect(await listener.exit).toBe(0);
    expect(invoices.received).toHaveLength(1);
    expect(listener.stdout() + listener.stderr()).not.toContain('pa55word');
    expect(listener.stderr()).toContain(`forwarding verified deliveries to invoice.*=${invoices.url.replace('http://', 'http://***@')}/inv`);
    const receipt = JSON.parse(listener.stdout().trim().split('\n').at(-1)!);
    expect(receipt.forward).toMatchObject({ url: `${invoices.url.replace('http://', 'http://***@')}/inv`, route: 'invoice.*', status: 200 });
  });

  it('listen with no secret says what it forwards: each signed delivery, unchecked; an unsigned one is answered and not forwarded (issue 44)', async () => {
    invoices.received.length = 0;
    const listener = await startListenInProcess(['--timeout', '30', '--json', '--forward-to', `${invoices.url}/inv`]);
    try {
      expect(listener.stderr()).toContain(
        `verifying with no secret (signatures are not checked); forwarding signed deliveries, unchecked (an unsigned one is answered, not forwarded), to ${invoices.url}/inv`,
      );
      const body = JSON.stringify({ event: 'invoice.paid', id: 'inv_2' });
      const signed = await fetch(`${listener.url}/hooks`, {
        method: 'POST',
        headers: { 'x-service-signature': signatureOf('whsec_any', body), 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_a' },
        body,
      });
      const unsigned = await fetch(`${listener.url}/hooks`, {
        method: 'POST',
        headers: { 'x-service-event': 'invoice.paid', 'x-service-delivery-id': 'dlv_b' },
        body,
      });
      expect([signed.status, unsigned.status]).toEqual([200, 200]);
      // The listener's own lines are the marker: both were handled, and only the signed one reached the app.
      await listener.until(() => jsonLines(listener.stdout()).length >= 3, 'both receipts');
      expect(invoices.received).toHaveLength(1);
    } finally {
      await listener.stop('SIGTERM');
    }
  });
});
