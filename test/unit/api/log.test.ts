import { describe, expect, it } from 'vitest';
import { nextCursor } from '../../../src/api/log.js';

describe('nextCursor: the pages of a list', () => {
  it('the next page while there is one; none at the end', () => {
    expect(nextCursor({ has_more: true, next_cursor: 'c2' }, 'c1')).toBe('c2');
    expect(nextCursor({ has_more: true, next_cursor: 'c1' }, undefined)).toBe('c1');
    expect(nextCursor({ has_more: false, next_cursor: 'c2' }, 'c1')).toBeUndefined();
    expect(nextCursor({ has_more: true, next_cursor: null }, 'c1')).toBeUndefined();
  });

  it('a service that gives back the cursor it was asked at is an error, not a walk that never ends', () => {
    expect(() => nextCursor({ has_more: true, next_cursor: 'same' }, 'same')).toThrow(
      expect.objectContaining({ code: 'unexpected_answer', message: expect.stringContaining('never end') }),
    );
  });
});
