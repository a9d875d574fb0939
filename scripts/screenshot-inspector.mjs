// Remakes docs/inspector.png, the picture of the sandbox inspector in docs/inspector.md:
// starts the built sandbox and a local receiver, makes a few deliveries (one
// endpoint fails twice before it takes them, one is down), opens the page in
// headless Chromium (Debian's chromium, through playwright-core) and saves a
// screenshot.
//
//   ./run npm run build && ./run node scripts/screenshot-inspector.mjs [--out FILE] [--width PX] [--height PX] [--scheme light|dark]
//
// CHROMIUM=/path/to/chromium picks another browser binary.
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { startSandbox } from './sandbox-process.mjs';
import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'docs/inspector.png' },
    width: { type: 'string', default: '1280' },
    height: { type: 'string', default: '820' },
    scheme: { type: 'string', default: 'light' },
  },
});
const out = new URL(values.out, `file://${process.cwd()}/`).pathname;
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** The receiver: /orders takes everything, /billing fails each delivery's first two attempts, /legacy is down. */
function startReceiver() {
  const seen = new Map();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['x-service-delivery-id'];
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      const answer = (status, body) =>
        setTimeout(
          () => {
            res.writeHead(status, { 'content-type': 'application/json' });
            res.end(JSON.stringify(body));
          },
          20 + Math.floor(Math.random() * 60),
        );
      if (req.url === '/billing' && count <= 2) return answer(500, { error: 'database is locked, try again' });
      if (req.url === '/legacy') return answer(503, { error: 'maintenance' });
      answer(200, { received: true });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function call(base, method, path, body, token) {
  const response = await fetch(base + path, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const receiver = await startReceiver();
const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;
const { child, info } = await startSandbox(['--quiet', '--retry-base-ms', '1000', '--max-attempts', '3'], { onStderr: (chunk) => process.stderr.write(chunk) });
let browser;
try {
  const base = info.base_url;
  const { access_token: token } = await call(base, 'POST', '/v1/oauth/token', {
    grant_type: 'client_credentials',
    client_id: info.client_id,
    client_secret: info.client_secret,
  });
  await call(base, 'POST', '/v1/webhooks', { url: `${receiverUrl}/legacy`, events: ['product.updated'] }, token);
  await call(base, 'POST', '/v1/webhooks', { url: `${receiverUrl}/orders`, events: ['sales_order.created', 'inventory.changed'] }, token);
  await call(base, 'POST', '/v1/webhooks', { url: `${receiverUrl}/billing`, events: ['invoice.paid', 'sales_order.created'] }, token);
  const events = ['sales_order.created', 'inventory.changed', 'product.updated', 'sales_order.created', 'inventory.changed'];
  for (const type of events) {
    await call(base, 'POST', '/_sandbox/events', { type });
    await sleep(150);
  }
  const paid = await call(base, 'POST', '/_sandbox/events', {
    type: 'invoice.paid',
    data: { id: 'inv_1042', amount: { amount: 12900, currency: 'EUR' } },
  });
  // The failing attempts are retried 1 s and 2 s later: let the schedule play out.
  await sleep(4500);

  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  const page = await browser.newPage({
    viewport: { width: Number(values.width), height: Number(values.height) },
    colorScheme: values.scheme === 'dark' ? 'dark' : 'light',
  });
  await page.goto(info.inspector_url);
  await page.waitForSelector('.delivery');
  await page.click(`.delivery[data-id="${paid.deliveries[0]}"] button`);
  await page.waitForSelector('.timeline .attempt');
  await sleep(500);
  mkdirSync(dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  process.stdout.write(`wrote ${out}\n`);
} finally {
  await browser?.close();
  child.kill('SIGTERM');
  receiver.close();
  receiver.closeAllConnections();
}
