import { describe, expect, it } from 'vitest';
import { cutEnd, cutMiddle, displayWidth, padEnd, shortenUrl } from '../../../src/render/width.js';

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

  it('shortens a URL in its path, its scheme and host whole (render/cuts.test.ts has the rest)', () => {
    expect(shortenUrl('http://127.0.0.1:9001/fail', 40)).toBe('http://127.0.0.1:9001/fail');
    const long = shortenUrl('https://hooks.example.com/api/v1/webhooks/receiver', 40);
    expect(long).toBe('https://hooks.example.com/api/…/receiver');
    // After a label (tail's forward line, `→ URL`), the host still whole.
    expect(shortenUrl('→ http://localhost:3000/api/v1/webhooks', 34)).toBe('→ http://localhost:3000/…/webhooks');
  });
});
