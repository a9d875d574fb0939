import { badRequest } from '../http.js';
import { rejectUnknownParameters } from '../validation.js';

const ID = /^[A-Za-z0-9_-]{1,100}$/;

/** Refuses query parameters a route does not take (validation.ts); `token` is the access's. */
export function checkQuery(query: URLSearchParams, known: readonly string[]): void {
  rejectUnknownParameters(query, known, ['token']);
}

/** An id in a path or a query, refused before any lookup when it cannot be one. */
export function idParameter(name: string, value: string): string {
  if (!ID.test(value)) throw badRequest('invalid_parameter', `${name}: must be an id such as dlv_… or wh_… (letters, digits, _ and -)`);
  return value;
}
