// The sandbox inspector's page: plain DOM, no framework. Every value that
// comes from a delivery (payloads, headers, the receiver's answers, URLs) is
// set with textContent or as an attribute value, never parsed as HTML: this
// file uses no innerHTML, outerHTML, insertAdjacentHTML nor document.write
// (a unit test holds it to that).
import type {
  InspectorAttempt,
  InspectorChange,
  InspectorDelivery,
  InspectorDeliveryItem,
  InspectorDeliveryPage,
  InspectorOverview,
  InspectorWebhook,
} from '../types.js';
import { isDelivered, type DeliveryStatus } from '../../../protocol/status.js';
import { clockTime as clockTimeAt, fateSentence, fateWords, NO_ANSWER, statusWords, elapsed, relativeTime } from '../../../render/words.js';
import type { Fate } from '../../../protocol/fate.js';
import { counted, countText } from '../../../render/text.js';

const API = '/_sandbox/inspector/api';
const PAGE_SIZE = 50;
/** A live refresh re-reads at most this many of the newest rows shown. */
const LIVE_WINDOW = 200;
/** The overview lists at most this many webhooks: past it, a row's webhook may exist without being listed. */
const OVERVIEW_WEBHOOKS = 200;
/** From this many webhooks on, the sidebar offers a filter over them. */
const WEBHOOK_FILTER_FROM = 6;

// --- small DOM helpers --------------------------------------------------------

type Child = Node | string | null | undefined | false;

/** An element with attributes and children; strings become text nodes, never markup. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : value);
  }
  append(element, ...children);
  return element;
}

function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

// --- time -------------------------------------------------------------------

const state = {
  overview: undefined as InspectorOverview | undefined,
  /** The sandbox's time minus this browser's, when last told (a manual clock stands still: see sandboxNow). */
  offset: 0,
  manualNow: undefined as number | undefined,
  filters: { webhook: '', event: '', status: '', q: '' },
  /** The sidebar's filter over the webhooks listed (their URL, id and event types); the deliveries' filters are apart. */
  webhookFilter: '',
  rows: [] as InspectorDeliveryItem[],
  nextCursor: null as string | null,
  open: undefined as string | undefined,
  detail: undefined as InspectorDelivery | undefined,
  detailKey: '',
  /** The attempt whose answer and headers the detail shows; undefined follows the latest. */
  attempt: undefined as string | undefined,
  listGeneration: 0,
};

function sandboxNow(): number {
  return state.manualNow ?? Date.now() + state.offset;
}

function noteSandboxTime(now: string, manual: boolean): void {
  const at = Date.parse(now);
  if (manual) state.manualNow = at;
  else {
    state.manualNow = undefined;
    state.offset = at - Date.now();
  }
}

/** A time of day on the sandbox's clock (the day before it when not today there). */
const clockTime = (iso: string, withMs = false): string => clockTimeAt(iso, sandboxNow(), withMs);

/** "12 seconds ago", "in 4 minutes": as the CLI says it, counted from the sandbox's now. */
const relative = (iso: string): string => relativeTime(iso, sandboxNow());

/** A time element: clock time shown, relative time beside it, the exact UTC time on hover; refreshed by tickTimes. */
function timeEl(iso: string, options: { ms?: boolean; rel?: boolean } = {}): HTMLElement {
  const element = h('time', { datetime: iso, title: iso, 'data-rel': options.rel ? '1' : undefined }, clockTime(iso, options.ms));
  if (options.rel) element.textContent = `${clockTime(iso, options.ms)} · ${relative(iso)}`;
  element.dataset.ms = options.ms ? '1' : '';
  return element;
}

function tickTimes(): void {
  for (const element of document.querySelectorAll<HTMLElement>('time[data-rel]')) {
    const iso = element.getAttribute('datetime')!;
    setText(element, `${clockTime(iso, element.dataset.ms === '1')} · ${relative(iso)}`);
  }
  for (const element of document.querySelectorAll<HTMLElement>('[data-due]')) {
    setText(element, relative(element.dataset.due!));
  }
  const clock = byId('clock');
  if (state.overview) {
    const manual = state.overview.sandbox.clock === 'manual';
    setText(clock, `${manual ? 'manual clock' : 'clock'} ${clockTime(new Date(sandboxNow()).toISOString())}`);
    clock.classList.toggle('manual', manual);
  }
}

// --- requests ---------------------------------------------------------------

class RequestFailed extends Error {}

async function api<T>(path: string, init?: { method: 'POST'; body: unknown }): Promise<T> {
  let response: Response;
  try {
    response = await fetch(API + path, {
      credentials: 'same-origin',
      cache: 'no-store',
      ...(init ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) } : {}),
    });
  } catch {
    throw new RequestFailed('the sandbox does not answer: is `whsvc sandbox start` still running?');
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message;
    throw new RequestFailed(message ?? `the sandbox answered ${response.status}`);
  }
  return body as T;
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

