import { describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { andMore, counted, countText, cutWords, keyValues, sanitize, sanitizeBlock, shellWord } from '../../../src/render/text.js';
import { bytesText, relativeTime } from '../../../src/render/words.js';

describe('server strings on the terminal', () => {
  it('a value cannot forge another line nor drive the terminal', () => {
    const forged = 'https://example.com/a\nsigning secret  whsec_FAKE\u001b[31m\u0007\u009b';
    const block = keyValues(
      [
        ['url', forged],
        ['id', 'wh_1'],
      ],
      (s) => s,
      undefined,
    );
    expect(block.split('\n').filter(Boolean)).toHaveLength(2);
    expect(block).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(block).toContain('url  https://example.com/a signing secret  whsec_FAKE[31m');
  });

  it('styled values are passed as they are (the caller coloured a known string)', () => {
    expect(keyValues([['status', { styled: '\u001b[32mactive\u001b[39m' }]], (s) => s, undefined)).toBe('status  \u001b[32mactive\u001b[39m\n');
  });

  it('on a terminal every value a user copies stays whole (a URL, a secret); only a value named as shown (shorten) is shortened as an id is', () => {
    const secret = 'whsec_OdJCXeCJf7Omng-tDH88oMUb7EFolM53';
    const url = 'https://hooks.example.com/api/v2/webhooks/erp/invoices';
    const signature = `sha256=${'3f2a'.repeat(15)}9c1d`;
    const block = keyValues(
      [
        ['url', url],
        ['signing secret', secret],
        ['signature', { text: `${signature} (the secret in ./whsec.txt)`, shorten: [signature] }],
      ],
      (s) => s,
      52,
    );
    expect(block.split('\n')).toEqual([
      'url',
      url,
      'signing secret',
      secret,
      expect.stringMatching(/^signature {7}sha256=3f2a[0-9a-f]*…[0-9a-f]*9c1d$/),
      `${' '.repeat(16)}(the secret in ./whsec.txt)`,
      '',
    ]);
  });

  it('sanitize makes one line; sanitizeBlock keeps line breaks but no other control character', () => {
    expect(sanitize('a\tb\r\nc')).toBe('a b  c');
    expect(sanitizeBlock('{\n  "a": "\u001b]0;x\u0007"\n}')).toBe('{\n  "a": "]0;x"\n}');
  });
});

describe('shellWord: a word as a shell takes it back', () => {
  it("control characters are escaped in $'…', seen as they are, and bash reads the same string back", () => {
    const words = ['\u001b[31mred', "it's\n\ttabbed\r", 'bell\u0007 del\u007f c1\u009b back\\slash', 'plain-word', 'two words'];
    expect(words.map(shellWord)).toEqual([
      "$'\\e[31mred'",
      "$'it\\'s\\n\\ttabbed\\r'",
      "$'bell\\a del\\x7f c1\\u009b back\\\\slash'",
      'plain-word',
      "'two words'",
    ]);
    for (const word of words) {
      expect(shellWord(word)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      const back = execFileSync('bash', ['-c', `printf %s ${shellWord(word)}`], { encoding: 'utf8', env: { LC_ALL: 'C.UTF-8' } });
      expect(back).toBe(word);
    }
  });
});

describe('cutWords: a line of words too long to read', () => {
  it('is cut between words, in its middle, saying how many it leaves out; a short one is whole', () => {
    expect(cutWords(['whsvc', 'webhooks', 'list'])).toBe('whsvc webhooks list');
    const cut = cutWords(['whsvc', ...Array.from({ length: 30_000 }, (_, i) => `w${i}`), '--json']);
    expect(cut).toMatch(/^whsvc w0 w1 .* w\d+ … 29,9\d\d more words … w\d+ .* w29999 --json$/);
    expect(cut.length).toBeLessThan(250);
    expect(cutWords(['a'.repeat(300)], ' ', 200)).toBe('… 1 more word …');
  });
});

describe('counts, said one way in every line', () => {
  it('group their digits by threes with commas, and take the noun in the number they say', () => {
    expect([0, 1, 999, 1000, 1234, 24_000, 1_234_567].map((n) => counted(n, 'delivery'))).toEqual([
      '0 deliveries',
      '1 delivery',
      '999 deliveries',
      '1,000 deliveries',
      '1,234 deliveries',
      '24,000 deliveries',
      '1,234,567 deliveries',
    ]);
    expect(counted(1000, 'attempt carries', 'attempts carry')).toBe('1,000 attempts carry');
    expect([countText(-1234), countText(1234.5), countText('12345678901234567890')]).toEqual(['-1,234', '1,234.5', '12,345,678,901,234,567,890']);
    expect(andMore(['a', 'b'], 1002)).toBe('a, b and 1,000 more');
    expect(bytesText(2048 + 1)).toBe('2,049 bytes');
  });

  it('whatever the locale of the machine', () => {
    // As a machine set to German would format a number by default: 1.234.
    const byDefault = Number.prototype.toLocaleString;
    const german = vi.spyOn(Number.prototype, 'toLocaleString').mockImplementation(function (this: number, locales, options) {
      return byDefault.call(this, locales ?? 'de-DE', options);
    });
    try {
      expect((1234).toLocaleString()).toBe('1.234');
      expect(counted(1234, 'webhook')).toBe('1,234 webhooks');
    } finally {
      german.mockRestore();
    }
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
