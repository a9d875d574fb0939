import { createHash } from 'node:crypto';
import type { ApiClient } from './client.js';
import { ApiError } from './errors.js';
import { getWebhook, listAttempts, listWebhooks, type WebhookQuery } from './endpoints.js';
import type { Attempt, Page, Webhook } from './shapes.js';
import { numberValue, type ServiceNumber } from '../exact-json.js';
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
 * any account holds and more attempts than one command reads in hours. Past it the service is
 * inventing pages (fresh cursors without end), which the cycle check alone cannot see.
 */
export const MAX_PAGES = 100_000;

/** A cursor as a walk remembers it: a short digest, so that 100,000 hostile cursors of any length stay a few MB. */
const digest = (cursor: string) => createHash('sha256').update(cursor).digest('base64');

/**
 * The guard of one walk through a list's pages, the one every walker uses: the
 * cursor of the next page, or undefined at the end. A cursor given before in
 * this walk (A → B → A, of any length) or a walk past MAX_PAGES is an answer of
 * the wrong shape, an ApiError: following it would never end.
 */
export class PageWalk {
  private readonly seen = new Set<string>();
  private pages = 0;

  /** `start`: the cursor the walk begins at (`--cursor`), none for the first page. */
  constructor(start?: string) {
    if (start !== undefined) this.seen.add(digest(start));
  }

  /** The cursor of the page after `page` (the last one fetched), or undefined when it is the last. */
  next(page: Pick<Page<unknown>, 'has_more' | 'next_cursor'>): string | undefined {
    this.pages += 1;
    if (!page.has_more) return undefined;
    const cursor: unknown = page.next_cursor;
    // Stopping here would print part of a list as if whole (and apply would create what later pages hold).
    if (cursor === null || cursor === undefined || cursor === '') {
      throw new ApiError(200, 'unexpected_answer', `the service said more pages follow but gave no cursor (page ${this.pages}): the list cannot be read whole`);
    }
    if (typeof cursor !== 'string') {
      throw new ApiError(200, 'unexpected_answer', `the service gave a next_cursor that is not a string (page ${this.pages}): the list cannot be read whole`);
    }
    const key = digest(cursor);
    if (this.seen.has(key)) {
      throw new ApiError(
        200,
        'unexpected_answer',
        `the service's pages go round in a circle: page ${this.pages} gave a next_cursor given before; following it would never end`,
      );
    }
    if (this.pages >= MAX_PAGES) {
      throw new ApiError(
        200,
        'unexpected_answer',
        `the list goes on past ${MAX_PAGES.toLocaleString('en-US')} pages: whsvc stops there rather than read without end`,
      );
    }
    this.seen.add(key);
    return cursor;
  }
}

/** Every item of a cursor-paginated list, one page in memory at a time; `page` fetches the page at a cursor. */
async function* pages<T>(page: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T[]> {
  const walk = new PageWalk();
  let cursor: string | undefined;
  do {
    const fetched = await page(cursor);
    yield fetched.data;
    cursor = walk.next(fetched);
  } while (cursor);
}

/** Every webhook of the account (with `active`, only the active or only the paused ones), one page at a time. */
export async function* allWebhooks(api: ApiClient, query: Pick<WebhookQuery, 'active'> = {}): AsyncGenerator<Webhook> {
  for await (const page of pages((cursor) => listWebhooks(api, { ...query, limit: MAX_PAGE, cursor }))) yield* page;
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
  for await (const page of pages((cursor) => listAttempts(api, webhookId, { status: options.status, limit, cursor }))) {
    for (const attempt of page) {
      if (options.since !== undefined && Date.parse(attempt.created_at) < options.since) return;
      yield attempt;
    }
  }
}

/** The delivery an attempt belongs to: the service's `delivery_id` when it sends one, else the attempt alone. */
export const deliveryKey = (attempt: Pick<Attempt, 'id' | 'delivery_id'>): string => attempt.delivery_id ?? attempt.id;
