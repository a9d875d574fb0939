/** What an answer of the service must look like before a command reads it. */
export type Shape = 'webhook' | 'delivery' | 'page' | 'catalog';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const CHECKS: Record<Shape, { what: string; ok: (value: Record<string, unknown>) => boolean }> = {
  webhook: { what: 'a webhook (an object with an id)', ok: (v) => typeof v.id === 'string' },
  delivery: { what: 'a delivery (an object with an id)', ok: (v) => typeof v.id === 'string' },
  page: { what: 'a page (an object with a data array)', ok: (v) => Array.isArray(v.data) },
  catalog: { what: 'the event catalog (an object with a data array)', ok: (v) => Array.isArray(v.data) },
};

/** Why `value` is not of `shape`, or undefined when it is. */
export function shapeProblem(value: unknown, shape: Shape): string | undefined {
  const check = CHECKS[shape];
  return isRecord(value) && check.ok(value) ? undefined : check.what;
}
