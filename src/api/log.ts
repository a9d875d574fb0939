import type { ApiClient } from './client.js';
import { ApiError } from './errors.js';
import { listAttempts, listWebhooks } from './endpoints.js';
import type { Attempt, Page, Webhook } from './shapes.js';

/**
 * The HTTP status an endpoint answered, or undefined when it gave none: the
 * interface's integer `response_code` is 0 then (as the sandbox sends it),
 * and a service that sends null instead means the same.
 */
export function answeredStatus(code: number | null | undefined): number | undefined {
  return typeof code === 'number' && code > 0 ? code : undefined;
}

/** The interface's largest page: fewest requests for a whole log. */
export const MAX_PAGE = 200;

/**
 * The cursor of the page after `page` (the one fetched at `cursor`), or undefined at the end. A service that gives
 * back the cursor it was asked at would be followed for good: that is an answer of the wrong shape.
 */
export function nextCursor(page: Pick<Page<unknown>, 'has_more' | 'next_cursor'>, cursor: string | undefined): string | undefined {
  if (!page.has_more || !page.next_cursor) return undefined;
  if (page.next_cursor === cursor) {
    throw new ApiError(200, 'unexpected_answer', 'the service gave the same next_cursor as the page asked for: following it would never end');
  }
  return page.next_cursor;
}

/** Every item of a cursor-paginated list, one page in memory at a time; `page` fetches the page at a cursor. */
async function* pages<T>(page: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T[]> {
  let cursor: string | undefined;
  do {
    const fetched = await page(cursor);
    yield fetched.data;
    cursor = nextCursor(fetched, cursor);
  } while (cursor);
}

export async function* allWebhooks(api: ApiClient): AsyncGenerator<Webhook> {
  for await (const page of pages((cursor) => listWebhooks(api, { limit: MAX_PAGE, cursor }))) yield* page;
}

/**
 * A webhook's attempts, newest first, down to `since` (epoch ms): the log is
 * newest first, so the first attempt older than that ends the walk.
 */
export async function* attemptsOf(
  api: ApiClient,
  webhookId: string,
  options: { status?: string | undefined; since?: number | undefined } = {},
): AsyncGenerator<Attempt> {
  for await (const page of pages((cursor) => listAttempts(api, webhookId, { status: options.status, limit: MAX_PAGE, cursor }))) {
    for (const attempt of page) {
      if (options.since !== undefined && Date.parse(attempt.created_at) < options.since) return;
      yield attempt;
    }
  }
}

/** The delivery an attempt belongs to: the service's `delivery_id` when it sends one, else the attempt alone. */
export const deliveryKey = (attempt: Pick<Attempt, 'id' | 'delivery_id'>): string => attempt.delivery_id ?? attempt.id;
