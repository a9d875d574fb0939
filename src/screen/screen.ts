import type { Colors } from '../render/colors.js';
import type { OutputStream } from '../render/stream.js';
import { MAX_BYTES, MAX_ROWS, type Pane, type Searchable, ScreenModel } from './model.js';
import type { Display, Key, Keyboard, Terminal } from './terminal.js';
import { type Abilities, footerKeys, helpLines } from './keys.js';
import { CHROME_ROWS, fitPane, frame, type PaneLine } from './view.js';

/** What a command (listen, tail) gives its screen: how its deliveries read, open, and are sent again. */
export interface ScreenSource<T> {
  /** What the command follows, for the heading. */
  heading(): string;
  /** A delivery's row: one line at most `columns` wide, in the words of the command's plain lines. */
  line(item: T, columns: number): string;
  describe(item: T): Searchable;
  /** The pane's title for a delivery: its id and event type. */
  title(item: T): string;
  /** The delivery whole: headers, body, signature, answer, its attempts. */
  details(item: T): Promise<PaneLine[]>;
  diagnosis(item: T): Promise<PaneLine[]>;
  /** Whether `r` has an app to send to (--forward-to): else the footer does not offer it. */
  sendsAgain: boolean;
  /** `r`: sends it again to the app of --forward-to; what came of it, in a line. */
  sendAgain(item: T): Promise<string>;
  /** `R`: retries it through the service (tail); none where there is no service (listen). */
  retry?: ((item: T) => Promise<string>) | undefined;
  /** Its body, for `C` (copy), when the screen holds it. */
  body(item: T): string | undefined;
  /** The bytes it holds (its body), so that the screen's memory stays bounded (model.ts MAX_BYTES). */
  weigh?: ((item: T) => number) | undefined;
}

/** How the user left: `q` (a clean stop) or Ctrl-C. */
export type Leaving = 'quit' | 'interrupt';

/** The pause between two frames at the most: a flood of deliveries is drawn about 60 times a second, not once each. */
const FRAME_MS = 16;

/**
 * The interactive screen: the model (model.ts) shown on the terminal (terminal.ts) as view.ts lays it out, redrawn
 * when something changed, at most once a frame; the keys turned into what they do.
 */
export class Screen<T> {
  readonly model: ScreenModel<T>;
  /** Resolves when the user leaves (`q`, Ctrl-C). */
  readonly left: Promise<Leaving>;
  private readonly leaving = Promise.withResolvers<Leaving>();
  private readonly terminal: Terminal;
  private message: string | undefined;
  /** The pane open: for which row, its lines as given, and laid out for a width. */
  private pane: { key: string; kind: Pane; title: string; lines: PaneLine[]; fitted?: { columns: number; lines: string[] } } | undefined;
  private scheduled: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private lastFrame = 0;

  constructor(
    /** The terminal, told what to do with each key and with a new size (terminal.ts). */
    terminal: (keys: (text: string | undefined, key: Key) => void, resized: () => void) => Terminal,
    private readonly source: ScreenSource<T>,
    private readonly colors: Colors,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.model = new ScreenModel((item) => source.describe(item), { rows: MAX_ROWS, bytes: MAX_BYTES, weigh: source.weigh && ((item) => source.weigh!(item)) });
    this.left = this.leaving.promise;
    this.terminal = terminal(
      (text, key) => this.press(text, key),
      () => this.draw(),
    );
  }

  start(): void {
    this.terminal.enter();
    this.draw();
  }

  /** Back to the user's screen. */
  stop(): void {
    clearTimeout(this.scheduled as NodeJS.Timeout);
    clearImmediate(this.scheduled as NodeJS.Immediate);
    this.terminal.leave();
  }

  /** A delivery arrived, or one shown changed. */
  put(key: string, item: T): void {
    this.model.put(key, item);
    this.redraw();
  }

  /** Says a line on the message row (an action's outcome, a note of the command's). */
  say(text: string): void {
    this.message = text;
    this.redraw();
  }

  /** Draws soon: once for everything that changes within a frame. */
  redraw(): void {
    if (this.scheduled !== undefined) return;
    const wait = FRAME_MS - (this.now() - this.lastFrame);
    const draw = () => {
      this.scheduled = undefined;
      this.draw();
    };
    this.scheduled = wait > 0 ? setTimeout(draw, wait) : setImmediate(draw);
  }

  private draw(): void {
    this.lastFrame = this.now();
    const { columns, rows } = this.terminal.size;
    const { source, colors, model } = this;
    this.terminal.paint(
      frame({
        model,
        columns,
        rows,
        colors,
        heading: source.heading(),
        line: (item, width) => source.line(item, width),
        pane: this.fittedPane(columns),
        message: this.message,
        keys: footerKeys(this.abilities, model.pane ? 'pane' : 'list'),
      }),
    );
  }