function toast(message: string, kind: 'ok' | 'error' = 'ok'): void {
  const element = byId('toast');
  element.textContent = message;
  element.className = `toast ${kind}`;
  element.hidden = false;
  if (toastTimer !== undefined) clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (element.hidden = true), kind === 'error' ? 8000 : 4000);
}

/** Runs an action from a button: the button is busy meanwhile, the outcome is a toast. */
async function act(button: HTMLButtonElement | null, busyLabel: string, work: () => Promise<string>): Promise<void> {
  const label = button?.textContent ?? '';
  if (button) {
    button.disabled = true;
    button.textContent = busyLabel;
  }
  try {
    toast(await work());
    await refresh();
  } catch (error) {
    toast(error instanceof RequestFailed ? error.message : String(error), 'error');
  } finally {
    if (button) {
      button.disabled = false;
      button.textContent = label;
    }
  }
}

async function copy(text: string, button: HTMLButtonElement): Promise<void> {
  let done = false;
  try {
    await navigator.clipboard.writeText(text);
    done = true;
  } catch {
    // Not a secure context (a network address over http): the old way.
    const area = h('textarea', { class: 'offscreen', readonly: true });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    done = document.execCommand('copy');
    area.remove();
  }
  const label = button.textContent;
  button.textContent = done ? 'Copied' : 'Copy failed';
  setTimeout(() => (button.textContent = label), 1500);
}

function copyButton(text: () => string, label = 'Copy'): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'small' }, label);
  button.addEventListener('click', () => void copy(text(), button));
  return button;
}

// --- pieces -----------------------------------------------------------------

const STATUS_MARK: Record<DeliveryStatus, string> = { delivered: '✓', failed: '✕', pending: '…' };

/**
 * A status in colour and in words, never colour alone: an attempt's own, or a delivery's fate as the CLI says it
 * (`failed · retry due 14:02:05`, `failed · no more retries`).
 */
function statusBadge(status: DeliveryStatus, fate?: Fate | null): HTMLElement {
  return h(
    'span',
    { class: `badge status-${status}` },
    h('span', { class: 'mark', 'aria-hidden': 'true' }, STATUS_MARK[status]),
    fate ? fateWords(fate, sandboxNow()) : statusWords(status, null),
  );
}

function codeChip(code: number | null, status: DeliveryStatus): HTMLElement {
  if (code === null) return h('span', { class: 'code none', title: status === 'pending' ? 'under way' : NO_ANSWER }, status === 'pending' ? '···' : NO_ANSWER);
  return h('span', { class: `code ${isDelivered(code) ? 'ok' : 'bad'}`, title: `HTTP ${code}` }, String(code));
}

/** Pretty JSON, coloured by token: each token a text node in a span. */
function jsonView(text: string): HTMLElement {
  const pre = h('pre', { class: 'code-block json', tabindex: '0' });
  let pretty: string;
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    pre.textContent = text;
    return pre;
  }
  const token = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;
  let last = 0;
  for (let match = token.exec(pretty); match !== null; match = token.exec(pretty)) {
    if (match.index > last) append(pre, pretty.slice(last, match.index));
    if (match[1] !== undefined) {
      append(pre, h('span', { class: match[2] ? 'j-key' : 'j-str' }, match[1]));
      if (match[2]) append(pre, match[2]);
    } else if (match[3] !== undefined) append(pre, h('span', { class: 'j-num' }, match[3]));
    else append(pre, h('span', { class: 'j-lit' }, match[4]!));
    last = token.lastIndex;
  }
  append(pre, pretty.slice(last));
  return pre;
}

// --- webhooks (the sidebar) -------------------------------------------------

