import { cutEnd, cutMiddle, displayWidth, shortenUrl } from './width.js';

/** One field of a log line (tail, listen): its text, and how it gives way on a narrow terminal. */
export interface LineField {
  /** The text as measured and cut (sanitised, no colour). */
  text: string;
  /** The same text in colour, shown when it is not cut. */
  styled?: string;
  /** Padded to this width while there is room, so that the fields of successive lines line up. */
  pad?: number;
  /** The narrowest it may be cut to; without it the field is never cut. */
  min?: number;
  /**
   * Where it is cut: at its end (a name), in its middle (its start and its end stay), as a URL (shortenUrl), or as an
   * id: in its middle, and straight to `min`, so that an id is whole or in its one short form, alike on every line.
   */
  cut?: 'end' | 'middle' | 'url' | 'id';
  /** Left out when the line is too long, at this step of `give`'s order (a detail shown elsewhere too: early; a
   *  field that matters but less than what is left: late). Without it the field is never left out. */
  drop?: number;
  /** The step, in one order with `drop`'s, at which the field is cut down to its `min` (lowest first). */
  give?: number;
  /** Follows the field before it after one space, not two (a detail of it, such as an id in parentheses). */
  attached?: boolean;
}

const GAP = 2;

/** The columns a delivery's id keeps in its short form: its start and its end (`dlv_3e…fe2d`). */
const ID_SHORT_WIDTH = 11;
/** The share of a cut id's room kept from its start: the type prefix and the first characters after it. */
const ID_START_SHARE = 0.6;

/**
 * Whether a stream of lines on a terminal `columns` wide shows its ids in their short form: on one narrower than
 * `wholeAt` (the width its widest usual line needs with its ids whole), every line does, so that one id reads the
 * same on each; in a pipe (no columns) none does.
 */
export function shortIdsAt(columns: number | undefined, wholeAt: number): boolean {
  return columns !== undefined && columns > 0 && columns < wholeAt;
}

/**
 * An id as a line's field: whole, or with `short` in its short form (`dlv_3e…fe2d`, `wh_32…a772`). A line that
 * still does not fit cuts it to that same form, at step `give`.
 */
export function idField(id: string, short: boolean, give: number, minWidth = ID_SHORT_WIDTH): LineField {
  return { text: short ? shortId(id, minWidth) : id, min: minWidth, cut: 'id', give };
}

/** An id in its short form: its start and its end, `width` columns in all (`dlv_3e…fe2d`). */
export function shortId(id: string, width = ID_SHORT_WIDTH): string {
  return cutMiddle(id, width, ID_START_SHARE);
}

/**
 * A delivery's id (idField) and, one space after it, the attempt's number (`dlv_3e…fe2d #2`), never cut. With
 * `pad`, the pair is padded to that width, so that what follows lines up whether or not there is a number.
 */
export function deliveryIdFields(
  id: string,
  attempt: string | number | undefined,
  { short, give, pad }: { short: boolean; give: number; pad?: number },
): LineField[] {
  const field = idField(id, short, give);
  const number = attempt === undefined ? '' : `#${attempt}`;
  const numberPad = pad === undefined ? {} : { pad: Math.max(0, pad - displayWidth(field.text) - 1) };
  return [field, ...(number || pad !== undefined ? [{ text: number, attached: true, ...numberPad }] : [])];
}

/**
 * Fields joined two spaces apart, fitted into `maxWidth` columns (none: a pipe,
 * every field whole): first the padding goes, then step by step in one order
 * (`give` and `drop`, lowest first) a field is cut down to its `min` or left
 * out, until the line fits. `fits` says whether that was enough; the line is
 * then its caller's to try in a shorter form. Widths are the terminal's
 * (displayWidth).
 */
