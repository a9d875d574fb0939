// The interactive screen's state (listen -i, deliveries tail -i), apart from any terminal: the deliveries as they
// came, the filter and the rows it leaves, the selection, the pause and what came during it, the pane open. Pure: the
// screen (screen.ts) asks it what to draw, and tells it what the user pressed and what arrived.

/** What the filter reads of a delivery: its event type, its state in words, its id, its body. */
export interface Searchable {
  event: string;
  /** Its state in words: `verified`, `mismatch`, `200`, `failed`, `delivered`… */
  statuses: string[];
  id: string;
  /** Its body as text, or '' when the screen does not hold it. */
  body: string;
}

export interface Row<T> {
  key: string;
  item: T;
  /** Its place in the order of arrival. */
  seq: number;
}

/** What opens over the list: a delivery whole, its diagnosis, or the keys. */
export type Pane = 'details' | 'diagnosis' | 'help';

/**
 * The filter, from what the user typed after `/`: words that must all match. `event:invoice.*` matches the event
 * type (`*` within a name), `status:failed` a state word (`verified`, `failed`, `500`), any other word the event type,
 * a state word, the id or the body, anywhere, in any case.
 */
export class Filter {
  private readonly tests: Array<(s: Searchable) => boolean>;

  constructor(readonly text: string) {
    this.tests = text
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((word) => {
        const lower = word.toLowerCase();
        if (lower.startsWith('event:')) {
          const glob = globOf(lower.slice('event:'.length));
          return (s) => glob.test(s.event.toLowerCase());
        }
        if (lower.startsWith('status:')) {
          const wanted = lower.slice('status:'.length);
          return (s) => s.statuses.some((status) => status.toLowerCase() === wanted);
        }
        return (s) =>
          s.event.toLowerCase().includes(lower) ||
          s.statuses.some((status) => status.toLowerCase() === lower) ||
          s.id.toLowerCase().includes(lower) ||
          s.body.toLowerCase().includes(lower);
      });
  }

  get empty(): boolean {
    return this.tests.length === 0;
  }

  matches(searchable: Searchable): boolean {
    return this.tests.every((test) => test(searchable));
  }
}