function renderOverview(overview: InspectorOverview): void {
  state.overview = overview;
  // The webhook shown was deleted (with its deliveries): show them all again.
  if (state.filters.webhook !== '' && !overview.webhooks.some((w) => w.id === state.filters.webhook) && !overview.webhooks_more) {
    state.filters.webhook = '';
    void loadList('fresh').catch(showError);
  }
  noteSandboxTime(overview.sandbox.now, overview.sandbox.clock === 'manual');
  const list = byId('webhooks');
  const existing = new Map([...list.children].map((li) => [(li as HTMLElement).dataset.id!, li as HTMLElement]));
  overview.webhooks.forEach((webhook, index) => {
    const key = JSON.stringify(webhook);
    let li = existing.get(webhook.id);
    if (!li || li.dataset.key !== key) {
      const fresh = webhookCard(webhook);
      if (li) li.replaceWith(fresh);
      li = fresh;
    }
    li.classList.toggle('selected', state.filters.webhook === webhook.id);
    if (list.children[index] !== li) list.insertBefore(li, list.children[index] ?? null);
    existing.delete(webhook.id);
  });
  for (const gone of existing.values()) gone.remove();
  byId('webhooks-empty').hidden = overview.webhooks.length > 0;
  byId('webhook-filter').hidden = overview.webhooks.length < WEBHOOK_FILTER_FROM && state.webhookFilter === '';
  filterWebhooks();
  const all = byId('all-webhooks');
  all.setAttribute('aria-pressed', String(state.filters.webhook === ''));
  all.hidden = overview.webhooks.length < 2;

  fillSelect(
    byId<HTMLSelectElement>('f-webhook'),
    'All webhooks',
    overview.webhooks.map((w) => [w.id, `${w.url} (${w.id})`]),
    state.filters.webhook,
  );
  fillSelect(
    byId<HTMLSelectElement>('f-event'),
    'All events',
    overview.catalog.map((e) => [e.type, e.type]),
    state.filters.event,
  );
  const trigger = byId<HTMLSelectElement>('trigger-type');
  if (trigger.options.length === 0)
    fillSelect(
      trigger,
      undefined,
      overview.catalog.map((e) => [e.type, e.type]),
      'invoice.paid',
    );

  const manual = overview.sandbox.clock === 'manual';
  byId('clock-panel').hidden = !manual;
  const due = byId('due');
  due.replaceChildren(
    ...overview.due.map((d) =>
      h(
        'li',
        {},
        h('span', { class: 'mono' }, `${d.delivery_id} #${d.attempt}`),
        ' ',
        h('span', { class: 'muted' }, d.event),
        ' ',
        h('span', { class: 'due-at', 'data-due': d.due_at, title: d.due_at }, relative(d.due_at)),
      ),
    ),
  );
  if (manual && overview.due.length === 0) due.replaceChildren(h('li', { class: 'muted' }, 'Nothing is due.'));
  byId<HTMLButtonElement>('advance-next').disabled = overview.due.length === 0;
  tickTimes();
}

/** Whether a webhook has every word of the filter in its URL, id or event types (any case). */
function webhookMatches(webhook: InspectorWebhook, filter: string): boolean {
  const text = [webhook.url, webhook.id, ...webhook.events].join(' ').toLowerCase();
  return filter
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}

/** The sidebar's webhooks as the filter leaves them, and their count (`3 of 64` while it filters). */
function filterWebhooks(): void {
  const webhooks = state.overview?.webhooks ?? [];
  const filter = state.webhookFilter.trim();
  let shown = 0;
  for (const webhook of webhooks) {
    const li = document.querySelector<HTMLElement>(`#webhooks > li[data-id="${CSS.escape(webhook.id)}"]`);
    const matches = filter === '' || webhookMatches(webhook, filter);
    if (li) li.hidden = !matches;
    if (matches) shown += 1;
  }
  const more = state.overview?.webhooks_more ? '+' : '';
  setText(
    byId('webhook-count'),
    webhooks.length === 0 ? '' : filter === '' ? `${countText(webhooks.length)}${more}` : `${countText(shown)} of ${countText(webhooks.length)}${more}`,
  );
  const unmatched = byId('webhooks-unmatched');
  unmatched.hidden = filter === '' || shown > 0;
  setText(unmatched, `No webhook's URL, id or event types hold “${filter}”.`);
}

function fillSelect(select: HTMLSelectElement, allLabel: string | undefined, options: Array<[string, string]>, value: string): void {
  const key = JSON.stringify(options);
  if (select.dataset.key !== key) {
    select.replaceChildren(...(allLabel ? [h('option', { value: '' }, allLabel)] : []), ...options.map(([v, label]) => h('option', { value: v }, label)));
    select.dataset.key = key;
  }
  select.value = value;
}

