import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trigger as triggerEvents } from '../helpers/cli.js';
import { getToken, http, postEvent, postWebhook } from '../helpers/http.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { GATHERED_TIMEOUT, step } from '../helpers/steps.js';

// The inspector in a real headless Chromium (Debian's `chromium`, driven by
// playwright-core), against `whsvc sandbox start` run in this process: it lists a
// webhook, shows a delivery arriving live after `whsvc sandbox trigger`, opens
// it, retries a failed one, shows a payload holding HTML as text, and shows no
// secret. Each test walks one page through its steps in turn. Waits are generous
// and nothing is timed: the machine is shared. What the inspector answers without
// a browser (its routes, the token off loopback): test/integration/inspector-http.test.ts.

// The functions given to page.evaluate and waitForFunction run in the page: the tests' own types have no DOM.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any, window: any;

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium package`);
if (!available) process.stderr.write(`inspector-browser: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or CHROMIUM=/path)\n`);

const WAIT = { timeout: 45_000 };
const HTML_PAYLOAD = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold?</b>';
const HTML_ANSWER = '<h1 id="injected">hello from the receiver</h1><script>window.__pwned = 3</script>';

/** The status the receiver answers on each path (200 when unset); /html answers with HTML. */
const statusByPath = new Map<string, number>();

function startTestReceiver(): Promise<Receiver> {
  return startReceiver((request) => {
    const status = statusByPath.get(request.path) ?? 200;
    return request.path === '/html'
      ? { status, body: HTML_ANSWER, headers: { 'content-type': 'text/html' } }
      : { status, body: JSON.stringify({ received: true }), headers: { 'content-type': 'application/json' } };
  });
}

describe.skipIf(!available)('the inspector in headless Chromium', { timeout: GATHERED_TIMEOUT }, () => {
  let sandbox: SandboxInProcess;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let base: string;
  let token: string;
  const secrets: string[] = [];
  const webhooks: Record<string, { id: string; url: string }> = {};

  /** A webhook to the receiver at `path`; its secret is one the page must never show. */
  async function createWebhook(path: string, events: string[]) {
    const created = await postWebhook(base, token, receiver.url + path, events);
    secrets.push(created.signing_secret);
    return created;
  }

  /** `whsvc sandbox trigger`: its one delivery (each event type here has one webhook). */
  async function trigger(type: string, data?: Record<string, unknown>): Promise<string> {
    const deliveries = await triggerEvents(inProcessCliWith({ WHSVC_BASE_URL: base }), type, data ? { data } : {});
    expect(deliveries).toHaveLength(1);
    return deliveries[0]!;
  }

  async function open(id: string): Promise<void> {
    await page.click(`.delivery[data-id="${id}"] button`, WAIT);
    await page.waitForFunction((wanted) => document.getElementById('detail-id')?.textContent === wanted, id, WAIT);
  }

  /** The page loaded again, as a user opening the inspector now would see it: the first page of the list, live. */
  async function reopen(): Promise<void> {
    await page.goto(sandbox.info.inspector_url);
    await page.waitForSelector('#live.ok');
    await page.waitForSelector('.delivery');
  }

  beforeAll(async () => {
    receiver = await startTestReceiver();
    // One automatic attempt: a failing delivery is failed at once, and stays so until retried.
    sandbox = await startSandboxInProcess(['--max-attempts', '1']);
    base = sandbox.info.base_url;
    token = await getToken(base, sandbox.info.client_id, sandbox.info.client_secret);
    secrets.push(token, sandbox.info.client_secret, sandbox.info.readonly_client_secret);
    webhooks.orders = await createWebhook('/orders', ['invoice.paid']);
    webhooks.flaky = await createWebhook('/flaky', ['sales_order.created']);
    webhooks.html = await createWebhook('/html', ['product.updated']);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(WAIT.timeout);
    await page.goto(sandbox.info.inspector_url);
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await receiver?.close();
  });

  it('follows the sandbox live: its address, the webhooks, a delivery arriving after `whsvc sandbox trigger`, opened, named by a link, retried, HTML as text, the filters, and no secret anywhere', async () => {
    await step("sandbox start printed the inspector's address: the base address, no token on loopback", () => {
      expect(sandbox.info.inspector_url).toBe(`${base}/`);
    });
    await step('lists the webhooks, with their url, events and state', async () => {
      await page.waitForSelector(`.webhook[data-id="${webhooks.orders!.id}"]`);
      const card = page.locator(`.webhook[data-id="${webhooks.orders!.id}"]`);
      expect(await card.locator('.webhook-url').textContent()).toBe(webhooks.orders!.url);
      expect(await card.locator('.chip').allTextContents()).toEqual(['invoice.paid']);
      expect(await card.locator('.pill').textContent()).toBe('active');
      expect(await page.locator('.webhook').count()).toBe(3);
    });
    await step('shows a delivery arriving live after `whsvc sandbox trigger`, without a reload', async () => {
      await page.evaluate(() => (window.__sameDocument = true));
      await page.waitForSelector('#live.ok');
      const id = await trigger('invoice.paid', { id: 'inv_browser_1' });
      const row = page.locator(`.delivery[data-id="${id}"]`);
      await row.waitFor(WAIT);
      await page.waitForFunction((wanted) => document.querySelector(`.delivery[data-id="${wanted}"] .badge`)?.textContent?.includes('delivered'), id, WAIT);
      expect(await row.locator('.event').textContent()).toBe('invoice.paid');
      expect(await row.locator('.code').textContent()).toBe('200');
      // The newest first, and the same document all along.
      expect(await page.locator('.delivery').first().getAttribute('data-id')).toBe(id);
      expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
    });
    await step('opens a delivery: its attempts on a time line, the payload pretty-printed, headers, answer and a verify line', async () => {
      const id = await trigger('invoice.paid', { id: 'inv_browser_2' });
      await page.waitForFunction((wanted) => document.querySelector(`.delivery[data-id="${wanted}"] .badge`)?.textContent?.includes('delivered'), id, WAIT);
      await open(id);
      const attempts = page.locator('#detail .timeline .attempt');
      expect(await attempts.count()).toBe(1);
      expect(await attempts.first().textContent()).toContain('#1');
      expect(await attempts.first().textContent()).toContain('delivered');
      const payload = await page.locator('#detail pre.json').textContent();
      expect(JSON.parse(payload!)).toMatchObject({ id: 'inv_browser_2', event: 'invoice.paid' });
      expect(payload).toContain('\n  "id": "inv_browser_2"');
      expect(await page.locator('#detail table.headers').textContent()).toContain('X-Service-Delivery-Id');
      expect(await page.locator('#detail .sig').textContent()).toMatch(/X-Service-Signature: sha256=[0-9a-f]{64}/);
      expect(await page.locator('#detail pre.cmd').textContent()).toMatch(
        /^printf '%s' '\{.*\}' \| whsvc verify --signature sha256=[0-9a-f]{64} --secret-file \.\/whsec\.txt$/,
      );
      expect(page.url()).toContain(`#${id}`);
    });
    await step('opens the delivery a link names, also in a tab already open (the hash changes)', async () => {
      // Two deliveries the tests above made (none made here: the tests below count them).
      const [first, second] = await page.locator('.delivery').evaluateAll((rows: any[]) => rows.slice(0, 2).map((row) => row.dataset.id as string));
      await open(first!);
      await page.evaluate((id) => {
        window.location.hash = id;
      }, second!);
      await page.waitForFunction((wanted) => document.getElementById('detail-id')?.textContent === wanted, second!, WAIT);
      expect(page.url()).toContain(`#${second}`);
    });
    await step('retries a failed delivery and shows the new attempt', async () => {
      statusByPath.set('/flaky', 503);
      const id = await trigger('sales_order.created');
      await page.waitForFunction((wanted) => document.querySelector(`.delivery[data-id="${wanted}"] .badge`)?.textContent?.includes('failed'), id, WAIT);
      await open(id);
      expect(await page.locator('#detail .timeline .attempt').count()).toBe(1);
      expect(await page.locator('#detail .timeline').textContent()).toContain('endpoint answered 503');
      statusByPath.set('/flaky', 200);
      await page.click('#detail button:has-text("Retry now")');
      await page.waitForFunction(() => document.querySelectorAll('#detail .timeline .attempt').length === 2, undefined, WAIT);
      const second = page.locator('#detail .timeline .attempt').nth(1);
      await page.waitForFunction(() => document.querySelectorAll('#detail .timeline .attempt')[1]?.textContent?.includes('delivered'), undefined, WAIT);
      expect(await second.textContent()).toContain('#2');
      expect(await page.locator('#detail .title-row .badge').textContent()).toContain('delivered');
      await page.waitForFunction((wanted) => document.querySelector(`.delivery[data-id="${wanted}"] .badge`)?.textContent?.includes('delivered'), id, WAIT);
      expect(await second.locator('.code').textContent()).toBe('200');
    });
    await step('shows a payload and an answer holding HTML as the characters, running nothing', async () => {
      const id = await trigger('product.updated', { note: HTML_PAYLOAD });
      await page.waitForFunction((wanted) => document.querySelector(`.delivery[data-id="${wanted}"] .badge`)?.textContent?.includes('delivered'), id, WAIT);
      await open(id);
      const payload = await page.locator('#detail pre.json').textContent();
      expect(JSON.parse(payload!).note).toBe(HTML_PAYLOAD);
      expect(await page.locator('#detail').textContent()).toContain(HTML_ANSWER);
      expect(await page.locator('#detail script, #detail img, #detail b, #injected').count()).toBe(0);
      expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    });
    await step('filters by status, event type and webhook, and finds a delivery by its id', async () => {
      await page.selectOption('#f-status', 'failed');
      await page.waitForFunction(() => [...document.querySelectorAll('.delivery .badge')].every((b) => b.textContent?.includes('failed')), undefined, WAIT);
      await page.selectOption('#f-status', '');
      await page.selectOption('#f-event', 'product.updated');
      await page.waitForFunction(
        () => {
          const events = [...document.querySelectorAll('.delivery .event')].map((e) => e.textContent);
          return events.length === 1 && events[0] === 'product.updated';
        },
        undefined,
        WAIT,
      );
      await page.selectOption('#f-event', '');
      await page.click(`.webhook[data-id="${webhooks.orders!.id}"] .webhook-main`);
      await page.waitForFunction(() => document.querySelectorAll('.delivery').length === 2, undefined, WAIT);
      await page.click('#all-webhooks');
      await page.waitForFunction(() => document.querySelectorAll('.delivery').length === 4, undefined, WAIT);
      const last = await page.locator('.delivery').last().getAttribute('data-id');
      await page.fill('#f-q', last!);
      await page.waitForFunction(
        (wanted) => {
          const rows = [...document.querySelectorAll('.delivery')];
          return rows.length === 1 && rows[0]!.dataset.id === wanted && document.getElementById('detail-id')?.textContent === wanted;
        },
        last,
        WAIT,
      );
      await page.fill('#f-q', '');
    });
    await step('shows no secret in the page or in any of its data routes', async () => {
      const texts: string[] = [await page.content()];
      const routes = [
        '/',
        '/_sandbox/inspector/app.js',
        '/_sandbox/inspector/style.css',
        '/_sandbox/inspector/api/overview',
        '/_sandbox/inspector/api/deliveries?limit=200',
      ];
      for (const route of routes) texts.push((await http(base, 'GET', route)).text);
      const ids = ((await http(base, 'GET', '/_sandbox/inspector/api/deliveries?limit=200')).json.data as Array<{ id: string }>).map((d) => d.id);
      expect(ids.length).toBe(4);
      for (const id of ids) texts.push((await http(base, 'GET', `/_sandbox/inspector/api/deliveries/${id}`)).text);
      expect(secrets).toHaveLength(6);
      for (const text of texts) for (const secret of secrets) expect(text.includes(secret)).toBe(false);
    });
  });

  it("a long log: its newest 50 and older ones on demand, past 200 rows none lost to a live refresh, a webhook deleted while shown, and a phone's width", async () => {
    await step('pages: a long log shows its newest 50, and older ones on demand', async () => {
      for (let i = 0; i < 60; i += 1) await postEvent(base);
      // Opened afresh once all are in: live refreshes while they came in (as on a loaded machine) grow the list as it is shown instead.
      await reopen();
      await page.waitForFunction(() => document.querySelectorAll('.delivery').length === 50 && !document.getElementById('more').hidden, undefined, WAIT);
      await page.click('#more');
      await page.waitForFunction(() => document.querySelectorAll('.delivery').length === 64 && document.getElementById('more').hidden, undefined, WAIT);
      // New deliveries on top of a list loaded to its end: the older rows stay, and nothing is left to load.
      for (let i = 0; i < 5; i += 1) await postEvent(base);
      await page.waitForFunction(() => document.querySelectorAll('.delivery').length === 69 && document.getElementById('more').hidden, undefined, WAIT);
    });
    await step('past 200 rows shown, a live refresh loses none of them: rows pushed below the window stay', async () => {
      for (let i = 0; i < 150; i += 1) await postEvent(base);
      const total = 69 + 150;
      // Every row shown: opened afresh, then older pages loaded until there are none.
      await reopen();
      for (let i = 0; i < 10; i += 1) {
        await page.waitForFunction(() => document.querySelectorAll('.delivery').length >= 50, undefined, WAIT);
        if (await page.locator('#more').isHidden()) break;
        const before = await page.locator('.delivery').count();
        await page.click('#more');
        await page.waitForFunction((n) => document.querySelectorAll('.delivery').length > n || document.getElementById('more').hidden, before, WAIT);
      }
      await page.waitForFunction((n) => document.querySelectorAll('.delivery').length === n, total, WAIT);
      for (let i = 0; i < 10; i += 1) await postEvent(base);
      await page.waitForFunction((n) => document.querySelectorAll('.delivery').length === n, total + 10, WAIT);
      const ids = await page.locator('.delivery').evaluateAll((rows: any[]) => rows.map((row) => row.dataset.id as string));
      expect(new Set(ids).size).toBe(total + 10);
    });
    await step('follows a webhook deleted while its deliveries are shown: it goes, and every delivery shows again', async () => {
      await page.click(`.webhook[data-id="${webhooks.html!.id}"] .webhook-main`);
      await page.waitForFunction(() => document.querySelectorAll('.delivery').length === 1, undefined, WAIT);
      expect((await http(base, 'DELETE', `/v1/webhooks/${webhooks.html!.id}`, { token })).status).toBe(204);
      await page.waitForFunction(
        () =>
          document.querySelectorAll('.webhook').length === 2 &&
          document.querySelectorAll('.delivery').length === 50 &&
          document.getElementById('all-webhooks').getAttribute('aria-pressed') === 'true',
        undefined,
        WAIT,
      );
    });
    await step("reads well at a phone's width: the list, then one delivery in its place", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${base}/`);
      await page.waitForSelector('.delivery');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.locator('.delivery button').first().click();
      await page.waitForSelector('#detail .timeline .attempt');
      expect(await page.locator('.list-pane').isVisible()).toBe(false);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.click('#detail .back');
      await page.waitForSelector('.list-pane', { state: 'visible' });
    });
  });
});

describe.skipIf(!available)('the inspector with many webhooks', { timeout: GATHERED_TIMEOUT }, () => {
  let sandbox: SandboxInProcess;
  let browser: Browser;
  let token: string;
  const ids: string[] = [];
  const EVENTS = ['invoice.paid', 'product.updated', 'sales_order.created', 'inventory.changed'];

  async function createWebhook(i: number) {
    const body = { url: `https://hooks${i % 3}.example.com/api/v2/endpoint-${i}`, events: [EVENTS[i % 4], EVENTS[(i + 1) % 4]] };
    const result = await http(sandbox.info.base_url, 'POST', '/v1/webhooks', { token, body });
    expect(result.status, result.text).toBe(201);
    return result.json.id as string;
  }

  /** The ids of the webhook cards the sidebar shows (those its filter leaves). */
  const shownIn = (page: Page) => page.locator('.webhook:visible').evaluateAll((cards: any[]) => cards.map((card) => card.dataset.id as string));

  beforeAll(async () => {
    // A manual clock: its panel shows too, under the trigger's. Nothing is delivered (no event is made).
    sandbox = await startSandboxInProcess(['--clock', 'manual']);
    token = await getToken(sandbox.info.base_url, sandbox.info.client_id, sandbox.info.client_secret);
    for (let i = 0; i < 64; i += 1) ids.push(await createWebhook(i));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  it("with 64 webhooks: the trigger and clock panels in view, the webhooks filtered across a live refresh, and at a phone's width the trigger panel a short scroll away", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await step('keeps the trigger and clock panels in view at 1280 px, the webhooks scrolling in their own list', async () => {
      await page.goto(sandbox.info.inspector_url);
      await page.waitForFunction(() => document.querySelectorAll('.webhook').length === 64, undefined, WAIT);
      await page.waitForSelector('#clock-panel:not([hidden])');
      for (const panel of ['#trigger-form', '#clock-panel']) {
        const box = (await page.locator(panel).boundingBox())!;
        expect(box.y + box.height, panel).toBeLessThanOrEqual(900);
      }
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(900);
      expect(await page.evaluate(() => document.getElementById('webhooks').scrollHeight > document.getElementById('webhooks').clientHeight)).toBe(true);
    });
    await step('filters the webhooks by URL, id or event type, and keeps the filter across a live refresh', async () => {
      await page.goto(sandbox.info.inspector_url);
      await page.waitForFunction(() => document.querySelectorAll('.webhook').length === 64, undefined, WAIT);
      await page.fill('#webhook-filter', 'endpoint-42');
      await page.waitForFunction(() => document.getElementById('webhook-count').textContent === '1 of 64', undefined, WAIT);
      expect(await shownIn(page)).toEqual([ids[42]]);
      // Every word, in any of the three: a host and an event type.
      await page.fill('#webhook-filter', 'HOOKS1 inventory.changed');
      const both = ids.filter((_id, i) => i % 3 === 1 && (i % 4 === 3 || (i + 1) % 4 === 3));
      await page.waitForFunction((n) => document.getElementById('webhook-count').textContent === `${n} of 64`, both.length, WAIT);
      expect((await shownIn(page)).sort()).toEqual([...both].sort());
      await page.fill('#webhook-filter', ids[7]!);
      await page.waitForFunction(() => document.getElementById('webhook-count').textContent === '1 of 64', undefined, WAIT);
      // A webhook made meanwhile: the live refresh lists it, and the filter still holds.
      await createWebhook(64);
      await page.waitForFunction(() => document.getElementById('webhook-count').textContent === '1 of 65', undefined, WAIT);
      expect(await shownIn(page)).toEqual([ids[7]]);
      await page.fill('#webhook-filter', 'nowhere.test');
      await page.waitForSelector('#webhooks-unmatched:not([hidden])');
      expect(await shownIn(page)).toEqual([]);
      await page.fill('#webhook-filter', '');
      await page.waitForFunction(() => document.getElementById('webhook-count').textContent === '65', undefined, WAIT);
      expect(await shownIn(page)).toHaveLength(65);
    });
    await step("at a phone's width, the trigger panel comes after a short scroll, not 11,000 px down", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(sandbox.info.inspector_url);
      await page.waitForFunction(() => document.querySelectorAll('.webhook').length === 65, undefined, WAIT);
      const top = await page.locator('#trigger-form').evaluate((form: any) => form.getBoundingClientRect().top + window.scrollY);
      expect(top).toBeLessThan(844);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    });
  });
});
