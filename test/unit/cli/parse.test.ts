import { describe, expect, it } from 'vitest';
import {
  boundAt,
  duration,
  durationMs,
  inSeconds,
  maxAnswerBytes,
  maxAnswerSize,
  percentage,
  share,
  sizeBytes,
  timeBound,
  withScheme,
} from '../../../src/cli/parse.js';
import { sizeText } from '../../../src/render/words.js';
import { durationText } from '../../../src/render/words.js';

describe('durations and shares', () => {
  it('reads 500ms, 90s, 30m, 2h, 3d and a bare number of seconds', () => {
    expect(['500ms', '90s', '30m', '2h', '3d', '1.5s', '7'].map((value) => durationMs(value))).toEqual([
      500, 90_000, 1_800_000, 7_200_000, 259_200_000, 1500, 7000,
    ]);
    for (const bad of ['', 'h', '2x', '-5s', '1e3s', '2 h s']) expect(durationMs(bad), bad).toBeUndefined();
  });

  it('reads a bare number in the unit the flag has always read it in, and every other form alike', () => {
    // --retry-base-ms 500 is still 500 ms, and --retry-base-ms 2s is 2 s.
    expect(['500', '2s', '1m', '250ms'].map((value) => durationMs(value, 'ms'))).toEqual([500, 2000, 60_000, 250]);
    expect(duration(86_400_000, 1, 'ms')('5000')).toBe(5000);
    expect(() => duration(86_400_000, 1, 'ms')('soon')).toThrow('(a bare number is milliseconds)');
  });

  it('gives --timeout, --token-ttl and --interval the same forms, in their own units', () => {
    const timeout = inSeconds(duration(86_400_000, 1000));
    expect(['2s', '30', '5m', '1500ms'].map(timeout)).toEqual([2, 30, 300, 1.5]);
    expect(() => timeout('0')).toThrow('must be at least 1s.');
    expect(() => timeout('2d')).toThrow('must be at most 1d.');
    expect(() => timeout('two')).toThrow('must be a duration such as 500ms, 90s, 30m, 2h or 3d (a bare number is seconds).');
  });

  it('says a limit in the largest unit that holds it whole', () => {
    expect([1, 200, 1000, 1500, 60_000, 600_000, 86_400_000, 90 * 60_000].map(durationText)).toEqual([
      '1ms',
      '200ms',
      '1s',
      '1500ms',
      '1m',
      '10m',
      '1d',
      '90m',
    ]);
  });

  it('refuses what is not a duration, or too long, as a usage error', () => {
    expect(() => duration(60_000)('soon')).toThrow(/500ms, 90s/);
    expect(() => duration(60_000)('2m')).toThrow('must be at most 1m.');
    expect(duration(60_000)('1m')).toBe(60_000);
  });

  it('reads a share as 0.25 or 25%', () => {
    expect(share('0.25')).toBe(0.25);
    expect(share('25%')).toBe(0.25);
    expect(share('0')).toBe(0);
    for (const bad of ['1.5', '150%', 'half', '-0.1']) expect(() => share(bad), bad).toThrow(/share from 0 to 1/);
  });

  it('reads a percentage as 95 or 95%; a bare fraction is refused with what to write', () => {
    expect(['95', '95%', '99.5', '0', '0%', '100', '1', '0.5%'].map(percentage)).toEqual([95, 95, 99.5, 0, 0, 100, 1, 0.5]);
    for (const bad of ['101', '150%', 'most', '-5', '', '95%%']) expect(() => percentage(bad), bad).toThrow(/percentage from 0 to 100, such as 95/);
    expect(() => percentage('0.95')).toThrow('must be a percentage from 0 to 100: write 95 for 95% (or 0.95% for under one percent).');
  });
});

describe('timeBound', () => {
  it('reads a duration back from now or an ISO time, and refuses anything else', () => {
    expect(timeBound('2h')).toEqual({ ago: 7_200_000 });
    expect(timeBound('2026-11-23T08:00:00Z')).toEqual({ at: Date.UTC(2026, 10, 23, 8) });
    expect(timeBound('2026-11-23')).toEqual({ at: Date.UTC(2026, 10, 23) });
    expect(boundAt({ ago: 1000 }, 5000)).toBe(4000);
    expect(boundAt({ at: 1234 }, 5000)).toBe(1234);
    for (const bad of ['', 'yesterday', '2026-13-45T00:00:00Z', '11/23/2026', '-2h']) expect(() => timeBound(bad), bad).toThrow(/duration back from now/);
  });
});

