import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressLine } from '../../../src/render/progress.js';
import { SPINNER_DELAY_MS, withSpinner } from '../../../src/render/spinner.js';

function stream() {
  const out = { text: '', isTTY: true, write: (chunk: string) => (out.text += chunk) };
  return out;
}

describe('withSpinner', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows nothing for work quicker than the delay', async () => {
    const err = stream();
    let finish!: (v: string) => void;
    const result = withSpinner(err, 'waiting', () => new Promise<string>((resolve) => (finish = resolve)));
    vi.advanceTimersByTime(SPINNER_DELAY_MS - 1);
    finish('done');
    expect(await result).toBe('done');
    vi.advanceTimersByTime(1_000);
    expect(err.text).toBe('');
  });

  it('spins after the delay and wipes its line when the work ends', async () => {
    const err = stream();
    let finish!: (v: number) => void;
    const result = withSpinner(err, 'waiting for api.example.com…', () => new Promise<number>((resolve) => (finish = resolve)));
    vi.advanceTimersByTime(SPINNER_DELAY_MS + 200);
    expect(err.text).toContain('waiting for api.example.com…');
    expect(err.text.split('\r').filter(Boolean).length).toBeGreaterThanOrEqual(3);
    finish(7);
    expect(await result).toBe(7);
    expect(err.text.endsWith('\r\u001b[2K')).toBe(true);
    const length = err.text.length;
    vi.advanceTimersByTime(1_000);
    expect(err.text.length).toBe(length);
  });

  it('wipes its line when the work fails too', async () => {
    const err = stream();
    let fail!: (e: Error) => void;
    const result = withSpinner(err, 'waiting', () => new Promise((_, reject) => (fail = reject)));
    vi.advanceTimersByTime(SPINNER_DELAY_MS + 10);
    fail(new Error('boom'));
    await expect(result).rejects.toThrow('boom');
    expect(err.text.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('stays quiet while a progress line holds the stream, and leaves that line alone', async () => {
    const err = stream();
    let clock = 0;
    const progress = new ProgressLine(err, () => clock);
    // A spinner already drawn when the progress line first draws: it stops, and does not wipe the progress at its end.
    let finishFirst!: () => void;
    const first = withSpinner(err, 'waiting for api.example.com…', () => new Promise<void>((resolve) => (finishFirst = resolve)));
    vi.advanceTimersByTime(SPINNER_DELAY_MS + 10);
    expect(err.text).toContain('waiting for');
    progress.update('re-sending 0/3');
    err.text = '';
    vi.advanceTimersByTime(500);
    finishFirst();
    await first;
    expect(err.text).toBe('');
    // Requests made while the progress line is up draw nothing; lines written above it keep it below.
    let finish!: () => void;
    const second = withSpinner(err, 'waiting for api.example.com…', () => new Promise<void>((resolve) => (finish = resolve)));
    vi.advanceTimersByTime(SPINNER_DELAY_MS + 500);
    clock += 200;
    progress.update('re-sending 1/3');
    progress.writeAbove('failed dlv_1: answered 500\n');
    finish();
    await second;
    expect(err.text).not.toContain('waiting for');
    expect(err.text.endsWith('\r\u001b[2Kfailed dlv_1: answered 500\nre-sending 1/3')).toBe(true);
    // Once the progress line is wiped, a spinner draws again.
    progress.clear();
    const third = withSpinner(err, 'waiting for api.example.com…', () => new Promise<void>((resolve) => (finish = resolve)));
    vi.advanceTimersByTime(SPINNER_DELAY_MS + 10);
    finish();
    await third;
    expect(err.text).toContain('waiting for');
  });
});

describe('ProgressLine', () => {
  it('a line wider than the terminal is cut between words, one column short of its width (\r then goes back to its start)', () => {
    const err = Object.assign(stream(), { columns: 30 });
    new ProgressLine(err).update('sending 3/9: invoice.paid with a digit 0 made 1 after it was signed');
    expect(err.text).toBe('\r\u001b[2Ksending 3/9: invoice.paid…');
  });
});