function webhookCard(webhook: InspectorWebhook): HTMLElement {
  const { total, delivered, failed, pending, retry_due: retryDue } = webhook.deliveries;
  const show = h(
    'button',
    { type: 'button', class: 'webhook-main', title: 'Show the deliveries of this webhook' },
    h('span', { class: 'webhook-url' }, webhook.url),
    h(
      'span',
      { class: 'webhook-meta' },
      h('span', { class: `pill ${webhook.active ? 'active' : 'paused'}` }, webhook.active ? 'active' : 'paused'),
      h('span', { class: 'mono muted' }, webhook.id),
    ),
    h('span', { class: 'chips' }, ...webhook.events.map((event) => h('span', { class: 'chip' }, event))),
    h(
      'span',
      { class: 'counts' },
      total === 0
        ? h('span', { class: 'muted' }, 'no deliveries yet')
        : h(
            'span',
            {},
            `${counted(total, 'delivery')}: `,
            h('span', { class: 'n-delivered' }, `${countText(delivered)} delivered`),
            failed ? ', ' : '',
            failed
              ? h(
                  'span',
                  { class: 'n-failed' },
                  `${countText(failed)} failed${retryDue ? ` (${retryDue === failed ? 'each' : countText(retryDue)} with a retry due)` : ''}`,
                )
              : '',
            pending ? ', ' : '',
            pending ? h('span', { class: 'n-pending' }, `${countText(pending)} pending`) : '',
          ),
    ),
  );
  show.addEventListener('click', () => setFilter('webhook', state.filters.webhook === webhook.id ? '' : webhook.id));
  const test = h('button', { type: 'button', class: 'small', title: `Send a sample invoice.paid to ${webhook.url}` }, 'Send test');
  test.addEventListener(
    'click',
    () =>
      void act(test, 'Sending…', async () => {
        const event = webhook.events.includes('invoice.paid') ? 'invoice.paid' : webhook.events[0];
        const result = await api<{ delivery_id: string; status: DeliveryStatus; response_code: number | null }>(
          `/webhooks/${encodeURIComponent(webhook.id)}/test`,
          {
            method: 'POST',
            body: event ? { event } : {},
          },
        );
        openDelivery(result.delivery_id);
        return `Test ${event ?? 'event'} sent: ${result.status}${result.response_code === null ? '' : ` (${result.response_code})`}`;
      }),
  );
  const li = h('li', { class: 'webhook' }, show, h('div', { class: 'webhook-actions' }, test));
  li.dataset.id = webhook.id;
  li.dataset.key = JSON.stringify(webhook);
  return li;
}

// --- deliveries (the list) -----------------------------------------------------

function listQuery(limit: number, cursor?: string | null): string {
  const params = new URLSearchParams({ limit: String(limit) });
  for (const [key, value] of Object.entries(state.filters)) if (value) params.set(key, value);
  if (cursor) params.set('cursor', cursor);
  return `/deliveries?${params}`;
}

let listQueue: Promise<void> = Promise.resolve();

/**
 * Loads the first page afresh (filters changed), the next older page (more),
 * or, live, re-reads the newest rows shown and merges them in place. One load
 * at a time, in the order asked: a page of older rows and a live refresh never
 * cross.
 */
function loadList(mode: 'fresh' | 'live' | 'more'): Promise<void> {
  if (mode === 'fresh') state.listGeneration += 1;
  const generation = state.listGeneration;
  const run = listQueue.then(() => (generation === state.listGeneration ? loadListNow(mode, generation) : undefined));
  listQueue = run.catch(() => undefined);
  return run;
}

async function loadListNow(mode: 'fresh' | 'live' | 'more', generation: number): Promise<void> {
  if (mode === 'more') {
    if (state.nextCursor === null) return;
    const page = await api<InspectorDeliveryPage>(listQuery(PAGE_SIZE, state.nextCursor));
    if (generation !== state.listGeneration) return;
    const known = new Set(state.rows.map((r) => r.id));
    state.rows = [...state.rows, ...page.data.filter((r) => !known.has(r.id))];
    state.nextCursor = page.next_cursor;
    renderRows(false);
    return;
  }
  const window = mode === 'fresh' ? PAGE_SIZE : Math.min(Math.max(state.rows.length, PAGE_SIZE), LIVE_WINDOW);
  const page = await api<InspectorDeliveryPage>(listQuery(window));
  if (generation !== state.listGeneration) return;
  const ids = new Set(page.data.map((r) => r.id));
  // Rows shown below the window re-read stay, wherever new deliveries pushed them: those older than its
  // oldest row (by time, not by position), of a webhook that still exists. Only when the window reaches
  // down to rows already shown: when more came than it holds, keeping them would leave a gap, so the list
  // starts again from the newest, and "older" loads the rest.
  const overlaps = state.rows.some((r) => ids.has(r.id));
  const oldest = page.data.length > 0 ? Date.parse(page.data[page.data.length - 1]!.created_at) : Number.POSITIVE_INFINITY;
  const webhooks = new Set(state.overview?.webhooks.map((w) => w.id));
  const beyond =
    mode === 'live' && page.has_more && overlaps
      ? state.rows.filter(
          (r) =>
            !ids.has(r.id) && Date.parse(r.created_at) <= oldest && (webhooks.size === 0 || webhooks.size >= OVERVIEW_WEBHOOKS || webhooks.has(r.webhook_id)),
        )
      : [];
  state.rows = [...page.data, ...beyond];
  if (beyond.length === 0) state.nextCursor = page.next_cursor;
  renderRows(mode === 'live');
}