/** `invoice.*` as a regular expression: `*` stands for any run of characters but a dot. */
function globOf(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\-]/g, '\\$&').replace(/\*/g, '[^.]*')}$`);
}

/** What arrived while the list was paused, in order: applied on resume. */
type Held<T> = { key: string; item: T };

/** The most deliveries a screen holds, and the most bytes of them (bodies); past either the oldest go (their count is said in the heading). */
export const MAX_ROWS = 10_000;
export const MAX_BYTES = 256 * 1024 * 1024;

/**
 * The list of deliveries and what the user did to it. The rows are in their order of arrival, each once (an update
 * of a known key replaces its item in place: a tail's attempt whose status changed); `shown` are those the filter
 * leaves. The selection is a row's key; while it is on the newest shown row (or none yet), each new row takes it:
 * the newest stays in view unless the user has moved.
 */
export class ScreenModel<T> {
  private rows: Array<Row<T>> = [];
  private readonly byKey = new Map<string, Row<T>>();
  private shownRows: Array<Row<T>> = [];
  private nextSeq = 0;
  private held: Array<Held<T>> = [];
  /** The first shown row in the list's window. */
  private top = 0;
  selected: string | undefined;
  /** Whether the selection follows the newest row. */
  following = true;
  paused = false;
  filter = new Filter('');
  /** While `/` is being typed: the text so far. */
  editing: string | undefined;
  pane: Pane | undefined;
  paneScroll = 0;
  /** Rows let go past the bounds. */
  dropped = 0;
  private bytes = 0;

  constructor(
    private readonly describe: (item: T) => Searchable,
    private readonly bounds: { rows: number; bytes: number; weigh?: ((item: T) => number) | undefined } = { rows: MAX_ROWS, bytes: MAX_BYTES },
  ) {}

  /** A delivery arrived (or a known one changed): shown now, or held while paused. */
  put(key: string, item: T): void {
    if (this.paused) this.held.push({ key, item });
    else this.apply(key, item);
  }

  get waiting(): number {
    return this.held.length;
  }

  get total(): number {
    return this.rows.length;
  }

  get shown(): ReadonlyArray<Row<T>> {
    return this.shownRows;
  }

  /** The row selected, if any (among those shown). */
  get current(): Row<T> | undefined {
    return this.selected === undefined ? undefined : this.shownRows[this.indexOf(this.selected)];
  }

  /** Every row held, in order of arrival, the filter aside (a delivery's other attempts). */
  all(): ReadonlyArray<Row<T>> {
    return this.rows;
  }

  togglePause(): void {
    this.paused = !this.paused;
    if (this.paused) return;
    const held = this.held;
    this.held = [];
    for (const { key, item } of held) this.apply(key, item);
  }

  /** Moves the selection by `delta` shown rows (clamped); on the newest, it follows again. */
  move(delta: number): void {
    if (this.shownRows.length === 0) return;
    const from = this.selected === undefined ? this.shownRows.length - 1 : this.indexOf(this.selected);
    const to = Math.max(0, Math.min(this.shownRows.length - 1, (from < 0 ? this.shownRows.length - 1 : from) + delta));
    this.selectIndex(to);
  }

  moveTo(end: 'first' | 'last'): void {
    if (this.shownRows.length === 0) return;
    this.selectIndex(end === 'first' ? 0 : this.shownRows.length - 1);
  }

  open(pane: Pane): void {
    this.pane = pane;
    this.paneScroll = 0;
  }

  close(): void {
    this.pane = undefined;
    this.paneScroll = 0;
  }

  scrollPane(delta: number, lines: number, height: number): void {
    this.paneScroll = Math.max(0, Math.min(Math.max(0, lines - height), this.paneScroll + delta));
  }

  /** `/` pressed: the filter's text is edited from what it was. */
  startFilter(): void {
    this.editing = this.filter.text;
  }

  /** The filter as typed so far applies at once. */
  editFilter(text: string): void {
    this.editing = text;
    this.setFilter(text);
  }

  /** Enter keeps the filter typed; Escape drops it. */
  endFilter(keep: boolean): void {
    if (!keep) this.setFilter('');
    this.editing = undefined;
  }

  setFilter(text: string): void {
    this.filter = new Filter(text);
    this.shownRows = this.rows.filter((row) => this.filter.matches(this.describe(row.item)));
    if (this.following || this.indexOf(this.selected) < 0) this.followNewest();
  }

  /**
   * The shown rows in a window `height` rows high, and which of them is selected: the window moves only as far as
   * the selection needs, and sits at the newest while it follows.
   */
  window(height: number): { rows: Array<Row<T>>; selectedAt: number } {
    const count = this.shownRows.length;
    const at = this.indexOf(this.selected);
    if (this.following) this.top = Math.max(0, count - height);
    else if (at >= 0) {
      if (at < this.top) this.top = at;
      if (at >= this.top + height) this.top = at - height + 1;
    }
    this.top = Math.max(0, Math.min(this.top, Math.max(0, count - height)));
    return { rows: this.shownRows.slice(this.top, this.top + height), selectedAt: at < 0 ? -1 : at - this.top };
  }

  private apply(key: string, item: T): void {
    const known = this.byKey.get(key);
    if (known) {
      this.bytes += this.weigh(item) - this.weigh(known.item);
      known.item = item;
      const matches = this.filter.matches(this.describe(item));
      const at = this.shownRows.indexOf(known);
      if (matches && at < 0) this.shownRows = this.rows.filter((row) => this.filter.matches(this.describe(row.item)));
      else if (!matches && at >= 0) this.shownRows.splice(at, 1);
      if (this.following) this.followNewest();
      return;
    }
    const row: Row<T> = { key, item, seq: this.nextSeq++ };
    this.rows.push(row);
    this.byKey.set(key, row);
    this.bytes += this.weigh(item);
    if (this.filter.matches(this.describe(item))) this.shownRows.push(row);
    if (this.rows.length > this.bounds.rows || this.bytes > this.bounds.bytes) this.dropOldest();
    if (this.following) this.followNewest();
  }

  /**
   * Past a bound, the oldest tenth of it goes at once (a row at a time would cost a copy of the list for each): a
   * tenth of the rows, or as many of the oldest as hold a tenth of the bytes (never the newest).
   */
  private dropOldest(): void {
    let count = this.rows.length > this.bounds.rows ? Math.max(1, Math.floor(this.bounds.rows / 10)) : 0;
    let freed = 0;
    for (let n = 0; n < count; n += 1) freed += this.weigh(this.rows[n]!.item);
    while (this.bytes - freed > this.bounds.bytes * 0.9 && count < this.rows.length - 1) freed += this.weigh(this.rows[count++]!.item);
    const gone = this.rows.splice(0, count);
    this.bytes -= freed;
    for (const row of gone) this.byKey.delete(row.key);
    this.dropped += gone.length;
    const first = this.rows[0]?.seq ?? Number.POSITIVE_INFINITY;
    const cut = this.shownRows.findIndex((row) => row.seq >= first);
    this.shownRows.splice(0, cut < 0 ? this.shownRows.length : cut);
    if (this.selected !== undefined && !this.byKey.has(this.selected)) this.followNewest();
  }

  private weigh(item: T): number {
    return this.bounds.weigh?.(item) ?? 0;
  }

  private followNewest(): void {
    this.following = true;
    this.selected = this.shownRows.at(-1)?.key;
  }

  private selectIndex(index: number): void {
    this.selected = this.shownRows[index]?.key;
    this.following = index === this.shownRows.length - 1;
    this.paneScroll = 0;
  }

  /** Where a key is among the shown rows (-1: not shown): rows are in order of arrival, so a binary search by seq. */
  private indexOf(key: string | undefined): number {
    const row = key === undefined ? undefined : this.byKey.get(key);
    if (!row) return -1;
    let low = 0;
    let high = this.shownRows.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const seq = this.shownRows[mid]!.seq;
      if (seq === row.seq) return mid;
      if (seq < row.seq) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }
}
