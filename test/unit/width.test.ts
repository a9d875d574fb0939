import { describe, expect, it } from 'vitest';
import { cutEnd, cutMiddle, displayWidth, padEnd, shortenUrl, urlKeptWidth } from '../../src/render/width.js';

describe('widths as a terminal draws them', () => {
  it('counts emoji, their modifiers and CJK as the terminal does', () => {
    expect(displayWidth('rocket 🚀 launch')).toBe(16);
    expect(displayWidth('👍🏽 ok')).toBe(5);
    expect(displayWidth('請求書')).toBe(6);
    expect(displayWidth('café')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
  });

  it('cuts whole characters, never half an emoji or a letter without its accent', () => {
    expect(cutEnd('請求書の支払い', 7)).toBe('請求書…');
    expect(cutEnd('👍🏽👍🏽👍🏽', 4)).toBe('👍🏽…');
    expect(cutEnd('short', 10)).toBe('short');
    expect(padEnd('👍🏽 ok', 7)).toBe('👍🏽 ok  ');
  });

  it('cuts an id in its middle, so that its start and its end both stay', () => {
    expect(cutMiddle('dlv_3efebf03730a202cb999fe2d', 14)).toBe('dlv_3e…999fe2d');
    expect(displayWidth(cutMiddle('dlv_3efebf03730a202cb999fe2d', 14))).toBe(14);
    expect(cutMiddle('abc', 3)).toBe('abc');
  });

  it("shortens a URL where URLs are alike: the host's end goes, the port and the path's end stay", () => {
    expect(shortenUrl('http://127.0.0.1:9001/fail', 22)).toBe('http://127.…:9001/fail');
    expect(shortenUrl('http://127.0.0.1:9001/fail', 21)).toBe('http://127…:9001/fail');
    expect(shortenUrl('http://127.0.0.1:9001/fail', 40)).toBe('http://127.0.0.1:9001/fail');
    // A path too long to keep whole: its middle goes, the host's start and the path's end stay.
    const long = shortenUrl('https://hooks.example.com/api/v1/webhooks/receiver', 24);
    expect(long).toHaveLength(24);
    expect(long.startsWith('https://')).toBe(true);
    expect(long.endsWith('/receiver')).toBe(true);
    // What a column of URLs keeps before other columns give way: scheme, three characters of host, port, path.
    expect(urlKeptWidth('http://127.0.0.1:9001/fail')).toBe('http://127…:9001/fail'.length);
    expect(urlKeptWidth('https://example.com')).toBe('https://example.com'.length);
  });
});