function renderRows(markNew: boolean): void {
  const list = byId('deliveries');
  const existing = new Map([...list.children].map((li) => [(li as HTMLElement).dataset.id!, li as HTMLElement]));
  const showUrl = state.filters.webhook === '' && (state.overview?.webhooks.length ?? 0) > 1;
  state.rows.forEach((row, index) => {
    const key = `${JSON.stringify(row)}|${showUrl}`;
    let li = existing.get(row.id);
    if (!li || li.dataset.key !== key) {
      const fresh = deliveryRow(row, showUrl);
      fresh.dataset.key = key;
      if (li) li.replaceWith(fresh);
      else if (markNew) {
        fresh.classList.add('fresh');
        fresh.addEventListener('animationend', () => fresh.classList.remove('fresh'), { once: true });
      }
      li = fresh;
    }
    li.classList.toggle('selected', row.id === state.open);
    if (list.children[index] !== li) list.insertBefore(li, list.children[index] ?? null);
    existing.delete(row.id);
  });
  for (const gone of existing.values()) gone.remove();
  const empty = byId('deliveries-empty');
  const filtered = Object.values(state.filters).some(Boolean);
  empty.hidden = state.rows.length > 0;
  setText(
    empty,
    filtered
      ? 'No delivery matches these filters.'
      : 'No delivery yet. Make an event occur (Trigger, or `whsvc sandbox trigger invoice.paid`): it shows here as it happens.',
  );
  byId('more').hidden = state.nextCursor === null;
  tickTimes();
}

function deliveryRow(row: InspectorDeliveryItem, showUrl: boolean): HTMLElement {
  const button = h(
    'button',
    { type: 'button', class: 'delivery-main' },
    h('span', { class: 'line1' }, statusBadge(row.status, row.fate), h('span', { class: 'event' }, row.event), codeChip(row.response_code, row.status)),
    h(
      'span',
      { class: 'line2' },
      h('span', { class: 'mono id' }, row.id),
      h('span', { class: 'muted' }, counted(row.attempt_count, 'attempt')),
      timeEl(row.last_attempt_at ?? row.created_at, { rel: true }),
    ),
    showUrl ? h('span', { class: 'line3 muted' }, `→ ${row.webhook_url}`) : null,
    row.next_attempt_at
      ? h(
          'span',
          { class: 'line3 next' },
          'retry due ',
          h('span', { 'data-due': row.next_attempt_at, title: row.next_attempt_at }, relative(row.next_attempt_at)),
        )
      : null,
  );
  button.addEventListener('click', () => openDelivery(row.id));
  const li = h('li', { class: `delivery status-${row.status}` }, button);
  li.dataset.id = row.id;
  return li;
}

function setFilter(name: keyof typeof state.filters, value: string): void {
  state.filters[name] = value;
  if (state.overview) renderOverview(state.overview);
  void loadList('fresh').catch(showError);
}

// --- one delivery (the detail) --------------------------------------------------

function openDelivery(id: string): void {
  if (state.open !== id) {
    state.open = id;
    state.attempt = undefined;
    state.detailKey = '';
    if (location.hash !== `#${id}`) history.replaceState(null, '', `#${id}`);
  }
  document.body.classList.add('detail-open');
  for (const li of byId('deliveries').children) li.classList.toggle('selected', (li as HTMLElement).dataset.id === id);
  void loadDetail().catch(showError);
}

function closeDelivery(): void {
  state.open = undefined;
  state.detail = undefined;
  state.detailKey = '';
  document.body.classList.remove('detail-open');
  history.replaceState(null, '', location.pathname);
  for (const li of byId('deliveries').children) li.classList.remove('selected');
  byId('detail').replaceChildren(
    h(
      'div',
      { class: 'placeholder' },
      h('p', {}, h('strong', {}, 'Select a delivery')),
      h('p', {}, "Its attempts on a time line, the payload, the headers sent, the signature and the receiver's answer show here."),
    ),
  );
}

async function loadDetail(): Promise<void> {
  const id = state.open;
  if (!id) return;
  let detail: InspectorDelivery;
  try {
    detail = await api<InspectorDelivery>(`/deliveries/${encodeURIComponent(id)}`);
  } catch (error) {
    if (state.open !== id) return;
    byId('detail').replaceChildren(
      h('div', { class: 'placeholder' }, h('p', {}, h('strong', {}, 'Not found')), h('p', {}, error instanceof RequestFailed ? error.message : String(error))),
    );
    state.detailKey = '';
    return;
  }
  if (state.open !== id) return;
  const key = JSON.stringify(detail);
  if (key === state.detailKey) return;
  state.detailKey = key;
  state.detail = detail;
  renderDetail(detail);
}

