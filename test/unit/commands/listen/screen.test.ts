import { describe, expect, it } from 'vitest';
import { notSentAgain } from '../../../../src/commands/listen/screen.js';

describe('listen -i: r', () => {
  it('with a secret given, refuses a delivery whose signature did not verify, saying why; sends a verified one', () => {
    for (const check of ['mismatch', 'missing', 'malformed'] as const) {
      expect(notSentAgain(check, true)).toBe(`not sent again: its signature is ${check}, and r sends on only a delivery whose signature verified`);
    }
    expect(notSentAgain('verified', true)).toBeUndefined();
  });

  it('without a secret, sends it as received, unchecked, as plain listen forwards it', () => {
    expect(notSentAgain('not_checked', false)).toBeUndefined();
  });
});
