import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PLAIN } from '../../../src/render/colors.js';
import { HeldStderr, Screen, type ScreenSource } from '../../../src/screen/screen.js';
import { Terminal } from '../../../src/screen/terminal.js';

// The screen on a terminal of the test's: what it writes (the alternate screen, only the rows that changed, the
// user's screen back) and what each key does to the deliveries of a source of the test's.

class FakeKeyboard extends PassThrough {
  isTTY = true;
  raw: boolean[] = [];
  setRawMode(raw: boolean): this {
    this.raw.push(raw);
    return this;
  }
}

class FakeDisplay extends EventEmitter {
  written = '';
  constructor(
    public columns = 80,
    public rows = 24,
  ) {
    super();
  }
  write(chunk: string): boolean {
    this.written += chunk;
    return true;
  }
  /** What was written since the last call. */
  take(): string {
    const text = this.written;
    this.written = '';
    return text;
  }
}

const ALTERNATE = '\u001b[?1049h';
const NORMAL = '\u001b[?1049l';
/** Node's key decoder hands keys on after the event loop turns: a turn, not a time. */
const turn = () => new Promise((resolve) => setImmediate(resolve));
/** The rows a write drew, by their number (cursorTo's `ESC[row;1H`). */
const rowsDrawn = (written: string) => [...written.matchAll(/\u001b\[(\d+);1H/g)].map((match) => Number(match[1]) - 1);

describe('the terminal', () => {
  it('enters the alternate screen with keys raw, paints only the rows that changed, and gives the screen and keyboard back', () => {
    const keyboard = new FakeKeyboard();
    const display = new FakeDisplay();
    const terminal = new Terminal(
      keyboard,
      display,
      () => {},
      () => {},
    );
    terminal.enter();
    expect(display.take()).toContain(ALTERNATE);
    expect(keyboard.raw).toEqual([true]);
    terminal.paint(['a', 'b', 'c']);
    expect(rowsDrawn(display.take())).toEqual([0, 1, 2]);
    terminal.paint(['a', 'B', 'c']);
    const second = display.take();
    expect(rowsDrawn(second)).toEqual([1]);
    expect(second).toContain('B\u001b[K');
    terminal.paint(['a', 'B', 'c']);
    expect(display.take(), 'nothing changed: nothing written').toBe('');
    terminal.leave();
    expect(display.take()).toContain(NORMAL);
    expect(keyboard.raw).toEqual([true, false]);
    terminal.paint(['x']);
    expect(display.take(), 'gone: nothing drawn over the user’s screen').toBe('');
  });

  it('on resize, clears and has the whole frame drawn again', () => {
    const display = new FakeDisplay();
    let resized = 0;
    const terminal = new Terminal(
      new FakeKeyboard(),
      display,
      () => {},
      () => (resized += 1),
    );
    terminal.enter();
    terminal.paint(['a', 'b']);
    display.take();
    display.columns = 60;
    display.emit('resize');
    expect(resized).toBe(1);
    terminal.paint(['a', 'b']);
    expect(rowsDrawn(display.take())).toEqual([0, 1]);
    expect(terminal.size).toEqual({ columns: 60, rows: 24 });
    terminal.leave();
  });

  it('copies through OSC 52, and refuses what is too large for it', () => {
    const display = new FakeDisplay();
    const terminal = new Terminal(
      new FakeKeyboard(),
      display,
      () => {},
      () => {},
    );
    expect(terminal.copy('dlv_1')).toBe(true);
    expect(display.take()).toBe(`\u001b]52;c;${Buffer.from('dlv_1').toString('base64')}\u0007`);
    expect(terminal.copy('x'.repeat(100_000))).toBe(false);
    expect(display.take()).toBe('');
  });
});

interface Item {
  id: string;
  event: string;
}

describe('the screen', () => {
  const screens: Array<Screen<Item>> = [];
  afterEach(() => {
    for (const screen of screens.splice(0)) screen.stop();
  });

  function open(retries = true) {
    const keyboard = new FakeKeyboard();
    const display = new FakeDisplay();
    const acted: string[] = [];
    const source: ScreenSource<Item> = {
      heading: () => 'test',
      line: (item) => `${item.id} ${item.event}`,
      describe: (item) => ({ event: item.event, statuses: [], id: item.id, body: '' }),
      title: (item) => item.id,
      details: async (item) => [{ text: `details of ${item.id}` }],
      diagnosis: async (item) => [{ text: `diagnosis of ${item.id}` }],
      sendsAgain: true,
      sendAgain: async (item) => {
        acted.push(`r ${item.id}`);
        return `sent ${item.id} again`;
      },
      retry: retries
        ? async (item) => {
            acted.push(`R ${item.id}`);
            return `retried ${item.id}`;
          }
        : undefined,
      body: () => '{}',
    };
    const screen = new Screen((keys, resized) => new Terminal(keyboard, display, keys, resized), source, PLAIN);
    screens.push(screen);
    screen.start();
    for (const [id, event] of [
      ['dlv_1', 'invoice.paid'],
      ['dlv_2', 'product.updated'],
      ['dlv_3', 'invoice.paid'],
    ]) {
      screen.put(id!, { id: id!, event: event! });
    }
    const press = async (...keys: string[]) => {
      for (const key of keys) {
        keyboard.write(key);
        await turn();
      }
      await turn();
    };
    return { screen, display, acted, press };
  }

  it('arrows and j/k select, Enter opens the delivery selected, r and R act on it, Escape closes', async () => {
    const { screen, acted, press } = open();
    await press('\u001b[A', 'k', 'j');
    expect(screen.model.selected).toBe('dlv_2');
    await press('\r');
    expect(screen.model.pane).toBe('details');
    await press('r', 'R');
    expect(acted).toEqual(['r dlv_2', 'R dlv_2']);
    // Escape then a key, sooner than Node's decoder tells a lone Escape from an escape sequence: both, in turn.
    await press('\u001bd');
    expect(screen.model.pane).toBe('diagnosis');
    await press('\u001b?');
    expect(screen.model.pane).toBe('help');
    // A lone Escape: told once the decoder's wait for more of a sequence ends.
    await press('\u001b');
    await vi.waitFor(() => expect(screen.model.pane).toBeUndefined(), { timeout: 5_000, interval: 20 });
  });

  it('/ filters as it is typed, Enter keeps it; p holds what arrives and resume shows it', async () => {
    const { screen, press } = open();
    await press('/', 'i', 'n', 'v', '\r');
    expect(screen.model.shown.map((row) => row.key)).toEqual(['dlv_1', 'dlv_3']);
    expect(screen.model.editing).toBeUndefined();
    await press('p');
    screen.put('dlv_4', { id: 'dlv_4', event: 'invoice.paid' });
    screen.put('dlv_5', { id: 'dlv_5', event: 'invoice.paid' });
    expect(screen.model.shown).toHaveLength(2);
    await press('p');
    expect(screen.model.shown.map((row) => row.key)).toEqual(['dlv_1', 'dlv_3', 'dlv_4', 'dlv_5']);
  });

  it('q leaves as a clean stop, Ctrl-C as an interrupt; R where the source cannot retry says where it can', async () => {
    const first = open(false);
    await first.press('R');
    await first.press('q');
    await expect(first.screen.left).resolves.toBe('quit');
    const second = open();
    await second.press('\u0003');
    await expect(second.screen.left).resolves.toBe('interrupt');
  });
});

describe('stderr while the screen is up', () => {
  it('goes to the message row and is kept, then said whole once the screen is gone', () => {
    const said: string[] = [];
    let written = '';
    const held = new HeldStderr({ write: (chunk: string) => (written += chunk) });
    held.write('whsvc listen: ready at http://127.0.0.1:4011\n');
    held.hold({ say: (text) => said.push(text) });
    held.write('whsvc listen: a request could not be handled\n');
    expect(said).toEqual(['a request could not be handled']);
    expect(written).toBe('whsvc listen: ready at http://127.0.0.1:4011\n');
    held.release();
    expect(written).toBe('whsvc listen: ready at http://127.0.0.1:4011\nwhsvc listen: a request could not be handled\n');
  });

  it('a note laid out for the terminal (its continuations indented) goes to the message row whole, not its last line', () => {
    const said: string[] = [];
    const held = new HeldStderr({ write: () => true });
    held.hold({ say: (text) => said.push(text) });
    held.write('whsvc: following every webhook (1 now; new ones are picked up) from now, every\n       2 s; q to stop\n');
    held.write('whsvc: one\nwhsvc: two, laid out\n       for the width\n');
    expect(said).toEqual(['following every webhook (1 now; new ones are picked up) from now, every 2 s; q to stop', 'two, laid out for the width']);
  });
});