function renderDetail(d: InspectorDelivery): void {
  const pane = byId('detail');
  const scroll = pane.scrollTop;
  const shown = d.attempts.find((a) => a.id === state.attempt) ?? d.attempts[d.attempts.length - 1];
  const sections: HTMLElement[] = [
    detailHead(d),
    section('Attempts', timeline(d, shown)),
    section(
      'Payload',
      jsonView(d.body),
      copyButton(() => d.body, 'Copy raw body'),
    ),
  ];
  if (shown) {
    sections.push(section(`Receiver's answer · attempt #${shown.attempt}`, answer(shown)));
    sections.push(section(`Request headers · attempt #${shown.attempt}`, headersTable(shown)));
  }
  sections.push(
    section(
      'Signature',
      h('p', { class: 'sig' }, h('span', { class: 'mono muted' }, `${d.signature_header}: `), h('span', { class: 'mono break' }, d.signature)),
      copyButton(() => d.signature),
    ),
    section(
      'Verify it',
      h('pre', { class: 'code-block cmd', tabindex: '0' }, d.verify_command),
      h(
        'p',
        { class: 'hint' },
        "With the webhook's signing secret in ./whsec.txt (",
        h('code', {}, 'whsvc webhooks create … --secret-file ./whsec.txt'),
        '). The inspector never shows a secret.',
      ),
      copyButton(() => d.verify_command),
    ),
  );
  pane.replaceChildren(...sections);
  pane.scrollTop = scroll;
}

/** The head of a delivery's pane: back, its event, status and code, its id, where it goes, its attempts, and Retry now. */
function detailHead(d: InspectorDelivery): HTMLElement {
  const back = h('button', { type: 'button', class: 'back small' }, '← Deliveries');
  back.addEventListener('click', closeDelivery);
  const retry = retryButton(d);
  return h(
    'div',
    { class: 'detail-head' },
    back,
    h('div', { class: 'title-row' }, h('h2', {}, d.event), statusBadge(d.status, d.fate), codeChip(d.response_code, d.status)),
    h(
      'div',
      { class: 'id-row' },
      h('span', { class: 'mono', id: 'detail-id' }, d.id),
      copyButton(() => d.id, 'Copy id'),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'To'),
      h('dd', {}, h('span', { class: 'mono' }, d.webhook_url), d.webhook_active ? '' : h('span', { class: 'pill paused' }, 'paused')),
      // The whole fate, as `whsvc deliveries show` says it: which attempt delivered it, and when.
      d.fate ? h('dt', {}, 'Fate') : null,
      d.fate ? h('dd', { id: 'detail-fate' }, fateSentence(d.fate, sandboxNow())) : null,
      h('dt', {}, 'Created'),
      h('dd', {}, timeEl(d.created_at, { rel: true })),
      h('dt', {}, 'Attempts'),
      h(
        'dd',
        {},
        `${d.attempt_count}`,
        state.overview ? h('span', { class: 'muted' }, ` (${state.overview.sandbox.max_attempts} automatic at most; manual retries add more)`) : '',
      ),
    ),
    h(
      'div',
      { class: 'actions' },
      retry,
      d.next_attempt_at
        ? h(
            'span',
            { class: 'next' },
            'Automatic retry due ',
            h('span', { 'data-due': d.next_attempt_at, title: d.next_attempt_at }, relative(d.next_attempt_at)),
          )
        : d.status === 'failed'
          ? h('span', { class: 'muted' }, 'No more automatic attempts: retry it by hand once the receiver is fixed.')
          : null,
    ),
  );
}

/** Retry now: the delivery sent again at once, same body and signature (none for a delivered one). */
function retryButton(d: InspectorDelivery): HTMLButtonElement {
  const retry = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      disabled: d.status === 'delivered',
      title: d.status === 'delivered' ? 'Delivered: nothing to retry' : 'Send it again now, same body and signature',
    },
    'Retry now',
  );
  retry.addEventListener(
    'click',
    () =>
      void act(retry, 'Retrying…', async () => {
        const result = await api<{ attempt: { attempt: number; status: DeliveryStatus; response_code: number | null } }>(
          `/deliveries/${encodeURIComponent(d.id)}/retry`,
          { method: 'POST', body: {} },
        );
        state.attempt = undefined;
        const { attempt } = result;
        return `Attempt #${attempt.attempt}: ${attempt.status}${attempt.response_code === null ? '' : ` (${attempt.response_code})`}`;
      }),
  );

  return retry;
}

