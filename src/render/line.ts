import { cutMiddle, cutWords, displayWidth, dropWords, ID_SHORT_WIDTH, shortenUrl, shortId, shortIdText } from './width.js';

/**
 * One field of a stream's lines (tail, listen, replay), declared: a stream decides once, from the terminal's width
 * when it starts, which fields its lines show, in which form and how wide, so that every line keeps its fields in the
 * same places, and a field left out is left out of every line.
 */
export interface StreamField<K extends string = string> {
  key: K;
  /** Its width whole: the widest its values are. Every line pads it to this width (the last field aside). */
  width: number;
  /** Its width in its compact form (a short id, a time of day left out, a cut event type), taken at step `give`. */
  min?: number;
  /** The step, in one order with `drop`'s (lowest first), at which it takes its compact form. */
  give?: number;
  /** The step at which it is left out of the stream; without it, never. */
  drop?: number;
  /** How a value wider than the field is shortened: by whole words left out at its end (the default: `app: no
   *  answer…`), cut between words as an event type is (`production_…`), in its middle, as a URL, or as an id (its one
   *  short form; a delivery's id with its attempt's number keeps the number). An id field (`id`) is whole wherever the
   *  room a later step freed holds it. A value is never cut in a pipe, and never inside a word. */
  cut?: 'words' | 'middle' | 'url' | 'id';
  /** Follows the field before it after one space, not two (a detail of it: an attempt's number, a rule). */
  attached?: boolean;
}

/** A field's value on one line: its text (sanitised, no colour), and the same in colour, shown when it is not cut. */
export type FieldValue = string | { text: string; styled?: string | undefined };

const GAP = 2;

/** A terminal's colour codes (chalk's SGR sequences), taken out of a line that is cut as plain text. */
// biome-ignore lint/complexity/useRegexLiterals: a literal would hold the escape character itself
const STYLE = new RegExp('\u001b\\[[0-9;]*m', 'g');

/**
 * The fields a stream's lines show, decided once. On a terminal `columns` wide: every field whole, then step by
 * step in the order of `give` and `drop` (lowest first) a field takes its compact form or is left out, until the
 * declared widths fit. In a pipe (no columns): every field, whole, never cut.
 */
export class StreamLayout<K extends string> {
  private readonly fields: Array<StreamField<K>>;
  private readonly shown: Array<StreamField<K>>;
  private readonly compactKeys = new Set<K>();
  private readonly widths = new Map<K, number>();
  private readonly columns: number | undefined;

  constructor(fields: Array<StreamField<K>>, columns?: number) {
    // A terminal that says it has no columns (0: a pseudo-terminal with no size) is treated as a pipe.
    this.columns = columns !== undefined && columns > 0 ? columns : undefined;
    this.fields = fields;
    const dropped = new Set<K>();
    for (const field of fields) this.widths.set(field.key, field.width);
    const total = () => {
      const kept = fields.filter((field) => !dropped.has(field.key));
      return kept.reduce((sum, field, n) => sum + this.widths.get(field.key)! + (n === 0 ? 0 : this.gapBefore(field, kept)), 0);
    };
    if (this.columns !== undefined) {
      const steps = fields
        .flatMap((field) => [
          ...(field.give !== undefined ? [{ rank: field.give, field, kind: 'give' as const }] : []),
          ...(field.drop !== undefined ? [{ rank: field.drop, field, kind: 'drop' as const }] : []),
        ])
        .sort((a, b) => a.rank - b.rank);
      const taken: typeof steps = [];
      for (const step of steps) {
        if (total() <= this.columns) break;
        taken.push(step);
        if (step.kind === 'drop') dropped.add(step.field.key);
        else if (!dropped.has(step.field.key)) {
          this.compactKeys.add(step.field.key);
          this.widths.set(step.field.key, step.field.min ?? step.field.width);
        }
      }
      // An id shortened at a step before another left a field out, where the room that freed holds it whole: whole.
      for (const step of taken.reverse()) {
        const { key } = step.field;
        if (step.kind === 'give' && step.field.cut === 'id' && !dropped.has(key)) {
          this.widths.set(key, step.field.width);
          if (total() <= this.columns) this.compactKeys.delete(key);
          else this.widths.set(key, step.field.min ?? step.field.width);
        }
      }
      // The room left goes to a field cut between its words (an event type), up to its width whole.
      for (const field of fields) {
        if (field.cut !== 'words' || dropped.has(field.key) || !this.compactKeys.has(field.key)) continue;
        const spare = this.columns - total();
        if (spare > 0) this.widths.set(field.key, Math.min(field.width, this.widths.get(field.key)! + spare));
      }
    }
    this.shown = fields.filter((field) => !dropped.has(field.key));
  }

