import { InvalidArgumentError } from '@commander-js/extra-typings';
import { usageError } from '../../cli/errors.js';
import { samplePayload } from '../../protocol/catalog.js';

/** One `--set path=value`: where in the payload (its keys, or an array's indexes), and the value (JSON where it parses). */
export interface Setting {
  given: string;
  path: string[];
  value: unknown;
}

/**
 * A commander parser for `--set path=value`, as stripe's `trigger --override`:
 * `amount.amount=500` sets a number, `amount.currency=USD` a string (what does
 * not parse as JSON is a string), `id='"42"'` the string 42, `paid=true` a
 * boolean, `lines.0.sku=X` an array's item.
 */
export function setting(value: string): Setting {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError('must be path=value, such as amount.amount=500 or amount.currency=USD.');
  const path = value.slice(0, equals).split('.');
  if (path.some((key) => key === ''))
    throw new InvalidArgumentError('has an empty key in its path: keys are separated by single dots, as in amount.currency=USD.');
  const text = value.slice(equals + 1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { given: value, path, value: parsed };
}

/** The catalog's sample payload of `event`, each --set applied in turn. */
export function samplePayloadWith(event: string, settings: readonly Setting[], now: Date): Record<string, unknown> {
  const payload = samplePayload(event, now);
  for (const each of settings) apply(payload, each);
  return payload;
}

/** Sets one value in place; a path through a value that holds no keys (a string, a number) is a usage error. */
function apply(payload: Record<string, unknown>, { given, path, value }: Setting): void {
  let container: unknown = payload;
  path.forEach((key, i) => {
    const last = i === path.length - 1;
    const at = path.slice(0, i).join('.') || 'the payload';
    if (Array.isArray(container)) {
      if (!/^\d+$/.test(key) || Number(key) > container.length) {
        throw usageError(`--set ${given}: ${at} is an array of ${container.length}: give an index from 0 to ${container.length}`);
      }
    } else if (typeof container !== 'object' || container === null) {
      throw usageError(`--set ${given}: ${at} is ${JSON.stringify(container)}, which holds no ${key}`);
    }
    const holder = container as Record<string, unknown>;
    // An own property whatever its name (__proto__ included), as JSON.parse makes them.
    const own = Object.hasOwn(holder, key) ? holder[key] : undefined;
    const next = last ? value : (own ?? {});
    Object.defineProperty(holder, key, { value: next, enumerable: true, writable: true, configurable: true });
    container = next;
  });
}

/** What `--data` gives: the body's exact bytes, and its `event` when it is a JSON object that names one. */
export interface GivenBody {
  body: Buffer;
  event: string | undefined;
}

/** `--data`'s bytes checked: JSON (the service sends nothing else), sent byte for byte as given. */
export function givenBody(bytes: Buffer, from: string): GivenBody {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw usageError(
      `--data ${from} is not JSON: ${(error as Error).message}`,
      'a delivery\'s body is a JSON object, such as --data \'{"id":"inv_1","event":"invoice.paid"}\'',
    );
  }
  const event = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { event?: unknown }).event : undefined;
  return { body: bytes, event: typeof event === 'string' ? event : undefined };
}
