import { cutEnd, cutMiddle, displayWidth, padEnd, shortenUrl } from './width.js';

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
  /** Where it is cut: at its end (a name), in its middle (an id: its start and its end stay), or as a URL (shortenUrl). */
  cut?: 'end' | 'middle' | 'url';
  /** Left out first when the line is too long (a detail shown elsewhere too). */
  optional?: boolean;
  /** Fields that may be cut give way in this order, lowest first (then in the order given). */
  give?: number;
  /** Follows the field before it after one space, not two (a detail of it, such as an id in parentheses). */
  attached?: boolean;
}

const GAP = 2;
const gapBefore = (field: LineField) => (field.attached ? 1 : GAP);

/**
 * Fields joined two spaces apart, fitted into `maxWidth` columns (none: a pipe,
 * every field whole): first the optional fields go, then the padding, then the
 * fields that may be cut are cut, in their `give` order, down to their `min`.
 * `fits` says whether that was enough; the line is then its caller's to try
 * in a shorter form. Widths are the terminal's (displayWidth).
 */
export function fitLine(fields: LineField[], maxWidth?: number): { line: string; fits: boolean } {
  let shown = fields;
  let widths = shown.map((field) => Math.max(displayWidth(field.text), field.pad ?? 0));
  // The last field is never padded: nothing comes after it to line up.
  const used = (i: number) => (i === shown.length - 1 ? Math.min(widths[i]!, displayWidth(shown[i]!.text)) : widths[i]!);
  const total = () => shown.reduce((sum, field, i) => sum + used(i) + (i === 0 ? 0 : gapBefore(field)), 0);
  if (maxWidth !== undefined && total() > maxWidth) {
    if (shown.some((field) => field.optional)) {
      const kept = shown.map((field, i) => [field, widths[i]!] as const).filter(([field]) => !field.optional);
      shown = kept.map(([field]) => field);
      widths = kept.map(([, width]) => width);
    }
    for (let i = 0; i < shown.length && total() > maxWidth; i++) widths[i] = Math.min(widths[i]!, displayWidth(shown[i]!.text));
    const byGive = shown.map((_field, i) => i).sort((a, b) => (shown[a]!.give ?? 0) - (shown[b]!.give ?? 0));
    for (const i of byGive) {
      const min = shown[i]!.min;
      if (total() <= maxWidth) break;
      if (min !== undefined) widths[i] = Math.max(min, used(i) - (total() - maxWidth));
    }
  }
  const parts = shown.map((field, i) => {
    const width = widths[i]!;
    const textWidth = displayWidth(field.text);
    const text = textWidth <= width ? (field.styled ?? field.text) : cutField(field, width);
    return i === shown.length - 1 ? text : text + ' '.repeat(Math.max(0, width - Math.min(textWidth, width)));
  });
  const line = parts.map((part, i) => (i === 0 ? part : ' '.repeat(gapBefore(shown[i]!)) + part)).join('');
  return { line, fits: maxWidth === undefined || total() <= maxWidth };
}

/**
 * The first of a line's forms (its fullest first) that fits `maxWidth`
 * columns; when none does, the last one cut at its end, its colour lost with
 * what was cut. No `maxWidth` (a pipe): the first form, whole.
 */
export function fittedLine(forms: LineField[][], maxWidth?: number): string {
  for (const fields of forms) {
    const fitted = fitLine(fields, maxWidth);
    if (fitted.fits) return fitted.line;
  }
  const last = forms[forms.length - 1]!;
  const text = last.map((field, i) => (i === 0 ? '' : ' '.repeat(gapBefore(field))) + padEnd(field.text, field.pad ?? 0)).join('');
  return cutEnd(text.trimEnd(), maxWidth!);
}

function cutField(field: LineField, width: number): string {
  if (field.cut === 'middle') return cutMiddle(field.text, width);
  if (field.cut === 'url') return shortenUrl(field.text, width);
  return cutEnd(field.text, width);
}