  /** Whether the stream's lines show this field. */
  has(key: K): boolean {
    return this.shown.some((field) => field.key === key);
  }

  /** Whether the field is in its compact form on every line (a short id, a status without its time of day). */
  compact(key: K): boolean {
    return this.compactKeys.has(key);
  }

  /** An id as this stream shows the field's ids: whole, or in its one short form. */
  id(key: K, id: string): string {
    return this.compact(key) ? shortId(id) : id;
  }

  /**
   * One line: each field shown in its place, padded to its width (a field with no value on this line is blank, so
   * that the next ones keep their places), its value cut to the width as `cut` says on a terminal. The last field
   * takes the room left on the line. A line still too wide (a terminal narrower than every step could make it) loses
   * whole words at its end.
   */
  line(values: Partial<Record<K, FieldValue | undefined>>): string {
    const last = this.lastWithValue(values);
    let line = '';
    let used = 0;
    this.shown.forEach((field, n) => {
      if (n > last) return;
      const value = values[field.key];
      const text = value === undefined ? '' : typeof value === 'string' ? value : value.text;
      const styled = value === undefined ? '' : typeof value === 'string' ? value : (value.styled ?? value.text);
      const gap = n === 0 ? '' : ' '.repeat(this.gapBefore(field, this.shown));
      used += gap.length;
      const room = n === last && this.columns !== undefined ? Math.max(0, this.columns - used) : this.widths.get(field.key)!;
      const fits = this.columns === undefined || displayWidth(text) <= room;
      const shownText = fits ? styled : cutValue(field, text, room);
      const width = fits ? displayWidth(text) : displayWidth(shownText);
      const padding = n === last ? 0 : Math.max(0, this.widths.get(field.key)! - width);
      line += gap + shownText + ' '.repeat(padding);
      used += width + padding;
    });
    if (this.columns !== undefined && displayWidth(line.replace(STYLE, '')) > this.columns) return dropWords(line.replace(STYLE, ''), this.columns);
    return line;
  }

  /** One space before an attached field that follows the field it is attached to; two before any other. */
  private gapBefore(field: StreamField<K>, kept: Array<StreamField<K>>): number {
    const before = this.fields[this.fields.indexOf(field) - 1];
    return field.attached && before !== undefined && kept.includes(before) ? 1 : GAP;
  }

  /** The index of the last shown field with a value on this line: nothing is padded after it. */
  private lastWithValue(values: Partial<Record<K, FieldValue | undefined>>): number {
    for (let n = this.shown.length - 1; n >= 0; n--) {
      const value = values[this.shown[n]!.key];
      if (value !== undefined && (typeof value === 'string' ? value : value.text) !== '') return n;
    }
    return -1;
  }
}

function cutValue(field: StreamField, text: string, width: number): string {
  switch (field.cut) {
    case 'words':
      return cutWords(text, width);
    case 'middle':
      return cutMiddle(text, width);
    case 'url':
      return shortenUrl(text, width);
    case 'id':
      return displayWidth(shortIdText(text)) <= width ? shortIdText(text) : dropWords(shortIdText(text), width);
    default:
      return dropWords(text, width);
  }
}

/** A delivery's id and its attempt's number (`dlv_eb21…aaee #3`) whole: an id, a space and up to three digits. */
export const deliveryRefWidth = (idWidth: number) => idWidth + 4;
/** The same in its short form (`dlv_eb…aaee #3`). */
export const DELIVERY_REF_SHORT = ID_SHORT_WIDTH + 4;

/** A delivery's id in a stream's form and its attempt's number after it: `dlv_eb…aaee #3`. */
export function deliveryRef<K extends string>(layout: StreamLayout<K>, key: K, id: string, attempt: string | number | undefined): string {
  return `${layout.id(key, id)}${attempt === undefined || attempt === '' ? '' : ` #${attempt}`}`;
}
