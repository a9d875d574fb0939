import { afterEach, describe, expect, it, vi } from 'vitest';
import { SilenceWatch } from '../../../src/cli/silence.js';

afterEach(() => vi.useRealTimers());

describe('SilenceWatch (--max-silence)', () => {
  it('calls back once the limit passes with nothing heard; each heard() starts the limit again', () => {
    vi.useFakeTimers();
    const silent = vi.fn();
    const watch = new SilenceWatch(1_000, silent);
    vi.advanceTimersByTime(900);
    watch.heard();
    vi.advanceTimersByTime(900);
    expect(silent).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(silent).toHaveBeenCalledTimes(1);
    watch.stop();
  });

  it('without a limit, or once stopped, it never calls back', () => {
    vi.useFakeTimers();
    const silent = vi.fn();
    new SilenceWatch(undefined, silent).heard();
    const stopped = new SilenceWatch(1_000, silent);
    stopped.stop();
    vi.advanceTimersByTime(10_000);
    expect(silent).not.toHaveBeenCalled();
  });

  it('started unarmed, it counts from the first heard(): a first wait of any length is no silence', () => {
    vi.useFakeTimers();
    const silent = vi.fn();
    const watch = new SilenceWatch(1_000, silent, false);
    vi.advanceTimersByTime(5_000);
    expect(silent).not.toHaveBeenCalled();
    watch.heard();
    vi.advanceTimersByTime(1_000);
    expect(silent).toHaveBeenCalledTimes(1);
    watch.stop();
  });
});