export function fitLine(fields: LineField[], width?: number): { line: string; fits: boolean } {
  // A terminal that says it has no columns (0: a pseudo-terminal with no size) is treated as a pipe.
  const maxWidth = width !== undefined && width > 0 ? width : undefined;
  const widths = fields.map((field) => Math.max(displayWidth(field.text), field.pad ?? 0));
  const dropped = new Set<number>();
  // A field attached to the one before it follows it after one space, unless that one was left out.
  const gapAt = (i: number) => (fields[i]!.attached && !dropped.has(i - 1) ? 1 : GAP);
  const shown = () => fields.map((_field, i) => i).filter((i) => !dropped.has(i));
  // The last field is never padded: nothing comes after it to line up.
  const used = (i: number, last: number) => (i === last ? Math.min(widths[i]!, displayWidth(fields[i]!.text)) : widths[i]!);
  const total = () => {
    const indexes = shown();
    const last = indexes[indexes.length - 1];
    return indexes.reduce((sum, i, n) => sum + used(i, last!) + (n === 0 ? 0 : gapAt(i)), 0);
  };
  if (maxWidth !== undefined && total() > maxWidth) {
    for (let i = 0; i < fields.length && total() > maxWidth; i++) widths[i] = Math.min(widths[i]!, displayWidth(fields[i]!.text));
    const steps = fields
      .flatMap((field, i) => [
        ...(field.min !== undefined ? [{ rank: field.give ?? 0, i, kind: 'cut' as const }] : []),
        ...(field.drop !== undefined ? [{ rank: field.drop, i, kind: 'drop' as const }] : []),
      ])
      .sort((a, b) => a.rank - b.rank);
    for (const step of steps) {
      if (total() <= maxWidth) break;
      if (step.kind === 'drop') dropped.add(step.i);
      else if (!dropped.has(step.i)) {
        // Never wider than it is: a field already shorter than its min stays as it is.
        const current = Math.min(widths[step.i]!, displayWidth(fields[step.i]!.text));
        const field = fields[step.i]!;
        widths[step.i] = Math.min(current, field.cut === 'id' ? field.min! : Math.max(field.min!, current - (total() - maxWidth)));
      }
    }
  }
  const indexes = shown();
  const last = indexes[indexes.length - 1];
  const line = indexes
    .map((i, n) => {
      const field = fields[i]!;
      const width = widths[i]!;
      const textWidth = displayWidth(field.text);
      const text = textWidth <= width ? (field.styled ?? field.text) : cutField(field, width);
      const padded = i === last ? text : text + ' '.repeat(Math.max(0, width - Math.min(textWidth, width)));
      return n === 0 ? padded : ' '.repeat(gapAt(i)) + padded;
    })
    .join('');
  return { line, fits: maxWidth === undefined || total() <= maxWidth };
}

/**
 * The first of a line's forms (its fullest first) that fits `maxWidth`
 * columns; when none does, the last one cut at its end, its colour lost with
 * what was cut. No `maxWidth` (a pipe): the first form, whole.
 */
export function fittedLine(forms: LineField[][], width?: number): string {
  const maxWidth = width !== undefined && width > 0 ? width : undefined;
  for (const fields of forms) {
    const fitted = fitLine(fields, maxWidth);
    if (fitted.fits) return fitted.line;
  }
  // None fits: the last form as far as it could be fitted, then cut at its end (its colour lost with what was cut).
  const fitted = fitLine(forms[forms.length - 1]!, maxWidth).line;
  return cutEnd(fitted.replace(STYLE, '').trimEnd(), maxWidth!);
}

/** A terminal's colour codes (chalk's SGR sequences), taken out of a line that is cut as plain text. */
// biome-ignore lint/complexity/useRegexLiterals: a literal would hold the escape character itself
const STYLE = new RegExp('\u001b\\[[0-9;]*m', 'g');

function cutField(field: LineField, width: number): string {
  if (field.cut === 'middle') return cutMiddle(field.text, width);
  if (field.cut === 'id') return shortId(field.text, width);
  if (field.cut === 'url') return shortenUrl(field.text, width);
  return cutEnd(field.text, width);
}
