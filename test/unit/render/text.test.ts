import { describe, expect, it } from 'vitest';
import { keyValues, sanitize, sanitizeBlock } from '../../../src/render/text.js';
import { relativeTime } from '../../../src/render/words.js';

describe('server strings on the terminal', () => {
  it('a value cannot forge another line nor drive the terminal', () => {
    const forged = 'https://example.com/a\nsigning secret  whsec_FAKE\u001b[31m\u0007\u009b';
    const block = keyValues([
      ['url', forged],
      ['id', 'wh_1'],
    ]);
    expect(block.split('\n').filter(Boolean)).toHaveLength(2);
    expect(block).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(block).toContain('url  https://example.com/a signing secret  whsec_FAKE[31m');
  });

  it('styled values are passed as they are (the caller coloured a known string)', () => {
    expect(keyValues([['status', { styled: '\u001b[32mactive\u001b[39m' }]])).toBe('status  \u001b[32mactive\u001b[39m\n');
  });

  it('sanitize makes one line; sanitizeBlock keeps line breaks but no other control character', () => {
    expect(sanitize('a\tb\r\nc')).toBe('a b  c');
    expect(sanitizeBlock('{\n  "a": "\u001b]0;x\u0007"\n}')).toBe('{\n  "a": "]0;x"\n}');
  });
});

describe('relative times', () => {
  it('a time that rounds to the next unit is said in it: 59.7 minutes is an hour, not "60 minutes"', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    const ago = (seconds: number) => relativeTime(new Date(now - seconds * 1000).toISOString(), now);
    expect(ago(3582)).toBe('1 hour ago');
    expect(ago(3500)).toBe('58 minutes ago');
    expect(ago(59)).toBe('59 seconds ago');
    expect(ago(89_990)).toBe('yesterday');
  });
});
