import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Cursors } from '../../../src/sandbox/cursor.js';
import { ErrorAnswer } from '../../../src/sandbox/http.js';

const KEY = 'cursor-key-for-unit-tests';
const LIST = 'deliveries:wh_0123456789abcdef01234567';

function decodeError(cursors: Cursors, list: string, cursor: string): unknown {
  try {
    const seq = cursors.decode(list, cursor);
    return new Error(`decode accepted ${JSON.stringify(cursor)} as seq ${seq}`);
  } catch (error) {
    return error;
  }
}

function expectInvalidCursor(cursors: Cursors, list: string, cursor: string): void {
  const error = decodeError(cursors, list, cursor);
  expect(error).toBeInstanceOf(ErrorAnswer);
  const refusal = error as ErrorAnswer;
  expect(refusal.status).toBe(400);
  expect(refusal.code).toBe('invalid_cursor');
  expect(refusal.message).toMatch(/cursor/);
}

/** A cursor carrying the given text, with no valid MAC unless the text has one. */
function raw(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

describe('Cursors', () => {
  it('round-trips a position', () => {
    const cursors = new Cursors(KEY);
    for (const seq of [1, 2, 42, 1_000_000, Number.MAX_SAFE_INTEGER]) {
      const cursor = cursors.encode(LIST, seq);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(cursors.decode(LIST, cursor)).toBe(seq);
    }
  });

  it('is opaque and stable: same list and position give the same cursor, under the same key only', () => {
    const a = new Cursors(KEY);
    const b = new Cursors(KEY);
    expect(a.encode(LIST, 7)).toBe(b.encode(LIST, 7));
    expect(b.decode(LIST, a.encode(LIST, 7))).toBe(7);
    expect(a.encode(LIST, 7)).not.toBe(a.encode(LIST, 8));
  });

  it('refuses a cursor from another list', () => {
    const cursors = new Cursors(KEY);
    const cursor = cursors.encode('deliveries:wh_aaaaaaaaaaaaaaaaaaaaaaaa', 5);
    expectInvalidCursor(cursors, 'deliveries:wh_bbbbbbbbbbbbbbbbbbbbbbbb', cursor);
    expectInvalidCursor(cursors, 'webhooks:acct_demo', cursor);
  });

  it('refuses a cursor made with another key', () => {
    const cursor = new Cursors('another-key').encode(LIST, 5);
    expectInvalidCursor(new Cursors(KEY), LIST, cursor);
  });

  it('refuses a tampered cursor: position changed, MAC kept', () => {
    const cursors = new Cursors(KEY);
    const cursor = cursors.encode(LIST, 5);
    const [list, seq, mac] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
    expect(list).toBe(LIST);
    expect(seq).toBe('5');
    expectInvalidCursor(cursors, LIST, raw(`${LIST}|6|${mac}`));
    expectInvalidCursor(cursors, LIST, raw(`${LIST}|5|${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`));
    expectInvalidCursor(cursors, LIST, raw(`${LIST}|5|`));
    expectInvalidCursor(cursors, LIST, raw(`${LIST}|5`));
  });

  it('refuses a tampered cursor: one character of the cursor changed', () => {
    const cursors = new Cursors(KEY);
    const cursor = cursors.encode(LIST, 5);
    let refused = 0;
    for (let i = 0; i < cursor.length; i += 1) {
      const replacement = cursor[i] === 'A' ? 'B' : 'A';
      const changed = `${cursor.slice(0, i)}${replacement}${cursor.slice(i + 1)}`;
      const error = decodeError(cursors, LIST, changed);
      // Changing the last character may only touch base64 padding bits and decode the same.
      if (error instanceof ErrorAnswer) {
        expect(error.code).toBe('invalid_cursor');
        refused += 1;
      } else {
        expect(cursors.decode(LIST, changed)).toBe(5);
      }
    }
    expect(refused).toBeGreaterThanOrEqual(cursor.length - 1);
  });

  it('refuses a cursor whose MAC part has non-ASCII characters of the right length (22 characters, more bytes)', () => {
    const cursors = new Cursors(KEY);
    // 22 UTF-16 characters, 44 UTF-8 bytes: the MAC must be compared by bytes, not by string length.
    expectInvalidCursor(cursors, LIST, raw(`${LIST}|5|${'é'.repeat(22)}`));
    // Bytes that are not UTF-8 at all decode to U+FFFD (3 bytes each).
    const invalidUtf8 = Buffer.concat([Buffer.from(`${LIST}|5|`), Buffer.alloc(22, 0xff)]).toString('base64url');
    expectInvalidCursor(cursors, LIST, invalidUtf8);
  });

  it('refuses a made-up position even with a valid MAC if it is not a positive integer', () => {
    const cursors = new Cursors(KEY);
    // Forge with the right key: the MAC scheme is the module's, recomputed here.
    const forge = (seq: string) => {
      const body = `${LIST}|${seq}`;
      const mac = createHmac('sha256', KEY).update(body).digest('base64url').slice(0, 22);
      return raw(`${body}|${mac}`);
    };
    expect(cursors.decode(LIST, forge('9'))).toBe(9);
    for (const seq of ['0', '-1', '1.5', 'NaN', 'abc', '', '9007199254740993']) {
      expectInvalidCursor(cursors, LIST, forge(seq));
    }
  });

  it.each([
    ['empty string', ''],
    ['plain text', 'not a cursor'],
    ['standard base64 with padding', Buffer.from('x|1|y').toString('base64')],
    ['base64url of garbage', raw('garbage')],
    ['base64url of too many fields', raw('a|b|c|d')],
    ['random bytes', Buffer.from([0xff, 0xfe, 0x00, 0x10, 0x80]).toString('base64url')],
    ['too long', 'A'.repeat(513)],
    ['a number', '42'],
    ['JSON', '{"seq":5}'],
  ])('refuses garbage (%s) with 400 invalid_cursor', (_label, cursor) => {
    expectInvalidCursor(new Cursors(KEY), LIST, cursor);
  });
});
