import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from './http.js';

/**
 * Opaque keyset cursors: the list they belong to and the position (the last
 * item's sequence number), with a MAC so that a cursor that was edited, made
 * up, or taken from another list is refused rather than misread.
 */
export class Cursors {
  constructor(private readonly key: string) {}

  encode(list: string, seq: number): string {
    const body = `${list}|${seq}`;
    return Buffer.from(`${body}|${this.mac(body)}`).toString('base64url');
  }

  decode(list: string, cursor: string): number {
    const invalid = () => badRequest('invalid_cursor', 'cursor is not valid for this list; pass the next_cursor of a previous page');
    if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw invalid();
    const text = Buffer.from(cursor, 'base64url').toString('utf8');
    const parts = text.split('|');
    if (parts.length !== 3) throw invalid();
    const [cursorList, seqText, mac] = parts as [string, string, string];
    const expected = Buffer.from(this.mac(`${cursorList}|${seqText}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    if (cursorList !== list) throw invalid();
    const seq = Number(seqText);
    if (!Number.isSafeInteger(seq) || seq < 1) throw invalid();
    return seq;
  }

  /**
   * A page of a list, from `limit + 1` rows read after the cursor's position:
   * the first `limit` as `view` shows them, and the cursor of the next page
   * when there is one.
   */
  page<T extends { seq: number }, V>(
    rows: T[],
    limit: number,
    list: string,
    view: (row: T) => V,
  ): { data: V[]; has_more: boolean; next_cursor: string | null } {
    const hasMore = rows.length > limit;
    const items = rows.slice(0, limit);
    return { data: items.map(view), has_more: hasMore, next_cursor: hasMore ? this.encode(list, items[items.length - 1]!.seq) : null };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url').slice(0, 22);
  }
}
