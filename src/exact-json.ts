// The service's JSON read exactly: `--json` prints what the service returned, and a number a double would change
// (12345678901234567890123 would print as 1.2345678901234568e+22, 1e400 as null) keeps its text. Every other number
// stays a plain number.

/** A number of the service's that a double cannot hold: its text, which JSON.stringify writes as it came. */
export type RawNumber = { readonly rawJSON: string };
/** A number field of the service's answer, as exactParse reads it. */
export type ServiceNumber = number | RawNumber;

/** A JSON number's decimal value in one spelling: sign, digits without leading or trailing zeros, power of ten. */
function decimal(text: string): string {
  const [, sign, whole, fraction = '', power = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text) ?? [];
  const digits = `${whole ?? ''}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  return `${sign}${significant}e${BigInt(power) - BigInt(fraction.length) + BigInt(digits.length - significant.length)}`;
}

/** Whether `value`, as JSON.stringify writes it, is the number `source` says. */
const holds = (source: string, value: number) => String(value) === source || (Number.isFinite(value) && decimal(String(value)) === decimal(source));

/**
 * A number a double may change, where a JSON number can begin (after `:`, `,` or `[`): 16 digits or more, an
 * exponent, or a negative zero. Text without one (nearly every answer) is parsed without the reviver, which costs
 * about thirty times the parse; a match inside a string only costs that time.
 */
const MAY_NOT_HOLD = /[:,[]\s*(?:-?\d[\d.]*[eE]|-?[\d.]{16}|-0(?!\d))/;

/**
 * The longest text read with the reviver: 4 MiB of 20-digit numbers take it 1.4 s and 171 MB (8 MiB: 2 s, 296 MB),
 * where a page of the interface is far smaller. A longer answer's numbers are read as doubles (docs/commands.md).
 */
export const EXACT_NUMBERS_UP_TO = 4 * 1024 * 1024;

/** JSON text as values, each number a double would change kept as its text (a RawNumber), in a text up to EXACT_NUMBERS_UP_TO. */
export function exactParse(text: string): unknown {
  if (text.length > EXACT_NUMBERS_UP_TO || !MAY_NOT_HOLD.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value, context) =>
    typeof value === 'number' && context.source !== undefined && (Object.is(value, -0) || !holds(context.source, value)) ? JSON.rawJSON(context.source) : value,
  );
}

/** A number field as whsvc computes with it: a raw one as the nearest double (Infinity past the range). */
export function numberValue(value: ServiceNumber): number;
export function numberValue(value: ServiceNumber | null | undefined): number | undefined;
export function numberValue(value: ServiceNumber | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'number' ? value : Number(value.rawJSON);
}

/** A number field as text, as the service wrote it. */
export function numberText(value: ServiceNumber): string;
export function numberText(value: ServiceNumber | null | undefined): string | undefined;
export function numberText(value: ServiceNumber | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'number' ? String(value) : value.rawJSON;
}

/**
 * JSON with the keys of every object in order, and no undefined: two spellings of one value are one text (an mcp plan's
 * fingerprint, the payloads rotate-secret compares, a receiver's canonical re-serialization that check-receiver tries).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    typeof field === 'object' && field !== null && !Array.isArray(field) && !('rawJSON' in field)
      ? Object.fromEntries(
          Object.entries(field as Record<string, unknown>)
            .filter(([, inner]) => inner !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : field,
  );
}