  private fittedPane(columns: number): { title: string; lines: string[] } | undefined {
    const pane = this.pane;
    if (!pane || this.model.pane === undefined) return undefined;
    if (pane.fitted?.columns !== columns) pane.fitted = { columns, lines: fitPane(pane.lines, columns, this.colors) };
    return { title: pane.title, lines: pane.fitted.lines };
  }

  private get abilities(): Abilities {
    return { retries: this.source.retry !== undefined, sendsAgain: this.source.sendsAgain };
  }

  private get bodyHeight(): number {
    return Math.max(1, this.terminal.size.rows - CHROME_ROWS - 1);
  }

  private press(text: string | undefined, key: Key): void {
    if (key.ctrl && key.name === 'c') {
      this.leaving.resolve('interrupt');
      return;
    }
    // Escape and a key pressed soon after it come as that key with meta (Node's decoder waits for an escape sequence):
    // both are done, in turn.
    if (key.meta && key.name !== 'escape' && !key.ctrl) {
      this.press(undefined, { name: 'escape' });
      const rest = (text ?? key.sequence)?.replace(/^\u001b/, '');
      this.press(rest, { ...key, meta: false, sequence: rest });
      return;
    }
    if (this.model.editing !== undefined) {
      this.typeFilter(text, key);
      return;
    }
    const name = key.name ?? text;
    const inPane = this.model.pane !== undefined;
    const step = (delta: number) => {
      if (inPane) this.model.scrollPane(delta, this.pane?.fitted?.lines.length ?? 0, this.bodyHeight);
      else this.model.move(delta);
    };
    const page = this.bodyHeight;
    const actions: Record<string, () => void> = {
      q: () => this.leaving.resolve('quit'),
      up: () => step(-1),
      k: () => step(-1),
      down: () => step(1),
      j: () => step(1),
      pageup: () => step(-page),
      pagedown: () => step(page),
      home: () => (inPane ? step(-Infinity) : this.model.moveTo('first')),
      g: () => (inPane ? step(-Infinity) : this.model.moveTo('first')),
      end: () => (inPane ? step(Infinity) : this.model.moveTo('last')),
      G: () => (inPane ? step(Infinity) : this.model.moveTo('last')),
      return: () => this.openPane('details'),
      enter: () => this.openPane('details'),
      d: () => this.openPane('diagnosis'),
      '?': () => (this.model.pane === 'help' ? this.closePane() : this.openHelp()),
      escape: () => (inPane ? this.closePane() : this.model.setFilter('')),
      p: () => this.model.togglePause(),
      '/': () => this.model.startFilter(),
      r: () => this.act((item) => this.source.sendAgain(item)),
      R: () => this.act((item) => this.source.retry?.(item) ?? Promise.resolve('R retries a delivery through the service: in deliveries tail -i')),
      c: () => this.copy('id'),
      C: () => this.copy('body'),
    };
    // A shifted letter comes as its name with shift: R, G and C are their own keys.
    const action = actions[key.shift && name?.length === 1 ? name.toUpperCase() : (name ?? '')];
    if (!action) return;
    action();
    this.redraw();
  }

  private typeFilter(text: string | undefined, key: Key): void {
    const typed = this.model.editing ?? '';
    if (key.name === 'return' || key.name === 'enter') this.model.endFilter(true);
    else if (key.name === 'escape') this.model.endFilter(false);
    else if (key.name === 'backspace') this.model.editFilter(typed.slice(0, -1));
    else if (key.ctrl && key.name === 'u') this.model.editFilter('');
    else if (text !== undefined && !key.ctrl && !key.meta && /^[^\u0000-\u001f\u007f]+$/.test(text)) this.model.editFilter(typed + text);
    this.redraw();
  }

  private openPane(kind: 'details' | 'diagnosis'): void {
    const row = this.model.current;
    if (!row) {
      this.say('no delivery selected');
      return;
    }
    const title = `${this.source.title(row.item)}${kind === 'diagnosis' ? '  · diagnosis' : ''}`;
    this.pane = { key: row.key, kind, title, lines: [{ text: 'reading…', tone: 'dim' }] };
    this.model.open(kind);
    const read = kind === 'details' ? this.source.details(row.item) : this.source.diagnosis(row.item);
    read.then(
      (lines) => this.fill(row.key, kind, lines),
      (error: unknown) => this.fill(row.key, kind, [{ text: `cannot read it: ${(error as Error)?.message ?? String(error)}`, tone: 'bad' }]),
    );
  }

  /** The pane's lines, once read, if the same pane is still open. */
  private fill(key: string, kind: Pane, lines: PaneLine[]): void {
    if (this.pane?.key !== key || this.pane.kind !== kind || this.model.pane !== kind) return;
    this.pane = { ...this.pane, lines, fitted: undefined };
    this.redraw();
  }

  private openHelp(): void {
    this.pane = { key: '', kind: 'help', title: 'the keys', lines: helpLines(this.abilities) };
    this.model.open('help');
  }

