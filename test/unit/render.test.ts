import { describe, expect, it } from 'vitest';
import { keyValues, sanitize, sanitizeBlock } from '../../src/render/text.js';

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
