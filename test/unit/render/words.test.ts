import { describe, expect, it } from 'vitest';
import { durationText, elapsed } from '../../../src/render/words.js';

describe('elapsed: every duration a sentence says, in one form', () => {
  it.each([
    [0, '0 ms'],
    [12, '12 ms'],
    [999, '999 ms'],
    [1000, '1 s'],
    [1500, '1.5 s'],
    [2500, '2.5 s'],
    [10_000, '10 s'],
    [59_400, '59 s'],
    [60_000, '1 min'],
    [90_000, '1 min 30 s'],
    [3_600_000, '1 h'],
    [3_900_000, '1 h 5 min'],
    [86_400_000, '1 d'],
    [3 * 86_400_000 + 4 * 3_600_000, '3 d 4 h'],
    [-1500, '1.5 s'],
    // Rounded to the unit shown, then split: never 60 of a unit.
    [999.6, '1 s'],
    [9_960, '10 s'],
    [59_600, '1 min'],
    [119_600, '2 min'],
    [3_599_700, '1 h'],
    [86_399_000, '1 d'],
    [172_799_000, '2 d'],
  ])('%i ms: %s', (ms, words) => {
    expect(elapsed(ms)).toBe(words);
  });

  it('a flag value is another thing: the form a flag takes, to be typed', () => {
    expect(durationText(90_000)).toBe('90s');
    expect(durationText(86_400_000)).toBe('1d');
    expect(durationText(1500)).toBe('1500ms');
  });
});