  private closePane(): void {
    this.model.close();
    this.pane = undefined;
  }

  /** Runs an action on the selected delivery; its outcome goes to the message row. */
  private act(action: (item: T) => Promise<string>): void {
    const row = this.model.current;
    if (!row) {
      this.say('no delivery selected');
      return;
    }
    this.say(`${this.source.title(row.item)}: …`);
    action(row.item).then(
      (outcome) => this.say(outcome),
      (error: unknown) => this.say(`${this.source.title(row.item)}: ${(error as Error)?.message ?? String(error)}`),
    );
  }

  private copy(what: 'id' | 'body'): void {
    const row = this.model.current;
    if (!row) {
      this.say('no delivery selected');
      return;
    }
    const text = what === 'id' ? this.source.describe(row.item).id : this.source.body(row.item);
    if (text === undefined) {
      this.say('its body is read when it is opened (Enter): open it, then C copies it');
      return;
    }
    if (!this.terminal.copy(text)) {
      this.say(`its ${what} is too large to copy through the terminal`);
      return;
    }
    this.say(`copied its ${what} (through the terminal, OSC 52: where the terminal allows it)`);
  }
}

/**
 * stderr while a screen is up: what the command says (its notes) goes to the screen's message row, and is kept, and
 * said on the user's own screen once the screen is left (nothing is lost); before and after, it goes straight through.
 */
export class HeldStderr implements OutputStream {
  private kept: string[] = [];
  private screen: { say(text: string): void } | undefined;

  constructor(private readonly stderr: OutputStream) {}

  get isTTY(): boolean | undefined {
    return this.stderr.isTTY;
  }

  get columns(): number | undefined {
    return this.stderr.columns;
  }

  hold(screen: { say(text: string): void }): void {
    this.screen = screen;
  }

  /** The screen is gone: what was kept is said. */
  release(): void {
    this.screen = undefined;
    for (const chunk of this.kept.splice(0)) this.stderr.write(chunk);
  }

  write(chunk: string): boolean {
    if (!this.screen) {
      this.stderr.write(chunk);
      return true;
    }
    this.kept.push(chunk);
    // The last note, whole: a note laid out for the terminal goes on in indented lines, joined again for the row.
    const last = chunk
      .trimEnd()
      .split(/\n(?! )/)
      .at(-1)
      ?.replace(/\n +/g, ' ');
    if (last) this.screen.say(last.replace(/^whsvc( \w+)?: /, ''));
    return true;
  }
}

const isKeyboard = (stream: unknown): stream is Keyboard =>
  typeof (stream as Partial<Keyboard>)?.setRawMode === 'function' && typeof (stream as Partial<Keyboard>)?.on === 'function';

const isDisplay = (stream: unknown): stream is Display =>
  typeof (stream as Partial<Display>)?.on === 'function' && typeof (stream as Partial<Display>)?.removeListener === 'function';

/**
 * A command's screen from the flag on: its stderr held while the screen is up, the screen started once the command
 * is under way (listen listening, tail following), and left (stop) before the command's last lines, which the user
 * then reads on their own screen.
 */
export class ScreenSession<T> {
  readonly stderr: HeldStderr;
  private screen: Screen<T> | undefined;
  private readonly leaving = Promise.withResolvers<Leaving>();
  /** How the user left: resolves on `q` or Ctrl-C, never before the screen started. */
  readonly left = this.leaving.promise;

  constructor(private readonly io: { stdin: unknown; stdout: unknown; stderr: OutputStream }) {
    this.stderr = new HeldStderr(io.stderr);
  }

  /**
   * Draws the screen. The terminal's code and its package (ansi-escapes, Node's readline) are loaded only now: every
   * other command, and listen and tail without the flag, start without them (docs/commands.md gives the figures).
   */
  async start(source: ScreenSource<T>, colors: Colors): Promise<void> {
    const { stdin, stdout } = this.io;
    // checkInteractive saw terminals; a host that gives no keyboard or display (a test's streams) is a bug of its own.
    if (!isKeyboard(stdin) || !isDisplay(stdout)) throw new Error('--interactive needs a terminal for stdin and stdout');
    const { Terminal } = await import('./terminal.js');
    this.screen = new Screen((keys, resized) => new Terminal(stdin, stdout, keys, resized), source, colors);
    void this.screen.left.then((leaving) => this.leaving.resolve(leaving));
    this.screen.start();
    this.stderr.hold(this.screen);
  }

  put(key: string, item: T): void {
    this.screen?.put(key, item);
  }

  /** Every delivery the screen holds, in order of arrival (a delivery's other attempts). */
  items(): T[] {
    return this.screen?.model.all().map((row) => row.item) ?? [];
  }

  say(text: string): void {
    this.screen?.say(text);
  }

  /** Back to the user's screen, and what the command said meanwhile said there. */
  stop(): void {
    this.screen?.stop();
    this.stderr.release();
  }
}
