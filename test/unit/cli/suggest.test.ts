import { describe, expect, it } from 'vitest';
import { closest, notOneOf } from '../../../src/cli/suggest.js';

describe('did you mean', () => {
  it('suggests near misses, swapped letters included', () => {
    expect(closest('ture', ['true', 'false'])).toBe('true');
    expect(closest('faild', ['delivered', 'failed', 'pending'])).toBe('failed');
    expect(closest('invoice.payed', ['invoice.paid', 'product.updated'])).toBe('invoice.paid');
    expect(closest('sales_order.create', ['sales_order.created', 'invoice.paid'])).toBe('sales_order.created');
  });

  it('suggests the one choice that a shortened word begins', () => {
    expect(closest('fail', ['delivered', 'failed', 'pending'])).toBe('failed');
    expect(closest('deliv', ['delivered', 'failed', 'pending'])).toBe('delivered');
    expect(closest('p', ['delivered', 'failed', 'pending'])).toBeUndefined();
    expect(closest('sales_order', ['sales_order.created', 'sales_order.updated'])).toBeUndefined();
  });

  it('does not suggest what is merely short and different', () => {
    expect(closest('tcsh', ['bash', 'zsh', 'fish'])).toBeUndefined();
    expect(closest('maybe', ['true', 'false'])).toBeUndefined();
    expect(notOneOf('shell', 'tcsh', ['bash', 'zsh', 'fish'])).toBe('shell "tcsh" is not one of bash, zsh, fish');
  });
});
