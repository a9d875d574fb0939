import { createHash } from 'node:crypto';
import type { ApiClient } from './client.js';
import { ApiError } from './errors.js';
import { getWebhook, listAttempts, listWebhooks, type WebhookQuery } from './endpoints.js';
import type { Attempt, Page, Webhook } from './shapes.js';
import { numberValue, type ServiceNumber } from '../exact-json.js';
import { counted, sanitize } from '../render/text.js';
import type { DeliveryStatus } from '../protocol/status.js';

/**
 * The HTTP status an endpoint answered, or undefined when it gave none: the
 * interface's integer `response_code` is 0 then (as the sandbox sends it),
 * and a service that sends null instead means the same.
 */
export function answeredStatus(code: ServiceNumber | null | undefined): number | undefined {
  const value = numberValue(code);
  return value !== undefined && value > 0 ? value : undefined;
}

/** The interface's largest page: fewest requests for a whole log. */
export const MAX_PAGE = 200;

/**
 * Pages one walk follows at most: 100,000 pages are 20 million items at MAX_PAGE, more webhooks than
 * any account holds and more attempts than one command reads in hours (about 1.4 hours against a
 * service that answers a page in 50 ms). Past it the service is inventing pages (fresh cursors
 * without end), which the cycle check alone cannot see.
 */
export const MAX_PAGES = 100_000;

/**
 * Empty pages in a row, each saying more follow, after which a walk stops: a service inventing pages
 * of nothing (fresh cursors, no item) would otherwise be read to MAX_PAGES, and a list across
 * webhooks reads several logs at once. A service that filters a page after cutting it may give a few
 * empty pages; ten in a row, 2,000 items skipped at MAX_PAGE, is a service that goes nowhere.
 */
export const MAX_EMPTY_PAGES = 10;

/** A cursor as a walk remembers it: a short digest, so that 100,000 hostile cursors of any length stay a few MB. */
const digest = (cursor: string) => createHash('sha256').update(cursor).digest('base64');

/** What a walk through the account's webhooks is called in its errors. */
export const ACCOUNT_WEBHOOKS = "the account's webhooks";

/** What a walk through a webhook's log is called in its errors. */
export const logOf = (webhookId: string) => `the log of webhook ${sanitize(webhookId)}`;

/**
 * The guard of one walk through a list's pages, the one every walker uses: the
 * cursor of the next page, or undefined at the end. A cursor given before in
 * this walk (A → B → A, of any length), MAX_EMPTY_PAGES empty pages in a row
 * that say more follow, or a walk past MAX_PAGES is an answer of the wrong
 * shape, an ApiError naming the list: following it would never end.
 */
export class PageWalk {
  private readonly seen = new Set<string>();
  private pages = 0;
  /** Empty pages in a row so far, each saying more follow. */
  private empty = 0;

  /** `list`: the list walked, as its errors name it (logOf, ACCOUNT_WEBHOOKS); `start`: the cursor the walk begins at (`--cursor`), none for the first page. */
  constructor(
    private readonly list: string,
    start?: string,
  ) {
    if (start !== undefined) this.seen.add(digest(start));
  }

  /** The cursor of the page after `page` (the last one fetched), or undefined when it is the last. */
  next(page: Pick<Page<unknown>, 'data' | 'has_more' | 'next_cursor'>): string | undefined {
    this.pages += 1;
    if (!page.has_more) return undefined;
    const cursor: unknown = page.next_cursor;
    const wrong = (words: string) => new ApiError(200, 'unexpected_answer', words);
    // Stopping here would print part of a list as if whole (and apply would create what later pages hold).
    if (cursor === null || cursor === undefined || cursor === '') {
      throw wrong(`the service said more pages of ${this.list} follow but gave no cursor (page ${this.pages}): the list cannot be read whole`);
    }
    if (typeof cursor !== 'string') {
      throw wrong(`the service gave a next_cursor of ${this.list} that is not a string (page ${this.pages}): the list cannot be read whole`);
    }
    const key = digest(cursor);
    if (this.seen.has(key)) {
      throw wrong(`the service's pages of ${this.list} go round in a circle: page ${this.pages} gave a next_cursor given before; following it would never end`);
    }
    this.empty = page.data.length === 0 ? this.empty + 1 : 0;
    if (this.empty === MAX_EMPTY_PAGES) {
      throw wrong(
        `the service gave ${MAX_EMPTY_PAGES} empty pages of ${this.list} in a row (pages ${this.pages - MAX_EMPTY_PAGES + 1} to ${this.pages}), each saying more follow: whsvc stops rather than read without end`,
      );
    }
    if (this.pages >= MAX_PAGES) {
      throw wrong(`${this.list} goes on past ${counted(MAX_PAGES, 'page')}: whsvc stops there rather than read without end`);
    }
    this.seen.add(key);
    return cursor;
  }
}

/** Every item of a cursor-paginated list, one page in memory at a time; `page` fetches the page at a cursor. */
async function* pages<T>(list: string, page: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T[]> {
  const walk = new PageWalk(list);
  let cursor: string | undefined;
  do {
    const fetched = await page(cursor);
    yield fetched.data;
    cursor = walk.next(fetched);
  } while (cursor);
}

/** Every webhook of the account (with `active`, only the active or only the paused ones), one page at a time. */
export async function* allWebhooks(api: ApiClient, query: Pick<WebhookQuery, 'active'> = {}): AsyncGenerator<Webhook> {
  for await (const page of pages(ACCOUNT_WEBHOOKS, (cursor) => listWebhooks(api, { ...query, limit: MAX_PAGE, cursor }))) yield* page;
}

/** The webhooks given by id, each read first (an unknown one is its 404 before any log is read), or every webhook. */
export async function* webhooksOf(api: ApiClient, ids: string[]): AsyncGenerator<Webhook> {
  if (ids.length === 0) return yield* allWebhooks(api);
  const found: Webhook[] = [];
  for (const id of new Set(ids)) found.push(await getWebhook(api, id));
  yield* found;
}

/**
 * A webhook's attempts, newest first, down to `since` (epoch ms): the log is
 * newest first, so the first attempt older than that ends the walk. Read in
 * pages of `pageSize` (MAX_PAGE by default).
 */
export async function* attemptsOf(
  api: ApiClient,
  webhookId: string,
  options: { status?: DeliveryStatus | undefined; since?: number | undefined; pageSize?: number | undefined } = {},
): AsyncGenerator<Attempt> {
  const limit = options.pageSize ?? MAX_PAGE;
  for await (const page of pages(logOf(webhookId), (cursor) => listAttempts(api, webhookId, { status: options.status, limit, cursor }))) {
    for (const attempt of page) {
      if (options.since !== undefined && Date.parse(attempt.created_at) < options.since) return;
      yield attempt;
    }
  }
}

/** The delivery an attempt belongs to: the service's `delivery_id` when it sends one, else the attempt alone. */
export const deliveryKey = (attempt: Pick<Attempt, 'id' | 'delivery_id'>): string => attempt.delivery_id ?? attempt.id;