function section(title: string, ...content: Child[]): HTMLElement {
  const copyButtons = content.filter((c): c is HTMLButtonElement => c instanceof HTMLButtonElement);
  const rest = content.filter((c) => !(c instanceof HTMLButtonElement));
  return h('section', { class: 'block' }, h('div', { class: 'block-head' }, h('h3', {}, title), ...copyButtons), ...rest);
}

function timeline(d: InspectorDelivery, shown: InspectorAttempt | undefined): HTMLElement {
  const list = h('ol', { class: 'timeline' });
  if (d.attempts.length === 0) append(list, h('li', { class: 'muted' }, 'No attempt sent yet.'));
  d.attempts.forEach((a, index) => {
    const previous = d.attempts[index - 1];
    if (previous) {
      const gap = Date.parse(a.created_at) - Date.parse(previous.created_at) - (previous.duration_ms ?? 0);
      append(list, h('li', { class: 'gap' }, `↓ ${elapsed(Math.max(0, gap))} later`));
    }
    const item = h(
      'button',
      { type: 'button', class: 'attempt-main', 'aria-pressed': String(a === shown) },
      h('span', { class: `dot status-${a.status}`, 'aria-hidden': 'true' }),
      h(
        'span',
        { class: 'attempt-body' },
        h(
          'span',
          { class: 'line1' },
          h('strong', {}, `#${a.attempt}`),
          statusBadge(a.status),
          codeChip(a.response_code, a.status),
          a.duration_ms !== null && a.status !== 'pending' ? h('span', { class: 'muted' }, elapsed(a.duration_ms)) : null,
        ),
        h('span', { class: 'line2' }, timeEl(a.created_at, { ms: true }), h('span', { class: 'mono muted' }, a.id)),
        a.failure_reason ? h('span', { class: 'line3 reason' }, a.failure_reason) : null,
      ),
    );
    item.addEventListener('click', () => {
      state.attempt = a.id;
      if (state.detail) renderDetail(state.detail);
    });
    append(list, h('li', { class: `attempt${a === shown ? ' shown' : ''}` }, item));
  });
  if (d.next_attempt_at) {
    const last = d.attempts[d.attempts.length - 1];
    if (last)
      append(
        list,
        h('li', { class: 'gap' }, `↓ ${elapsed(Math.max(0, Date.parse(d.next_attempt_at) - Date.parse(last.created_at) - (last.duration_ms ?? 0)))} later`),
      );
    append(
      list,
      h(
        'li',
        { class: 'attempt future' },
        h('span', { class: 'dot', 'aria-hidden': 'true' }),
        h(
          'span',
          { class: 'attempt-body' },
          h('span', { class: 'line1' }, h('strong', {}, `#${(last?.attempt ?? 0) + 1}`), ' retry due ', timeEl(d.next_attempt_at, { rel: true })),
        ),
      ),
    );
  }
  return list;
}

function answer(a: InspectorAttempt): HTMLElement {
  const facts = h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Status'),
    h('dd', {}, a.response_code === null ? (a.status === 'pending' ? 'waiting for the answer' : NO_ANSWER) : `HTTP ${a.response_code}`),
    h('dt', {}, 'Time taken'),
    h('dd', {}, a.duration_ms === null ? '—' : elapsed(a.duration_ms)),
    a.failure_reason ? h('dt', {}, 'Why it failed') : null,
    a.failure_reason ? h('dd', {}, a.failure_reason) : null,
  );
  const body =
    a.response_body === null
      ? h('p', { class: 'muted' }, 'No body.')
      : a.response_body === ''
        ? h('p', { class: 'muted' }, 'An empty body.')
        : h('pre', { class: 'code-block', tabindex: '0' }, a.response_body);
  return h('div', {}, facts, body, a.response_body && a.response_body.length >= 1024 ? h('p', { class: 'hint' }, 'Stored up to its first 1,024 bytes.') : null);
}

function headersTable(a: InspectorAttempt): HTMLElement {
  return h(
    'table',
    { class: 'headers' },
    h('tbody', {}, ...Object.entries(a.headers).map(([name, value]) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, value)))),
  );
}

// --- live ---------------------------------------------------------------------

let refreshing: Promise<void> | undefined;
let again = false;

/** Re-reads what is shown; one refresh at a time, and one more if changes came meanwhile. */
function refresh(): Promise<void> {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      const overview = await api<InspectorOverview>('/overview');
      renderOverview(overview);
      await Promise.all([loadList('live'), loadDetail()]);
    } catch (error) {
      showError(error);
    } finally {
      refreshing = undefined;
      if (again) {
        again = false;
        void refresh();
      }
    }
  })();
  return refreshing;
}

function showError(error: unknown): void {
  toast(error instanceof RequestFailed ? error.message : String(error), 'error');
}