describe('withScheme', () => {
  it("completes a URL written without its scheme, as stripe's --forward-to takes it: http for this machine, https elsewhere", () => {
    expect(withScheme('localhost:3000/x')).toBe('http://localhost:3000/x');
    expect(withScheme('localhost')).toBe('http://localhost');
    expect(withScheme('127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
    expect(withScheme('[::1]:8080/hooks?a=1')).toBe('http://[::1]:8080/hooks?a=1');
    expect(withScheme('app.localhost:3000')).toBe('http://app.localhost:3000');
    expect(withScheme('example.com/hooks')).toBe('https://example.com/hooks');
    expect(withScheme('hooks.example.com:8443')).toBe('https://hooks.example.com:8443');
    expect(withScheme('myhost:8080/x')).toBe('https://myhost:8080/x');
  });

  it('leaves alone what has a scheme or names no host, for the URL checks to judge', () => {
    for (const value of [
      'https://example.com/x',
      'http://localhost:3000',
      'ftp://example.com',
      'mailto:a@b.c',
      'hooks',
      '',
      'localhost:3000x',
      'user:pass@host.com',
    ])
      expect(withScheme(value), value).toBe(value);
  });
});

describe('sizes: --max-answer-size and WHSVC_MAX_ANSWER_SIZE', () => {
  it('reads 64MiB, 512KiB, 1GiB, their short forms and a bare number of bytes; says a size in the largest whole unit', () => {
    expect(['64MiB', '512KiB', '1GiB', '64m', '2 MiB', '1.5KiB', '4096', '10B'].map(sizeBytes)).toEqual([
      64 * 1024 ** 2,
      512 * 1024,
      1024 ** 3,
      64 * 1024 ** 2,
      2 * 1024 ** 2,
      1536,
      4096,
      10,
    ]);
    for (const bad of ['', 'MiB', '64MB', '-1MiB', '1e3', 'lots']) expect(sizeBytes(bad), bad).toBeUndefined();
    expect([64 * 1024 ** 2, 1024 ** 3, 1536, 1000].map(sizeText)).toEqual(['64MiB', '1GiB', '1536B', '1000B']);
  });

  it('--max-answer-size takes 1KiB to 512MiB, and says why not otherwise', () => {
    expect(maxAnswerSize('256MiB')).toBe(256 * 1024 ** 2);
    expect(() => maxAnswerSize('1GiB')).toThrow('must be at most 512MiB: an answer is read as one text, and Node holds none longer.');
    expect(() => maxAnswerSize('100')).toThrow('must be at least 1KiB.');
    expect(() => maxAnswerSize('64MB')).toThrow('must be a size such as 64MiB, 512KiB or 1GiB (a bare number is bytes).');
  });

  it('the flag, else the variable (empty is unset), else 64MiB; a bad variable is a usage error naming it', () => {
    expect(maxAnswerBytes({ maxAnswerBytes: 2048 }, { WHSVC_MAX_ANSWER_SIZE: '1MiB' })).toBe(2048);
    expect(maxAnswerBytes({}, { WHSVC_MAX_ANSWER_SIZE: '1MiB' })).toBe(1024 ** 2);
    expect(maxAnswerBytes({}, { WHSVC_MAX_ANSWER_SIZE: '' })).toBe(64 * 1024 ** 2);
    expect(maxAnswerBytes({}, {})).toBe(64 * 1024 ** 2);
    expect(() => maxAnswerBytes({}, { WHSVC_MAX_ANSWER_SIZE: 'big' })).toThrow(
      expect.objectContaining({ exitCode: 2, message: 'WHSVC_MAX_ANSWER_SIZE "big": must be a size such as 64MiB, 512KiB or 1GiB (a bare number is bytes)' }),
    );
  });
});
