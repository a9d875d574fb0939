import { samplePayload } from '../../protocol/catalog.js';

// The bodies check-receiver sends made otherwise than the service makes them: JSON written as no serializer writes
// it, a body changed by one byte, the largest payload the service sends.

/** The body made with its JSON written as no serializer writes it: keys in reverse order, spaces before colons, a line per key, the first character of each string as a \u escape. */
export function unlikeReserialized(value: unknown, indent = ''): string {
  if (typeof value === 'string') {
    if (value === '') return '""';
    // The first character escaped (both halves of a surrogate pair), the rest as JSON writes it.
    const units = (value.codePointAt(0) ?? 0) > 0xffff ? 2 : 1;
    const escaped = value
      .slice(0, units)
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
    return `"${escaped.join('')}${JSON.stringify(value.slice(units)).slice(1)}`;
  }
  if (Array.isArray(value)) return `[ ${value.map((item) => unlikeReserialized(item, indent)).join(' , ')} ]`;
  if (typeof value === 'object' && value !== null) {
    const inner = `${indent}   `;
    const entries = Object.entries(value)
      .reverse()
      .map(([key, item]) => `${inner}${JSON.stringify(key)} : ${unlikeReserialized(item, inner)}`);
    return `{\n${entries.join(' ,\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** The body with one byte changed: its last digit, made another (an amount, as a forger would change it). */
export function withOneByteChanged(body: string): { body: string; change: string } {
  const at = body.search(/\d(?!.*\d)/s);
  if (at < 0) return { body: `${body.slice(0, -1)} ${body.slice(-1)}`, change: 'a space added before its last character' };
  const digit = body[at]!;
  const other = digit === '9' ? '8' : String(Number(digit) + 1);
  return { body: body.slice(0, at) + other + body.slice(at + 1), change: `a digit ${digit} made ${other}` };
}

/** The sample of `event` grown to `bytes` exactly, with invoice lines and a memo: the largest payload the service sends. */
export function payloadOfSize(event: string, now: Date, bytes: number): string {
  const payload: Record<string, unknown> = { ...samplePayload(event, now), lines: [] as unknown[], memo: '' };
  const lines = payload.lines as unknown[];
  const size = () => Buffer.byteLength(JSON.stringify(payload));
  const line = (n: number) => ({
    sku: `SKU-${String(n).padStart(5, '0')}`,
    description: 'Steel bracket 40 mm',
    quantity: 1,
    amount: { amount: 129, currency: 'EUR' },
  });
  while (size() + 200 < bytes) lines.push(line(lines.length + 1));
  payload.memo = 'x'.repeat(Math.max(0, bytes - size()));
  return JSON.stringify(payload);
}