function setLive(text: string, ok: boolean): void {
  setText(byId('live-text'), text);
  byId('live').classList.toggle('ok', ok);
}

function connect(): void {
  const source = new EventSource(`${API}/stream`);
  let seen = -1;
  source.addEventListener('open', () => setLive('live', true));
  source.addEventListener('change', (event) => {
    setLive('live', true);
    const change = JSON.parse((event as MessageEvent<string>).data) as InspectorChange;
    if (state.overview) noteSandboxTime(change.now, state.overview.sandbox.clock === 'manual');
    if (change.changes !== seen || state.overview?.sandbox.clock === 'manual') {
      seen = change.changes;
      void refresh();
    }
  });
  source.addEventListener('error', () => setLive(source.readyState === EventSource.CLOSED ? 'disconnected: reload the page' : 'reconnecting…', false));
}

// --- start ---------------------------------------------------------------------

function start(): void {
  byId('filters').addEventListener('submit', (event) => event.preventDefault());
  byId<HTMLSelectElement>('f-webhook').addEventListener('change', (event) => setFilter('webhook', (event.target as HTMLSelectElement).value));
  byId<HTMLSelectElement>('f-event').addEventListener('change', (event) => setFilter('event', (event.target as HTMLSelectElement).value));
  byId<HTMLSelectElement>('f-status').addEventListener('change', (event) => setFilter('status', (event.target as HTMLSelectElement).value));
  byId('all-webhooks').addEventListener('click', () => setFilter('webhook', ''));
  byId<HTMLInputElement>('webhook-filter').addEventListener('input', (event) => {
    state.webhookFilter = (event.target as HTMLInputElement).value;
    filterWebhooks();
  });
  let typing: ReturnType<typeof setTimeout> | undefined;
  byId<HTMLInputElement>('f-q').addEventListener('input', (event) => {
    const value = (event.target as HTMLInputElement).value.trim();
    if (typing !== undefined) clearTimeout(typing);
    typing = setTimeout(() => {
      if (value !== '' && !/^[A-Za-z0-9_-]{1,100}$/.test(value)) {
        toast('A delivery id is letters, digits, _ and -, such as dlv_3f9a…', 'error');
        return;
      }
      setFilter('q', value);
      // A whole id found: open it.
      if (/^dlv_[0-9a-f]{24}$/.test(value)) openDelivery(value);
    }, 250);
  });
  byId('more').addEventListener('click', (event) => {
    const button = event.currentTarget as HTMLButtonElement;
    button.disabled = true;
    void loadList('more')
      .catch(showError)
      .finally(() => (button.disabled = false));
  });
  byId('trigger-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const type = byId<HTMLSelectElement>('trigger-type').value;
    const button = (event.target as HTMLFormElement).querySelector('button');
    void act(button, 'Triggering…', async () => {
      const result = await api<{ deliveries: string[] }>('/events', { method: 'POST', body: { type } });
      const n = result.deliveries.length;
      return n === 0 ? `${type}: no active webhook is subscribed to it` : `${type}: ${counted(n, 'delivery')} on the way`;
    });
  });
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-advance]')) {
    button.addEventListener(
      'click',
      () =>
        void act(button, 'Moving…', async () => advanceMessage(await api('/clock', { method: 'POST', body: { advance_ms: Number(button.dataset.advance) } }))),
    );
  }
  const next = byId<HTMLButtonElement>('advance-next');
  next.addEventListener('click', () => {
    const due = state.overview?.due[0];
    if (!due) return;
    void act(next, 'Moving…', async () => advanceMessage(await api('/clock', { method: 'POST', body: { to: due.due_at } })));
  });
  window.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && state.open) closeDelivery();
  });
  // A link to a delivery pasted into an open tab, or back and forward: the hash names the delivery to open.
  window.addEventListener('hashchange', () => {
    const id = location.hash.slice(1);
    if (/^[A-Za-z0-9_-]{1,100}$/.test(id) && id !== state.open) openDelivery(id);
  });

  const initial = location.hash.slice(1);
  void (async () => {
    try {
      renderOverview(await api<InspectorOverview>('/overview'));
      await loadList('fresh');
      if (/^[A-Za-z0-9_-]{1,100}$/.test(initial)) openDelivery(initial);
    } catch (error) {
      showError(error);
    }
    connect();
  })();
  setInterval(tickTimes, 1000);
}

function advanceMessage(result: unknown): string {
  const r = result as { sent: number; delivered: number; failed: number };
  return `Clock moved: ${counted(r.sent, 'attempt')} sent, ${countText(r.delivered)} delivered, ${countText(r.failed)} failed`;
}

start();
