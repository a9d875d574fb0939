import { describe, expect, it } from 'vitest';
import { canonicalJson, EXACT_NUMBERS_UP_TO, exactParse, numberText, numberValue, type ServiceNumber } from '../../src/exact-json.js';

describe('exactParse: the service JSON read exactly', () => {
  it.each(['12345678901234567890123', '1e400', '-1e400', '1e-400', '9007199254740993', '0.1000000000000000000000001'])(
    '%s, which a double would change, is written back as the service wrote it',
    (number) => {
      const text = `{"data":[{"n":${number}}],"more":[${number}]}`;
      expect(JSON.stringify(exactParse(text))).toBe(text);
      expect(JSON.stringify(exactParse(text), null, 2)).toContain(`"n": ${number}`);
    },
  );

  it('numbers a double holds stay plain numbers, whatever their spelling', () => {
    const value = exactParse('[200, 0, 1.0, 1E2, 0.1, 5e-324, 1.7976931348623157e308, 9007199254740992, 0.30000000000000004]') as unknown[];
    for (const item of value) expect(typeof item).toBe('number');
    expect(value).toEqual([200, 0, 1, 100, 0.1, 5e-324, 1.7976931348623157e308, 9007199254740992, 0.30000000000000004]);
  });

  it('a negative zero keeps its sign, which a plain number would lose when written (-0 is written 0)', () => {
    const text = '{"a":-0,"b":[-0.0],"c":-0.5}';
    expect(JSON.stringify(exactParse(text))).toBe(text);
  });

  it('text with no number a double could change is read as JSON.parse reads it (ids with e2 and long digit runs in strings)', () => {
    const text = '{"data":[{"id":"dlv_2b0e8599a501234567890123","n":12,"t":"2026-11-28T13:45:51.123Z"}],"next_cursor":"e5"}';
    expect(exactParse(text)).toEqual(JSON.parse(text));
  });

  it('numberValue computes with either; numberText shows either as the service wrote it', () => {
    const [big, infinite, plain] = exactParse('[12345678901234567890123, 1e400, 3]') as ServiceNumber[];
    expect(numberValue(big!)).toBe(1.2345678901234568e22);
    expect(numberValue(infinite!)).toBe(Number.POSITIVE_INFINITY);
    expect(numberValue(plain!)).toBe(3);
    expect([big, infinite, plain].map((n) => numberText(n))).toEqual(['12345678901234567890123', '1e400', '3']);
    expect(numberValue(undefined)).toBeUndefined();
    expect(numberText(null)).toBeUndefined();
  });

  it('past EXACT_NUMBERS_UP_TO a text is read as JSON.parse reads it: its time and memory stay those of a parse', () => {
    const text = `[${'12345678901234567890123,'.repeat(Math.ceil(EXACT_NUMBERS_UP_TO / 24))}1]`;
    expect(text.length).toBeGreaterThan(EXACT_NUMBERS_UP_TO);
    const value = exactParse(text) as unknown[];
    expect(typeof value[0]).toBe('number');
    expect(JSON.stringify(exactParse('[12345678901234567890123]'))).toBe('[12345678901234567890123]');
  });
});

describe('canonicalJson: one text for one value', () => {
  it('writes the keys of every object in order, drops undefined, and keeps a number a double would change', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 }, e: undefined })).toBe('{"a":{"c":3,"d":2},"b":1}');
    expect(canonicalJson(exactParse('{"z":[{"y":1,"x":12345678901234567890123}]}'))).toBe('{"z":[{"x":12345678901234567890123,"y":1}]}');
  });
});
