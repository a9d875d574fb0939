import { describe, expect, it } from 'vitest';
import { deliveryFate, type FateAttempt } from '../../../src/protocol/fate.js';
import { clockTime, fateSentence, fateWords } from '../../../src/render/words.js';

// A delivery's fate, told once from its attempts as the service lists them (newest first), and said in one wording.

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const failed = (attempt: number, s: number, next_attempt_at?: string | null): FateAttempt => ({
  status: 'failed',
  attempt,
  created_at: at(s),
  next_attempt_at,
});

describe('deliveryFate', () => {
  it('delivered by the attempt that got through, whatever failed before it', () => {
    const log = [{ status: 'delivered', attempt: 6, created_at: at(60), next_attempt_at: null } as const, failed(5, 30, null), failed(1, 0, null)];
    expect(deliveryFate(log, true)).toEqual({ status: 'delivered', attempt: 6, at: at(60) });
    // Delivered is final: it holds even when newer attempts may be unread.
    expect(deliveryFate(log, false)).toEqual({ status: 'delivered', attempt: 6, at: at(60) });
    expect(deliveryFate([{ status: 'delivered', created_at: at(1) }], true)).toEqual({ status: 'delivered', attempt: null, at: at(1) });
  });

  it('failed: its retry due, no more retries when the service says none is due, or unknown when it does not say', () => {
    expect(deliveryFate([failed(2, 10, at(30)), failed(1, 0)], true)).toEqual({ status: 'failed', retry: 'due', due_at: at(30) });
    expect(deliveryFate([failed(3, 30, null), failed(2, 10, null)], true)).toEqual({ status: 'failed', retry: 'none' });
    expect(deliveryFate([failed(3, 30)], true)).toEqual({ status: 'failed', retry: 'unknown' });
  });

  it('pending while an attempt is under way', () => {
    expect(deliveryFate([{ status: 'pending', attempt: 2, created_at: at(5), next_attempt_at: null }, failed(1, 0)], true)).toEqual({ status: 'pending' });
  });

  it('not known when the newest attempt may not be among those read (an older one says null: a retry may follow it)', () => {
    expect(deliveryFate([failed(2, 10, null)], false)).toBeUndefined();
    expect(deliveryFate([], true)).toBeUndefined();
    expect(deliveryFate([{ status: 'queued' as 'failed', created_at: at(0) }], true)).toBeUndefined();
  });
});

describe('fateWords and fateSentence: one wording', () => {
  it('says each fate in the words of its status', () => {
    const due = clockTime(at(30), T0);
    expect(fateWords({ status: 'failed', retry: 'due', due_at: at(30) }, T0)).toBe(`failed · retry due ${due}`);
    expect(fateWords({ status: 'failed', retry: 'due', due_at: at(30) })).toBe('failed · retry due');
    expect(fateWords({ status: 'failed', retry: 'none' })).toBe('failed · no more retries');
    expect(fateWords({ status: 'failed', retry: 'unknown' })).toBe('failed');
    expect(fateWords({ status: 'pending' })).toBe('pending');
    expect(fateWords({ status: 'delivered', attempt: 6, at: at(60) }, T0)).toBe('delivered');
  });

  it('names the attempt that delivered, and when, where there is room', () => {
    expect(fateSentence({ status: 'delivered', attempt: 6, at: at(60) }, T0)).toBe(`delivered by attempt 6 at ${clockTime(at(60), T0)}`);
    expect(fateSentence({ status: 'delivered', attempt: null, at: at(60) }, T0)).toBe(`delivered at ${clockTime(at(60), T0)}`);
    expect(fateSentence({ status: 'failed', retry: 'none' }, T0)).toBe('failed · no more retries');
  });
});
