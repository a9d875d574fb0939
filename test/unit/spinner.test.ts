import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SPINNER_DELAY_MS, withSpinner } from '../../src/render/spinner.js';

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
});
