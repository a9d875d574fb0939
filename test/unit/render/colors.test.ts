import { describe, expect, it } from 'vitest';
import { colorsFor } from '../../../src/render/colors.js';

const tty = { isTTY: true, write: () => true };
const pipe = { isTTY: false, write: () => true };

describe('colour (chalk)', () => {
  it('only on a terminal', async () => {
    expect((await colorsFor(tty, {}, false)).green('ok')).toBe('\u001b[32mok\u001b[39m');
    expect((await colorsFor(pipe, {}, false)).green('ok')).toBe('ok');
  });

  it('NO_COLOR and --no-color turn it off, FORCE_COLOR on (FORCE_COLOR=0 off)', async () => {
    expect((await colorsFor(tty, { NO_COLOR: '1' }, false)).enabled).toBe(false);
    expect((await colorsFor(tty, {}, true)).enabled).toBe(false);
    expect((await colorsFor(pipe, { FORCE_COLOR: '1' }, false)).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect((await colorsFor(tty, { FORCE_COLOR: '0' }, false)).enabled).toBe(false);
    expect((await colorsFor(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, false)).enabled).toBe(false);
  });

  it('FORCE_COLOR=3 gives chalk truecolor level; styles nest as chalk nests them', async () => {
    const colors = await colorsFor(pipe, { FORCE_COLOR: '3' }, false);
    expect(colors.bold(`a${colors.red('b')}c`)).toBe('\u001b[1ma\u001b[31mb\u001b[39mc\u001b[22m');
  });
});
