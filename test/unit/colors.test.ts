import { describe, expect, it } from 'vitest';
import { colorsFor } from '../../src/render/colors.js';

const tty = { isTTY: true, write: () => true };
const pipe = { isTTY: false, write: () => true };

describe('colour', () => {
  it('only on a terminal', () => {
    expect(colorsFor(tty, {}, false).green('ok')).toBe('\u001b[32mok\u001b[39m');
    expect(colorsFor(pipe, {}, false).green('ok')).toBe('ok');
  });

  it('NO_COLOR and --no-color turn it off, FORCE_COLOR on (FORCE_COLOR=0 off)', () => {
    expect(colorsFor(tty, { NO_COLOR: '1' }, false).enabled).toBe(false);
    expect(colorsFor(tty, {}, true).enabled).toBe(false);
    expect(colorsFor(pipe, { FORCE_COLOR: '1' }, false).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(colorsFor(tty, { FORCE_COLOR: '0' }, false).enabled).toBe(false);
    expect(colorsFor(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, false).enabled).toBe(false);
  });
});
